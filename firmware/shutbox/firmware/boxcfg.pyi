# The generated configuration module: `shutbox firmware build` writes boxcfg.py from the kit model.
FIRMWARE: str
BOARD: str
TILES: int
INPUT: str
PINS: tuple[int, ...]
BUTTON: int | None
PULL: str
SHUT_LEVEL: int
DEBOUNCE_MS: int
SCAN_MS: int
