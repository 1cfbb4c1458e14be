# Shut the Box firmware entry point. Kept tiny on purpose: the RP2040 port has no safe mode, so
# guard.main catches what escapes the firmware, reports it and restarts the board (or stops a boot
# loop at the REPL); holding the button while the board powers up skips the firmware altogether.
import guard

guard.main()
