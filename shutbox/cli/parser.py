"""The ``shutbox`` command: one module per subcommand in :mod:`shutbox.cli.commands`, each declaring its
:class:`~shutbox.cli.commandspec.Command` (flags, the kit settings it takes, how it runs).

Start-up is kept short: for ``shutbox NAME ...`` only NAME's module is imported and only its parser
is built; the full parser (every command) is built for ``--help``, no command or an unknown one.
Command modules import heavy libraries (numpy, CadQuery, ReportLab, pyserial …) only inside ``run``.
"""

from __future__ import annotations

import sys

try:  # Ctrl-C while Python is still loading this module: one line, no traceback
    import argparse
    import gc
    import importlib
    import os
    import signal
    from collections.abc import Sequence

    from shutbox.base.errors import ShutboxError
    from shutbox.base.text import safe_line
    from shutbox.base.version import __version__
except KeyboardInterrupt:
    sys.stderr.write("shutbox: interrupted\n")
    raise SystemExit(130) from None

TYPE_CHECKING = False  # typing is not imported at run time: it costs start-up (bench/cli.py)
if TYPE_CHECKING:
    from typing import Any

#: Command name -> the module declaring it (``COMMANDS``), in the order shown in --help.
COMMAND_MODULES: dict[str, str] = {
    "config": "shutbox.cli.commands.config",
    "kit": "shutbox.cli.commands.kit",
    "studio": "shutbox.cli.commands.studio",
    "scorepad": "shutbox.cli.commands.scorepad",
    "card": "shutbox.cli.commands.card",
    "solve": "shutbox.cli.commands.solve",
    "advise": "shutbox.cli.commands.solve",
    "play": "shutbox.cli.commands.play",
    "monitor": "shutbox.cli.commands.monitor",
    "history": "shutbox.cli.commands.history",
    "review": "shutbox.cli.commands.review",
    "stats": "shutbox.cli.commands.stats",
    "dice": "shutbox.cli.commands.dice",
    "sim": "shutbox.cli.commands.sim",
    "firmware": "shutbox.cli.commands.firmware",
    "cad": "shutbox.cli.commands.cad",
    "pcb": "shutbox.cli.commands.pcb",
    "cache": "shutbox.cli.commands.cache",
}


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, given the terminal's width without importing shutil: argparse builds a formatter
    for every flag it adds, and shutil loads zlib, bz2 and lzma (~3 ms of every start; bench/cli.py)."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=terminal_columns() - 2)


def terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``: $COLUMNS if a positive number, else stdout's terminal, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    stdout = sys.__stdout__
    try:
        return (os.get_terminal_size(stdout.fileno()).columns if stdout is not None else 0) or 80
    except (ValueError, OSError):
        return 80


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit status 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        kwargs.setdefault("allow_abbrev", False)  # `cad --dice 20` must not be read as `--dice-size 20`
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        if " " in self.prog and message.startswith("argument") and "invalid choice" in message:
            # `cad --bogus 3`: the unknown flag is the mistake, not the value that landed on the action.
            unknown = [a for a in _ARGV if a.startswith("--") and a != "--"
                       and a.split("=", 1)[0] not in self._option_string_actions]
            if unknown:
                message = f"unrecognized arguments: {' '.join(unknown)}"
        from shutbox.base.suggest import helpful

        self.exit(2, safe_line(f"{self.prog}: error: {helpful(self, message, _ARGV)}") + "\n")


#: The command line being parsed (for :meth:`_Parser.error`).
_ARGV: list[str] = []


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of command ``only`` alone."""
    parser = _Parser(
        prog="shutbox",
        description="Shut the Box kit: printable box, score pads, firmware and a scorekeeper.",
        epilog="Start playing: `shutbox sim --demo` (no hardware: watch a game), `shutbox play --port none "
               "--players \"Ann,Bob\"` (a plain wooden box: type the throws and tiles), `shutbox play` (a wired "
               "box). Afterwards: `shutbox review ID`, `shutbox stats`. `shutbox CMD --help` for each command.",
    )
    parser.add_argument("--version", action="version", version=f"shutbox {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    names = [only] if only in COMMAND_MODULES else list(COMMAND_MODULES)
    for name in names:
        for command in importlib.import_module(COMMAND_MODULES[name]).COMMANDS:
            if command.name == name:
                command.add_to(sub)
    return parser


class Terminated(BaseException):
    """SIGTERM (or SIGHUP: the terminal closed, SSH dropped) arrived: unwind like Ctrl-C, so staged output, the game
    database's side files and child processes are cleaned up."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM, SIGHUP: :class:`Terminated`, but never inside an import (as for Ctrl-C, :func:`_interrupt`)."""
    if _importing(frame):
        _again(signum)
        return
    raise Terminated(signum)


