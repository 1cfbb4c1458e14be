"""Errors a user can cause: each becomes one line on stderr and exit status 2."""


class ShutboxError(Exception):
    """Bad input from the user: a setting, a file, a flag value. Exit status 2."""


class SettingsError(ShutboxError):
    """A setting with a value that is not allowed, or a settings file that cannot be read."""
