"""The kit model: every setting a user chooses, declared once.

Each setting is a dataclass field whose metadata (help, allowed values, range, CLI flag) drives
validation, the TOML file, ``shutbox config show`` and the command-line flags alike. Rule names
and values follow ``docs/RULES.md``. CAD, score pads, firmware and the companion read their settings
from a :class:`Kit`; what a rule means in play (the one-die rule, the legal moves, the score) is stated
once in :mod:`shutbox.game.rules`, which the solver, score pads and scorekeeper all call.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from shutbox.base.bounded import range_text
from shutbox.base.errors import SettingsError
from shutbox.base.suggest import nearest
from shutbox.base.text import quoted, shown

TYPE_CHECKING = False  # typing is not imported at run time: it costs start-up (bench/cli.py)
if TYPE_CHECKING:
    from typing import Any

#: Tile counts: a box has 9, 10 or 12 tiles; dominoes or playing cards as tiles give any count up to 54.
MIN_TILES, MAX_TILES = 9, 54
#: The tile counts the printable box and its firmware are built for (larger sets are played without the box).
BOX_TILE_COUNTS = (9, 10, 12)
#: The dice the printable box is built for.
BOX_DICE = 2
#: Dice: two, up to six with a double-18 domino set (up to 36 tiles), up to nine with a 54-card deck.
MIN_DICE, MAX_DICE = 2, 9
#: Most dice per tile count: (highest tile count, most dice) -- double-18 dominoes, then a 54-card deck.
DICE_LIMITS = ((36, 6), (54, 9))
ONE_DIE_RULES = ("high-shut", "shut-789", "sum-6", "sum-5", "never")
SCORINGS = ("sum", "digits")
#: ``digits`` scoring joins the open tiles' labels; up to 12 tiles the number (15 digits) is exact in a float64.
DIGITS_MAX_TILES = 12
MATCHES = ("round", "drop-out", "tournament", "long-game")
DEFAULT_LIMITS = {"drop-out": 45, "tournament": 100}
MAX_TILES_CHOICES = (None, 2)
SENSOR_KINDS = ("reed", "microswitch", "none")
#: Sintered NdFeB grades a tile magnet may have, with the least remanence each grade guarantees, tesla
#: (the grade tables of IEC 60404-8-1 / the magnet makers': N35 1.17-1.21 T ... N52 1.42-1.47 T).
MAGNET_GRADES: dict[str, float] = {"N35": 1.17, "N38": 1.21, "N42": 1.28, "N45": 1.32, "N48": 1.37, "N52": 1.42}
BOARDS = ("pico", "pico2")
#: Whether each throw must be entered before its tiles move (docs/RULES.md, "Throws optional"); ``auto``:
#: optional with a box attached, required without one.
THROWS = ("auto", "required", "optional")
TILE_INPUTS = ("gpio", "74hc165")
PULLS = ("up", "down", "none")
LEVELS = ("low", "high")
BED_PRESETS: dict[str, tuple[float, float, float]] = {
    "mk4": (250.0, 210.0, 220.0),
    "mk3": (250.0, 210.0, 210.0),
    "core-one": (250.0, 220.0, 270.0),
    "mini": (180.0, 180.0, 180.0),
    "xl": (360.0, 360.0, 360.0),
    "ender3": (220.0, 220.0, 250.0),
    "bambu": (256.0, 256.0, 256.0),
}


def param(
    default: Any,
    help: str,
    *,
    flag: str | None = None,
    choices: tuple[Any, ...] | None = None,
    minimum: float | None = None,
    maximum: float | None = None,
    exclusive_minimum: bool = False,
    parse: Callable[[Any], Any] | None = None,
    rule: bool = False,
) -> Any:
    """Declare one setting: its default, help text, CLI flag and what values are allowed.

    ``rule=True`` marks a rule flag, which every subcommand accepts; other flags belong to
    the subcommands that build physical things.
    """
    meta = {
        "help": help,
        "flag": flag,
        "choices": choices,
        "minimum": minimum,
        "maximum": maximum,
        "exclusive_minimum": exclusive_minimum,
        "parse": parse,
        "rule": rule,
    }
    return field(default=default, metadata=meta)


def _parse_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("on", "true", "yes", "1"):
        return True
    if text in ("off", "false", "no", "0"):
        return False
    raise ValueError("allowed: on, off")


def _parse_max_tiles(value: Any) -> int | None:
    if value is None or (isinstance(value, str) and value.strip().lower() in ("none", "")):
        return None
    if isinstance(value, bool):
        raise ValueError("allowed: none, 2")
    number = int(value) if isinstance(value, int) else _parse_int(value)
    if number != 2:
        raise ValueError("allowed: none, 2")
    return number


#: Largest magnitude of any number setting (far beyond every sensible value; keeps ints printable).
MAX_NUMBER = 10**12
#: Largest GPIO number of any RP2 chip (RP2350B: GP0 to GP47); the board's own header is checked by the pin plan.
MAX_GPIO = 47
#: Longest outer box side accepted, mm (a box larger than the bed is split; this is far beyond any kit).
MAX_BOX_MM = 2000


def _parse_int(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError("expected a whole number")
    if isinstance(value, float) and value.is_integer() and abs(value) <= MAX_NUMBER:
        value = int(value)
    if isinstance(value, int):
        if abs(value) > MAX_NUMBER:
            raise ValueError("expected a whole number")
        return value
    text = str(value).strip() if isinstance(value, str) else ""
    if not re.fullmatch(r"[+-]?[0-9]{1,13}", text) or abs(int(text)) > MAX_NUMBER:
        raise ValueError("expected a whole number")
    return int(text)


def _parse_float(value: Any) -> float:
    if isinstance(value, bool) or (isinstance(value, str) and len(value) > 40):
        raise ValueError("expected a number")
    if not isinstance(value, (int, float, str)):
        raise ValueError("expected a number")
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError("expected a number") from None
    if number != number or abs(number) > MAX_NUMBER:
        raise ValueError("expected a finite number")
    return number


def _parse_optional_limit(value: Any) -> int | None:
    if value is None or (isinstance(value, str) and value.strip().lower() in ("none", "")):
        return None
    return _parse_int(value)


def _parse_optional_pin(value: Any) -> int | None:
    if value is None or (isinstance(value, str) and value.strip().lower() in ("none", "")):
        return None
    number = _parse_int(value)
    if not 0 <= number <= MAX_GPIO:
        raise ValueError(f"allowed: none or a GPIO number from 0 to {MAX_GPIO}")
    return number


def parse_pins(value: Any) -> str:
    """Accept ``auto`` or GPIO numbers (a comma list or a TOML array); return the canonical spelling."""
    if isinstance(value, str) and value.strip().lower() == "auto":
        return "auto"
    items = list(value) if isinstance(value, (list, tuple)) else str(value)[:400].split(",")
    if not items or isinstance(value, bool) or len(items) > 64:
        raise ValueError("not a pin list")
    numbers = [_parse_int(item) for item in items]
    if any(not 0 <= n <= MAX_GPIO for n in numbers):
        raise ValueError(f"GPIO numbers are 0 to {MAX_GPIO}")
    if len(set(numbers)) != len(numbers):
        raise ValueError("a GPIO is listed twice")
    return ",".join(str(n) for n in numbers)


_BED_DIM = r"([0-9]{1,5}(?:\.[0-9]{1,3})?)"
_BED_RE = re.compile(rf"\s*{_BED_DIM}\s*[xX]\s*{_BED_DIM}\s*[xX]\s*{_BED_DIM}\s*")


def parse_bed(value: Any) -> str:
    """Accept a preset name or ``WxHxZ`` in mm; return the canonical spelling."""
    if not isinstance(value, str) or len(value) > 60:
        raise ValueError("not a bed")
    text = value.strip().lower()
    if text in BED_PRESETS:
        return text
    match = _BED_RE.fullmatch(text)
    if not match:
        raise ValueError("not a bed")
    dims = [float(g) for g in match.groups()]
    if any(d <= 0 for d in dims):
        raise ValueError("bed sizes must be positive")
    return "x".join(f"{d:g}" for d in dims)


def bed_size(bed: str) -> tuple[float, float, float]:
    """The (W, H, Z) of a canonical bed value in mm."""
    if bed in BED_PRESETS:
        return BED_PRESETS[bed]
    w, h, z = (float(part) for part in bed.split("x"))
    return (w, h, z)


@dataclass(frozen=True)
class Rules:
    """Rule settings, named as in RULES.md."""

    tiles: int = param(9, "number of tiles (9, 10, 12 on the box; dominoes or cards as tiles: any up to 54)",
                       minimum=MIN_TILES, maximum=MAX_TILES, parse=_parse_int, rule=True)
    dice: int = param(None, "number of dice thrown (default 2, or the fewest whose 6 x dice reach the highest "
                      "tile; at most 6 with up to 36 tiles, 9 with more)", minimum=MIN_DICE, maximum=MAX_DICE,
                      parse=_parse_optional_limit, rule=True)
    one_die: str = param(
        "high-shut",
        "when one die may be thrown",
        choices=ONE_DIE_RULES,
        rule=True,
    )
    one_die_forced: bool = param(
        False, "when one die is allowed it must be used (on/off)", parse=_parse_bool, rule=True
    )
    max_tiles_per_throw: int | None = param(
        None,
        "most tiles one throw may shut (none or 2)",
        choices=MAX_TILES_CHOICES,
        parse=_parse_max_tiles,
        rule=True,
    )
    scoring: str = param("sum", "how open tiles score", choices=SCORINGS, rule=True)
    match: str = param("round", "match format", choices=MATCHES, rule=True)
    limit: int | None = param(
        None,
        "score limit for drop-out (default 45) and tournament (default 100)",
        minimum=1,
        maximum=MAX_NUMBER,
        parse=_parse_optional_limit,
        rule=True,
    )
    stake: float = param(0.0, "stake each player pays into the pool per round", minimum=0, maximum=MAX_NUMBER,
                         parse=_parse_float,
                         rule=True)

    def __post_init__(self) -> None:
        if self.dice is None:
            object.__setattr__(self, "dice", least_dice(self.tiles))
        refusal = rules_refusal(self)
        if refusal:
            raise SettingsError(refusal)
        if self.match in DEFAULT_LIMITS and self.limit is None:
            object.__setattr__(self, "limit", DEFAULT_LIMITS[self.match])

    @property
    def cumulative(self) -> bool:
        """Scores add up over the rounds towards ``limit`` (drop-out and tournament)."""
        return self.match in DEFAULT_LIMITS

    @property
    def tile_numbers(self) -> tuple[int, ...]:
        """The tile labels, 1..N."""
        return tuple(range(1, self.tiles + 1))


def most_dice(tiles: int) -> int:
    """The most dice a set of ``tiles`` tiles is played with (6 up to 36 tiles, 9 up to 54)."""
    return next(dice for top, dice in DICE_LIMITS if tiles <= top)


def least_dice(tiles: int) -> int:
    """The fewest dice a set of ``tiles`` tiles is played with (6 x dice must reach the highest tile)."""
    return max(MIN_DICE, -(-tiles // 6))


def rules_refusal(rules: Rules) -> str | None:
    """Why these rule settings do not make a game the rules define, in one line; None when they do."""
    n, d = rules.tiles, rules.dice
    if d > most_dice(n):
        return (f"--dice {d} with --tiles {n}: at most {most_dice(n)} dice with up to "
                f"{next(top for top, dice in DICE_LIMITS if n <= top)} tiles (a double-18 domino set gives 6, "
                "a 54-card deck 9)")
    if 6 * d < n:
        return f"--tiles {n} needs at least {least_dice(n)} dice (6 x dice must reach tile {n}), not --dice {d}"
    if rules.scoring == "digits" and n > DIGITS_MAX_TILES:
        return (f"--scoring digits is defined up to {DIGITS_MAX_TILES} tiles, not {n} "
                "(the score would have dozens of digits); use --scoring sum")
    if rules.limit is not None and rules.match not in DEFAULT_LIMITS:
        return (f"--limit {rules.limit} does not apply to --match {rules.match} (it has no score limit); "
                "a limit goes with drop-out or tournament")
    if rules.limit is None and rules.match in DEFAULT_LIMITS and rules.scoring == "digits":
        return (f"--scoring digits with --match {rules.match} needs --limit: the default "
                f"{DEFAULT_LIMITS[rules.match]} is for sum scoring, and one digits score passes it")
    return None


def box_refusal(rules: Rules, what: str, *, dice: bool = False) -> str | None:
    """Why ``what`` (the CAD, the firmware, the kit) cannot be built for these rules; None when it can.

    The box has 9, 10 or 12 tiles; ``dice=True`` also requires the box's two printed dice. Larger
    sets (dominoes or cards as tiles, more dice) are played without the box.
    """
    if rules.tiles not in BOX_TILE_COUNTS:
        counts = ", ".join(str(c) for c in BOX_TILE_COUNTS)
        return (f"--tiles {rules.tiles}: {what} is built for a box of 9, 10 or 12 tiles only (allowed: {counts}); "
                "play larger sets without the box (shutbox play --port none)")
    if dice and rules.dice != BOX_DICE:
        return f"--dice {rules.dice}: {what} prints the box's {BOX_DICE} dice only (allowed: {BOX_DICE})"
    return None


@dataclass(frozen=True)
class Box:
    """Outer size of the box."""

    length_mm: float = param(279.4, "box length (long side), mm", flag="--box-length", minimum=0,
                             exclusive_minimum=True, maximum=MAX_BOX_MM, parse=_parse_float)
    width_mm: float = param(183.7, "box width, mm", flag="--box-width", minimum=0,
                            exclusive_minimum=True, maximum=MAX_BOX_MM, parse=_parse_float)
    height_mm: float = param(54.8, "box height, mm", flag="--box-height", minimum=0,
                             exclusive_minimum=True, maximum=MAX_BOX_MM, parse=_parse_float)
    wall_mm: float = param(1.2, "outer wall thickness, mm", flag="--wall", minimum=1.2, maximum=15,
                           parse=_parse_float)
    felt_mm: float = param(1.5, "thickness of the felt insert the tray is recessed for, mm", flag="--felt",
                           minimum=0.5, maximum=5, parse=_parse_float)


@dataclass(frozen=True)
class Dice:
    """The two dice."""

    size_mm: float = param(19.0, "dice edge length, mm", flag="--dice-size", minimum=8, maximum=40,
                           parse=_parse_float)


@dataclass(frozen=True)
class TileFit:
    """How the sliding tiles fit their rail."""

    clearance_mm: float = param(0.25, "sliding clearance per side, mm", flag="--clearance",
                                minimum=0, exclusive_minimum=True, maximum=1, parse=_parse_float)
    detent_mm: float = param(0.8, "how far a tile's detent bump stands out (at least 2 x clearance + 0.3), mm",
                             flag="--detent", minimum=0.2, maximum=1.5, parse=_parse_float)


@dataclass(frozen=True)
class Printer:
    """The printer the parts must fit."""

    bed: str = param("mk4", "printer bed: preset or WxHxZ mm", flag="--bed", parse=parse_bed)

    @property
    def bed_mm(self) -> tuple[float, float, float]:
        return bed_size(self.bed)


@dataclass(frozen=True)
class Sensors:
    """Tile sensing hardware."""

    kind: str = param("reed", "tile sensors: a reed switch under each lane and a magnet in each tile, a lever "
                      "microswitch under each lane pressed by a cam on its tile, or none", flag="--sensors",
                      choices=SENSOR_KINDS)
    reed_length_mm: float = param(14.0, "reed switch glass body length, mm", flag="--reed-length", minimum=5,
                                  maximum=30, parse=_parse_float)
    reed_diameter_mm: float = param(2.5, "reed switch glass body diameter, mm", flag="--reed-diameter",
                                    minimum=1, maximum=5, parse=_parse_float)
    magnet_diameter_mm: float = param(6.0, "tile magnet (axial disc) diameter, mm", flag="--magnet-diameter",
                                      minimum=2, maximum=10, parse=_parse_float)
    magnet_height_mm: float = param(3.0, "tile magnet thickness, mm", flag="--magnet-height", minimum=1,
                                    maximum=5, parse=_parse_float)
    magnet_slack_mm: float = param(0.5, "magnet pocket over the magnet's diameter (and depth), mm",
                                   flag="--magnet-slack", minimum=0, maximum=1.5, parse=_parse_float)
    magnet_grade: str = param("N35", "tile magnet grade (sintered NdFeB; the least a shop's magnets may be)",
                              flag="--magnet-grade", choices=tuple(MAGNET_GRADES))
    reed_gap_mm: float = param(5.0, "from a seated reed switch's glass up to the magnet of a shut tile, mm (the "
                               "shaft is shaped so the folded switch stops there)", flag="--reed-gap", minimum=3,
                               maximum=12, parse=_parse_float)
    reed_operate_mm: float = param(7.5, "the reed switch's rated operate distance, mm: it closes when a "
                                   "3 x 7 mm NdFeB rod magnet comes this near, end on (a 10-20 AT reed: 7.5-11)",
                                   flag="--reed-operate", minimum=1, maximum=40, parse=_parse_float)
    reed_release_mm: float = param(12.0, "the reed switch's rated release distance, mm: it opens when that magnet "
                                   "is this far away (a 10-20 AT reed: 9-12)", flag="--reed-release", minimum=1,
                                   maximum=60, parse=_parse_float)
    board_length_mm: float = param(51.0, "controller board length (Raspberry Pi Pico: 51), mm",
                                   flag="--board-length", minimum=20, maximum=120, parse=_parse_float)
    board_width_mm: float = param(21.0, "controller board width (Raspberry Pi Pico: 21), mm",
                                  flag="--board-width", minimum=10, maximum=60, parse=_parse_float)
    board_height_mm: float = param(4.0, "controller board height incl. parts on top (PCB + USB socket), mm",
                                   flag="--board-height", minimum=1, maximum=20, parse=_parse_float)
    shift_board_length_mm: float = param(50.0, "the 74HC165 board's length (two DIP-16 end to end on 20 x 8 holes "
                                         "of 2.54 mm perfboard), mm", flag="--shift-board-length", minimum=20,
                                         maximum=100, parse=_parse_float)
    shift_board_width_mm: float = param(20.0, "the 74HC165 board's width, mm", flag="--shift-board-width",
                                        minimum=10, maximum=40, parse=_parse_float)
    shift_board_height_mm: float = param(10.0, "the 74HC165 board's height incl. chips on top and solder joints "
                                         "under it, mm", flag="--shift-board-height", minimum=3, maximum=20,
                                         parse=_parse_float)

    @property
    def magnets(self) -> bool:
        """Whether each tile carries a magnet (for the reed switches; a microswitch is pressed by its tile's cam)."""
        return self.kind == "reed"

    @property
    def lever(self) -> bool:
        """Whether each lane's switch is a lever microswitch."""
        return self.kind == "microswitch"


@dataclass(frozen=True)
class Firmware:
    """The microcontroller that reads the tiles, and how the switches are wired to it."""

    board: str = param("pico", "microcontroller board", flag="--board", choices=BOARDS)
    tile_input: str = param("gpio", "tile switches on their own GPIO each, or on a 74HC165 shift-register chain",
                            flag="--tile-input", choices=TILE_INPUTS)
    pins: str = param("auto", "GPIO numbers, comma separated: one per tile (gpio) or load,clock,data (74hc165); "
                      "auto = consecutive from --first-pin", flag="--pins", parse=parse_pins)
    first_pin: int = param(2, "first GPIO used when --pins is auto", flag="--first-pin", minimum=0,
                           maximum=MAX_GPIO, parse=_parse_int)
    button_pin: int | None = param(22, "GPIO of the optional push button (none for no button)",
                                   flag="--button-pin", parse=_parse_optional_pin)
    pull: str = param("up", "internal pull resistor on tile and button inputs", flag="--pull", choices=PULLS)
    shut_level: str = param("low", "pin level that means a tile is shut (or the button pressed)",
                            flag="--shut-level", choices=LEVELS)
    debounce_ms: int = param(30, "a reading must be stable this long before it counts, ms", flag="--debounce-ms",
                             minimum=1, maximum=1000, parse=_parse_int)
    scan_ms: int = param(5, "time between two scans of the tiles, ms", flag="--scan-ms", minimum=1, maximum=100,
                         parse=_parse_int)


@dataclass(frozen=True)
class Play:
    """How the live scorekeeper (``play``, ``sim``) takes the game."""

    throws: str = param("auto", "whether every throw must be entered before its tiles move: required, or optional "
                        "(the tiles on the box are the moves, its button ends the turn); auto: optional with a box "
                        "attached, required with --port none", choices=THROWS)

    def throws_for(self, boxless: bool) -> str:
        """The throws setting in effect: as chosen; ``auto`` is ``required`` without a box, ``optional`` with one."""
        if self.throws != "auto":
            return self.throws
        return "required" if boxless else "optional"


@dataclass(frozen=True)
class Cad:
    """How the printable parts are modelled and meshed."""

    chord_tolerance_mm: float = param(0.05, "largest distance of a mesh from the true surface, mm",
                                      flag="--chord-tolerance", minimum=0.005, maximum=0.5, parse=_parse_float)
    angular_tolerance_deg: float = param(15.0, "largest angle between neighbouring mesh facets on a curve, degrees",
                                         flag="--angular-tolerance", minimum=1, maximum=45, parse=_parse_float)
    engrave_depth_mm: float = param(0.6, "depth of the engraved numbers, mm", flag="--engrave-depth",
                                    minimum=0.4, maximum=2, parse=_parse_float)
    joint_clearance_mm: float = param(0.15, "clearance per side in the joints of a split box, mm",
                                      flag="--joint-clearance", minimum=0.05, maximum=0.5, parse=_parse_float)
    cache_limit_mb: int = param(1000, "largest size of the CAD part cache (least recently used parts go first), MB",
                                flag="--cache-limit", minimum=10, maximum=1_000_000, parse=_parse_int)


@dataclass(frozen=True)
class Kit:
    """Everything a user chooses: rules plus the physical kit."""

    rules: Rules = field(default_factory=Rules)
    box: Box = field(default_factory=Box)
    dice: Dice = field(default_factory=Dice)
    tile_fit: TileFit = field(default_factory=TileFit)
    printer: Printer = field(default_factory=Printer)
    sensors: Sensors = field(default_factory=Sensors)
    firmware: Firmware = field(default_factory=Firmware)
    play: Play = field(default_factory=Play)
    cad: Cad = field(default_factory=Cad)


#: Section name -> the dataclass holding that section's settings.
SECTIONS: dict[str, Any] = {f.name: f.default_factory for f in dataclasses.fields(Kit)}


@dataclass(frozen=True)
class Setting:
    """One declared setting, as seen by the CLI and the TOML reader."""

    section: str
    name: str
    default: Any
    help: str
    flag: str
    choices: tuple[Any, ...] | None
    minimum: float | None
    maximum: float | None
    exclusive_minimum: bool
    parse: Callable[[Any], Any] | None
    rule: bool

    @property
    def key(self) -> str:
        return f"{self.section}.{self.name}"

    @property
    def dest(self) -> str:
        return f"{self.section}__{self.name}"

    @property
    def is_switch(self) -> bool:
        """An on/off setting (its flag may be given alone to mean on)."""
        return self.parse is _parse_bool

    def allowed(self) -> str:
        if self.parse is parse_bed:
            return f"a preset ({', '.join(BED_PRESETS)}) or WxHxZ in mm, e.g. 250x210x220"
        if self.choices is not None:
            return ", ".join(show_value(c) for c in self.choices)
        if self.is_switch:
            return "on, off"
        if self.parse is parse_pins:
            return "auto or distinct GPIO numbers separated by commas, e.g. 2,3,4"
        if self.parse is _parse_optional_pin:
            return f"none or a GPIO number from 0 to {MAX_GPIO}"
        return range_text(self.parse in (_parse_int, _parse_optional_limit), self.minimum, self.maximum,
                          self.exclusive_minimum)

    def coerce(self, value: Any) -> Any:
        """Turn a raw value (CLI string or TOML value) into a valid one, or raise ValueError."""
        try:
            parsed = self.parse(value) if self.parse else value
        except ValueError as exc:
            detail = str(exc)
            raise ValueError(detail if detail.startswith("allowed") else f"allowed: {self.allowed()}") from None
        if self.parse is None and not isinstance(parsed, str):
            raise ValueError(f"allowed: {self.allowed()}")
        if self.choices is not None and parsed not in self.choices:
            raise ValueError(f"allowed: {self.allowed()}{_did_you_mean(parsed, self.choices)}")
        if isinstance(parsed, (int, float)) and not isinstance(parsed, bool):
            low, high = self.minimum, self.maximum
            too_low = low is not None and (parsed <= low if self.exclusive_minimum else parsed < low)
            if too_low or (high is not None and parsed > high):
                raise ValueError(f"allowed: {self.allowed()}")
        return parsed


def show_value(value: Any) -> str:
    """A setting value as a user writes it: ``none``, ``on``/``off``, or the value itself."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def settings() -> Iterator[Setting]:
    """Every declared setting, in section order."""
    for section, cls in SECTIONS.items():
        for f in dataclasses.fields(cls):
            m = f.metadata
            yield Setting(
                section=section,
                name=f.name,
                default=f.default,
                help=m["help"],
                flag=m["flag"] or "--" + f.name.replace("_", "-"),
                choices=m["choices"],
                minimum=m["minimum"],
                maximum=m["maximum"],
                exclusive_minimum=m["exclusive_minimum"],
                parse=m["parse"],
                rule=m["rule"],
            )


SETTINGS: tuple[Setting, ...] = tuple(settings())
_BY_KEY = {s.key: s for s in SETTINGS}


def _did_you_mean(value: Any, choices: Sequence[Any]) -> str:
    """``; did you mean `drop-out`?`` for a near miss of a choice (``dropout``), else nothing."""
    if not isinstance(value, str):
        return ""
    close = nearest(value.lower()[:100], [show_value(c) for c in choices], prefix=False)
    return f"; did you mean `{close}`?" if close else ""


def suggest_key(key: str) -> str | None:
    """The valid setting key closest to an unknown ``key``."""
    close = nearest(key, [*_BY_KEY, *SECTIONS], cutoff=0.5, prefix=False)
    if close:
        return close
    by_name = {s.name: s.key for s in SETTINGS}
    close = nearest(key.rsplit(".", 1)[-1], by_name, cutoff=0.5, prefix=False)
    return by_name[close] if close else None


def build_kit(values: Mapping[str, Any], sources: Mapping[str, str] | None = None) -> Kit:
    """Build a validated :class:`Kit` from ``{"section.name": raw value}``.

    ``sources`` names where each value came from (a flag or a file) for error messages.
    """
    sources = sources or {}
    per_section: dict[str, dict[str, Any]] = {name: {} for name in SECTIONS}
    for key, raw in values.items():
        setting = _BY_KEY.get(key)
        if setting is None:
            hint = suggest_key(key[:100])
            where = sources.get(key, "settings")
            raise SettingsError(
                f"{where}: unknown setting '{shown(key)}'" + (f"; did you mean '{hint}'?" if hint else "")
            )
        try:
            per_section[setting.section][setting.name] = setting.coerce(raw)
        except ValueError as exc:
            where = sources.get(key, key)
            raise SettingsError(f"{where} {_show_raw(raw)}: invalid value; {exc}") from None
    sections = {name: SECTIONS[name](**vals) for name, vals in per_section.items()}
    return Kit(**sections)


def _show_raw(raw: Any) -> str:
    """A refused value as the user wrote it: a TOML boolean as ``true``/``false`` (flags give text)."""
    if isinstance(raw, bool):
        return "true" if raw else "false"
    if isinstance(raw, str):
        return quoted(raw) if raw.strip() != raw or not raw or not raw.isprintable() else shown(raw)
    return shown(show_value(raw)) if isinstance(raw, (bool, int, float)) or raw is None else shown(raw)


def kit_as_dict(kit: Kit) -> dict[str, dict[str, Any]]:
    """The kit as nested plain values (for TOML and JSON)."""
    out: dict[str, dict[str, Any]] = {}
    for section in SECTIONS:
        obj = getattr(kit, section)
        out[section] = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    return out


def kit_as_flat(kit: Kit) -> dict[str, Any]:
    """The kit as ``{"section.name": value}``."""
    return {f"{s}.{k}": v for s, vals in kit_as_dict(kit).items() for k, v in vals.items()}
