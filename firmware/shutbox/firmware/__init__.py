"""MicroPython firmware for the box (``shutbox.firmware``).

The modules here run on the microcontroller. The host only locates this folder to build and
deploy it; it never imports the device modules.
"""
