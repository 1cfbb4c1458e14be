"""What a smart die says: the bytes of one GoDice or Pixels notification, read as one :data:`DieEvent`.

Both parsers take any bytes (a notification is untrusted) and never raise: what they do not know is
:class:`Unknown`, so no throw is ever made up from noise.

GoDice (Particula), over the Nordic UART service (notify characteristic :data:`GODICE.notify`):

==========================  ================================================================
``R``                       rolling
``S`` x y z                 at rest on a face (three signed bytes: the die's gravity vector)
``TS`` x y z                at rest tilted: leaning on something, no face up (roll it again)
``MS`` x y z / ``FS`` x y z moved and stable / fake stable: moved or picked up, not rolled
``Bat`` level               the battery in percent (the answer to ``[3]``, :data:`GODICE.battery_request`)
==========================  ================================================================

The face up is the nearest of the six axes in :data:`GODICE_AXES` to (x, y, z).

Pixels (Systemic Games), service :data:`PIXELS.service`: the first byte is the message's kind.
``[3, state, face index]`` is the roll state (face index 0-based): :data:`PIXELS_ROLLING` (and
``handling``, 2: picked up), :data:`PIXELS_CROOKED`, and on a face, :data:`PIXELS_ON_FACE` (5 in today's
firmware; 1 in older firmware, "rolled"). ``[34, level, state]`` is the battery; ``[2, ...]``
("I am a die", the answer to ``[1]``) carries the roll state, face and battery at bytes 18 to 20.
"""

from __future__ import annotations

from dataclasses import dataclass

#: A six-sided die's faces.
FACES = (1, 2, 3, 4, 5, 6)


@dataclass(frozen=True)
class Protocol:
    """How one make of smart die is found and spoken to."""

    name: str  #: ``godice`` or ``pixels``
    label: str  #: the make, as players call it
    service: str  #: the GATT service the die advertises
    notify: str  #: the characteristic it notifies on
    write: str  #: the characteristic it is written on
    battery_request: bytes  #: written once connected: the die answers with its battery (and state)
    name_prefix: str  #: the advertised names of these dice start so


GODICE = Protocol("godice", "GoDice", "6e400001-b5a3-f393-e0a9-e50e24dcca9e",
                  "6e400003-b5a3-f393-e0a9-e50e24dcca9e", "6e400002-b5a3-f393-e0a9-e50e24dcca9e", bytes([3]),
                  "GoDice")
PIXELS = Protocol("pixels", "Pixels", "a6b90001-7a5a-43f2-a962-350c8edc9b5b",
                  "a6b90002-7a5a-43f2-a962-350c8edc9b5b", "a6b90003-7a5a-43f2-a962-350c8edc9b5b", bytes([1]),
                  "Pixel")
#: The protocols by name (a SOURCE's and a replay line's ``protocol``).
PROTOCOLS = {p.name: p for p in (GODICE, PIXELS)}

#: GoDice: the gravity vector of each face up.
GODICE_AXES: dict[int, tuple[int, int, int]] = {1: (-64, 0, 0), 2: (0, 0, 64), 3: (0, 64, 0), 4: (0, -64, 0),
                                                5: (0, 0, -64), 6: (64, 0, 0)}
#: Pixels: message kinds and roll states.
PIXELS_I_AM_A_DIE, PIXELS_ROLL_STATE, PIXELS_BATTERY = 2, 3, 34
PIXELS_ROLLED_OLD, PIXELS_HANDLING, PIXELS_ROLLING, PIXELS_CROOKED, PIXELS_ON_FACE = 1, 2, 3, 4, 5
#: Where "I am a die" holds the roll state, the face index and the battery level.
PIXELS_IAM_STATE = 18


@dataclass(frozen=True)
class Rolling:
    """The die is rolling (or being shaken)."""


@dataclass(frozen=True)
class Landed:
    """At rest on a face: ``face`` is up."""

    face: int


@dataclass(frozen=True)
class Tilted:
    """At rest, but on no face (leaning, cocked): the throw is unsure until it is rolled again."""


@dataclass(frozen=True)
class Moved:
    """Moved or picked up without rolling: no throw."""


@dataclass(frozen=True)
class Battery:
    """The battery's charge in percent (0 to 100)."""

    percent: int


@dataclass(frozen=True)
class Unknown:
    """A message this kit does not read (another kind, or bytes that make no sense); ignored."""


DieEvent = Rolling | Landed | Tilted | Moved | Battery | Unknown


def _signed(byte: int) -> int:
    return byte - 256 if byte > 127 else byte


def godice_face(x: int, y: int, z: int) -> int:
    """The face up for a GoDice gravity vector (each -128 to 127): the nearest axis."""
    return min(FACES, key=lambda f: (GODICE_AXES[f][0] - x) ** 2 + (GODICE_AXES[f][1] - y) ** 2
               + (GODICE_AXES[f][2] - z) ** 2)


def _xyz(data: bytes, at: int) -> tuple[int, int, int] | None:
    if len(data) != at + 3:
        return None
    return _signed(data[at]), _signed(data[at + 1]), _signed(data[at + 2])


def parse_godice(data: bytes) -> DieEvent:
    """One GoDice notification."""
    if data == b"R":
        return Rolling()
    if data[:3] == b"Bat" and len(data) == 4:
        return Battery(data[3]) if data[3] <= 100 else Unknown()
    if data[:1] == b"S" and (xyz := _xyz(data, 1)) is not None:
        return Landed(godice_face(*xyz)) if any(xyz) else Unknown()
    if data[:2] == b"TS" and _xyz(data, 2) is not None:
        return Tilted()
    if data[:2] in (b"MS", b"FS") and _xyz(data, 2) is not None:
        return Moved()
    return Unknown()


def _pixels_state(state: int, index: int) -> DieEvent:
    if state in (PIXELS_ON_FACE, PIXELS_ROLLED_OLD):
        return Landed(index + 1) if 0 <= index < len(FACES) else Unknown()
    if state == PIXELS_ROLLING:
        return Rolling()
    if state == PIXELS_HANDLING:
        return Moved()
    if state == PIXELS_CROOKED:
        return Tilted()
    return Unknown()


def parse_pixels(data: bytes) -> DieEvent:
    """One Pixels notification (a message of a kind this kit does not read is :class:`Unknown`)."""
    if len(data) == 3 and data[0] == PIXELS_ROLL_STATE:
        return _pixels_state(data[1], data[2])
    if len(data) == 3 and data[0] == PIXELS_BATTERY:
        return Battery(data[1]) if data[1] <= 100 else Unknown()
    return Unknown()


def pixels_hello(data: bytes) -> tuple[DieEvent, DieEvent] | None:
    """A Pixels "I am a die" message: its battery and its roll state (None for anything else)."""
    at = PIXELS_IAM_STATE
    if len(data) < at + 3 or data[0] != PIXELS_I_AM_A_DIE:
        return None
    battery: DieEvent = Battery(data[at + 2]) if data[at + 2] <= 100 else Unknown()
    return battery, _pixels_state(data[at], data[at + 1])


def parse(protocol: str, data: bytes) -> tuple[DieEvent, ...]:
    """Every event in one notification of ``protocol`` (``godice`` or ``pixels``)."""
    if protocol == GODICE.name:
        return (parse_godice(data),)
    hello = pixels_hello(data)
    return hello if hello is not None else (parse_pixels(data),)