def _terminated(signum: int) -> int:
    """The one line and the exit status for a command ended by SIGTERM (143) or SIGHUP (129)."""
    if signum == signal.SIGHUP:
        _say("shutbox: hung up (its terminal closed); what was saved is kept")
        return 129
    _say("shutbox: terminated")
    return 143


def _say(text: str) -> None:
    try:
        sys.stderr.write(safe_line(text) + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every failure is one line on stderr (exit 2; Ctrl-C 130, SIGTERM 143, SIGHUP 129)."""
    try:
        with _signals():
            try:
                code = _run(argv)
            except SystemExit as exit_:  # --help, --version, a usage error: their text must reach stdout too
                _flush_stdout()
                raise exit_
            _flush_stdout()
            return code
    except KeyboardInterrupt:
        _say("shutbox: interrupted")
        return 130
    except Terminated as exc:
        return _terminated(exc.signum)
    except BrokenPipeError:  # `shutbox history | head -1`: the reader left; say nothing more
        _quiet_stdout()
        return 141
    except ShutboxError as exc:
        _say(f"shutbox: error: {exc}")
        return 2
    except OSError as exc:  # a write the commands did not foresee: still one line naming the path
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        _say(f"shutbox: error: {where}{exc.strerror or exc}")
        _quiet_stdout()
        return 2
    except (MemoryError, RecursionError) as exc:
        _say(f"shutbox: error: the input is too large or too deeply nested ({type(exc).__name__})")
        return 2
    except Exception as exc:
        if os.environ.get("SHUTBOX_DEBUG"):
            raise
        _say(f"shutbox: internal error: {type(exc).__name__}: {exc} (please report it; SHUTBOX_DEBUG=1 shows "
             "the traceback)")
        return 70


def _run(argv: Sequence[str] | None) -> int:
    whole_process = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv else None)
    _ARGV[:] = argv
    for arg in argv:  # argparse drops a "--" given as a value (`--db=--`) and hands the command an empty list
        if arg.startswith("--") and arg.endswith("=--") and len(arg) > 3:
            raise ShutboxError(f"{safe_line(arg, 80)}: '--' is not a value; give {safe_line(arg[:-3], 60)} a value")
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    if args.command_spec.extra is not None:
        from shutbox.cli.commandspec import missing_extra

        refusal = missing_extra(args.command_spec.extra)
        if refusal:
            raise ShutboxError(f"{args.command_spec.name}: {refusal}")
    kit = None
    if args.command_spec.settings:
        from shutbox.kit.config import resolve

        kit = resolve(args)
    if whole_process:
        # What start-up built (modules, classes, the parser) lives until exit: move it out of the garbage
        # collector's sight, so no collection (nor the one at exit) walks it again (~5 ms a run; bench/cli.py).
        gc.freeze()
    return int(args.run(args, kit) or 0)


def _importing(frame: object) -> bool:
    """Is the main thread inside Python's import machinery (loading a module, maybe a native one)?"""
    while frame is not None:
        if getattr(frame, "f_code", None) is not None and frame.f_code.co_filename.startswith("<frozen importlib"):  # type: ignore[attr-defined]
            return True
        frame = getattr(frame, "f_back", None)
    return False


def _interrupt(signum: int, frame: object) -> None:
    """Ctrl-C: KeyboardInterrupt, but never inside an import (a native module interrupted while it initialises
    fails with a misleading ImportError or crashes): there it is delivered again 50 ms later."""
    if _importing(frame):
        _again(signum)
        return
    raise KeyboardInterrupt


def _again(signum: int) -> None:
    """Deliver ``signum`` to this process again 50 ms from now."""
    import threading

    timer = threading.Timer(0.05, signal.raise_signal, (signum,))
    timer.daemon = True
    timer.start()


class _signals:
    """While a command runs: SIGTERM and SIGHUP raise :class:`Terminated` (SIGHUP left alone when ignored, as under
    ``nohup``), Ctrl-C waits for a running import to end."""

    def __enter__(self) -> None:
        self.previous: dict[int, object] = {}
        try:
            self.previous[signal.SIGTERM] = signal.signal(signal.SIGTERM, _terminate)
            if signal.getsignal(signal.SIGHUP) is signal.SIG_DFL:
                self.previous[signal.SIGHUP] = signal.signal(signal.SIGHUP, _terminate)
            if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
                self.previous[signal.SIGINT] = signal.signal(signal.SIGINT, _interrupt)
        except ValueError:  # not the main thread
            pass

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]


def _flush_stdout() -> None:
    """Flush what a command printed, so a full disk or a closed pipe on stdout is reported as one line here."""
    sys.stdout.flush()


def _quiet_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
