"""Smart dice over Bluetooth LE (GoDice, Pixels): every throw read from the dice themselves, no camera.

``protocol`` reads each make's notifications, ``record`` is the replay format (``--record``, ``replay:FILE``),
``throws`` turns what the dice say into throws, ``radio`` finds and keeps the dice connected (bleak), and
``source`` opens a ``SOURCE`` (``godice``, ``pixels``, ``godice:NAME,NAME``, ``replay:FILE``) for the
commands. See docs/smartdice.md.
"""
