# Shut the Box firmware entry point. Kept tiny on purpose: the RP2040 port has no safe mode,
# so holding the button while the board powers up skips the firmware and leaves the REPL free.
import boxcfg
import inputs

if inputs.button_held(boxcfg):
    print("shutbox: button held at power-up; staying in the REPL")
else:
    import box

    box.run(boxcfg)
