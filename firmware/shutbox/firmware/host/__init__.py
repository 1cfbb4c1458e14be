"""Host tooling for the box firmware (``shutbox.firmware.host``): pin plan, bundle, deploy, wiring sheet,
the host side of the serial protocol, and the emulated Pico (``emulator``, ``board_image``). Runs on the computer;
nothing here goes on the board.
"""
