"""Host tooling for the box firmware (``shutbox.firmware.host``): pin plan, bundle, deploy, wiring sheet
and the host side of the serial protocol. Runs on the computer; nothing here goes on the board.
"""
