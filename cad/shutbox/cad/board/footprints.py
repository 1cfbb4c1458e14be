"""The board's footprints, drawn in code (no KiCad library is needed): pads, courtyard and what the BOM calls each part.

Offsets are in the box frame's orientation (x along the box, y towards its back); :mod:`.board` turns them into
KiCad's frame (y down). Every footprint sits on the top side (F.Cu), which faces up into the box.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from shutbox.cad.geometry.boardfit import PICO_SIZE

#: Through-hole wire pads for a switch's leads or wires: 2.54 mm apart, 1.0 mm holes (a 0.5 mm lead or AWG 24-26).
WIRE_PITCH, WIRE_DRILL, WIRE_PAD = 2.54, 1.0, 1.8
#: Raspberry Pi Pico: 2 x 20 castellated edge pads, 2.54 mm pitch, 17.78 mm between the rows' holes.
PICO_LENGTH, PICO_WIDTH = PICO_SIZE
PICO_PITCH, PICO_ROW = 2.54, 8.89
PICO_PAD = (1.6, 2.5)  # along the edge, across it: from the board's edge 2.5 mm in
#: Inside the Pico's pad rows its underside carries test pads: no copper on the top side there.
PICO_INNER = 6.5
#: SOIC-16 (3.9 x 9.9 mm body): pads 1.95 x 0.6 mm, 1.27 mm pitch, rows 4.95 mm apart.
SOIC_PITCH, SOIC_ROW, SOIC_PAD = 1.27, 2.475, (0.6, 1.95)
#: DIP-16: 2.54 mm pitch, rows 7.62 mm apart, 0.8 mm holes.
DIP_PITCH, DIP_ROW, DIP_PAD, DIP_DRILL = 2.54, 3.81, 1.6, 0.8
#: 0805 resistors and capacitors.
CHIP_0805 = (0.95, (1.0, 1.4))
COURTYARD = 0.25  # courtyard margin round the pads


@dataclass(frozen=True)
class Pad:
    """One pad: name, kind (``thru_hole``, ``smd``, ``np_thru_hole``), shape, offset and size (box frame), drill."""

    name: str
    kind: str
    shape: str
    dx: float
    dy: float
    w: float
    h: float
    drill: float = 0.0
    net: str | None = None

    @property
    def copper(self) -> tuple[str, ...]:
        """The copper layers it is on."""
        if self.kind == "thru_hole":
            return ("F.Cu", "B.Cu")
        return ("F.Cu",) if self.kind == "smd" else ()


@dataclass(frozen=True)
class Footprint:
    """A placed part: reference, library name, value and BOM description, where (box frame), its pads."""

    ref: str
    name: str
    value: str
    description: str
    x: float
    y: float
    pads: tuple[Pad, ...]
    attr: str = "smd"  #: ``smd``, ``through_hole``, or ``hole`` (a bare hole: in no BOM or placement file)
    keepout: tuple[float, float, float, float] | None = None  #: local x0, y0, x1, y1 kept free of top copper
    fields: dict[str, str] = field(default_factory=dict)

    def with_nets(self, nets: dict[str, str | None]) -> Footprint:
        """The same part with its pads' nets set (pad name -> net; pads not named keep theirs)."""
        return replace(self, pads=tuple(replace(p, net=nets.get(p.name, p.net)) for p in self.pads))

    @property
    def courtyard(self) -> tuple[float, float, float, float]:
        """Local x0, y0, x1, y1 of the courtyard: the pads (and any keep-out) grown by ``COURTYARD``."""
        xs = [p.dx - p.w / 2 for p in self.pads] + [p.dx + p.w / 2 for p in self.pads]
        ys = [p.dy - p.h / 2 for p in self.pads] + [p.dy + p.h / 2 for p in self.pads]
        if self.keepout is not None:
            xs += [self.keepout[0], self.keepout[2]]
            ys += [self.keepout[1], self.keepout[3]]
        return (min(xs) - COURTYARD, min(ys) - COURTYARD, max(xs) + COURTYARD, max(ys) + COURTYARD)

    def pad(self, name: str) -> Pad:
        return next(p for p in self.pads if p.name == name)


def _wire_pads(names: tuple[str, ...]) -> tuple[Pad, ...]:
    first = -(len(names) - 1) / 2 * WIRE_PITCH
    return tuple(Pad(n, "thru_hole", "rect" if i == 0 else "circle", first + i * WIRE_PITCH, 0.0, WIRE_PAD, WIRE_PAD,
                     WIRE_DRILL) for i, n in enumerate(names))


def reed_pads(ref: str, tile: int, x: float, y: float) -> Footprint:
    """A reed switch's two wire pads under its shaft: pad 1 the tile's input, pad 2 the other side."""
    return Footprint(ref, "ShutBox:Reed_Wires_P2.54", "reed switch", f"tile {tile} reed switch (wired to these pads)",
                     x, y, _wire_pads(("1", "2")), "through_hole", fields={"Tile": str(tile)})


def microswitch_pads(ref: str, tile: int, x: float, y: float) -> Footprint:
    """A lever microswitch's three wire pads under its lane: C (the tile's input), NO and NC."""
    return Footprint(ref, "ShutBox:Microswitch_Wires_P2.54", "microswitch",
                     f"tile {tile} microswitch (its C, NO, NC tabs wired to these pads)", x, y,
                     _wire_pads(("C", "NO", "NC")), "through_hole", fields={"Tile": str(tile)})


def wire_pads(ref: str, value: str, description: str, x: float, y: float) -> Footprint:
    """Two wire pads (the end-turn button's wires)."""
    return Footprint(ref, "ShutBox:Wires_P2.54", value, description, x, y, _wire_pads(("1", "2")), "through_hole")


def pico_pad_offset(pin: int) -> tuple[float, float]:
    """Box-frame offset of the Pico's header pin ``pin`` (1..40) from its centre, USB end towards +x: pins 1-20
    along the +y edge from the USB end, 21-40 back along the -y edge."""
    half = (20 - 1) / 2 * PICO_PITCH
    if pin <= 20:
        return half - (pin - 1) * PICO_PITCH, PICO_WIDTH / 2 - PICO_PAD[1] / 2
    return -half + (pin - 21) * PICO_PITCH, -(PICO_WIDTH / 2 - PICO_PAD[1] / 2)


def pico(ref: str, title: str, x: float, y: float) -> Footprint:
    """The Raspberry Pi Pico soldered flat by its castellated edge pads (pad names are header pin numbers)."""
    w, h = PICO_PAD
    pads = tuple(Pad(str(pin), "smd", "rect", *pico_pad_offset(pin), w, h) for pin in range(1, 41))
    half_l, half_w = PICO_LENGTH / 2, PICO_WIDTH / 2
    return Footprint(ref, "ShutBox:RaspberryPi_Pico_Castellated", "Raspberry Pi Pico",
                     f"{title}, soldered flat by its castellated pads", x, y, pads, "smd",
                     keepout=(-half_l, -half_w, half_l, half_w))


def soic16(ref: str, x: float, y: float) -> Footprint:
    """A 74HC165 in SOIC-16, long side along x: pins 1-8 along -y from the left, 9-16 back along +y."""
    w, h = SOIC_PAD
    pads = []
    for pin in range(1, 17):
        k = (pin - 1) % 8
        dx = -3.5 * SOIC_PITCH + k * SOIC_PITCH if pin <= 8 else 3.5 * SOIC_PITCH - k * SOIC_PITCH
        pads.append(Pad(str(pin), "smd", "rect", dx, -SOIC_ROW if pin <= 8 else SOIC_ROW, w, h))
    return Footprint(ref, "ShutBox:SOIC-16_3.9x9.9mm_P1.27mm", "74HC165", "74HC165 shift register, SOIC-16",
                     x, y, tuple(pads), "smd")


def dip16(ref: str, x: float, y: float) -> Footprint:
    """A 74HC165 in DIP-16 (through hole: both sides reach every pin), long side along x: pins 1-8 along -y from
    the left, 9-16 back along +y."""
    pads = []
    for pin in range(1, 17):
        k = (pin - 1) % 8
        dx = -3.5 * DIP_PITCH + k * DIP_PITCH if pin <= 8 else 3.5 * DIP_PITCH - k * DIP_PITCH
        pads.append(Pad(str(pin), "thru_hole", "rect" if pin == 1 else "circle", dx,
                        -DIP_ROW if pin <= 8 else DIP_ROW, DIP_PAD, DIP_PAD, DIP_DRILL))
    return Footprint(ref, "ShutBox:DIP-16_W7.62mm", "74HC165", "74HC165 shift register, DIP-16 (or in a socket)",
                     x, y, tuple(pads), "through_hole")


def chip_0805(ref: str, value: str, description: str, x: float, y: float, along_y: bool = False) -> Footprint:
    """A 0805 resistor or capacitor: pad 1 at -x (or -y), pad 2 at +x (+y)."""
    off, (w, h) = CHIP_0805
    if along_y:
        pads = (Pad("1", "smd", "rect", 0.0, -off, h, w), Pad("2", "smd", "rect", 0.0, off, h, w))
    else:
        pads = (Pad("1", "smd", "rect", -off, 0.0, w, h), Pad("2", "smd", "rect", off, 0.0, w, h))
    kind = "R" if ref.startswith("R") else "C"
    name = f"ShutBox:{'R' if kind == 'R' else 'C'}_0805_2012Metric"
    return Footprint(ref, name, value, description, x, y, pads, "smd")


def hole(ref: str, diameter: float, x: float, y: float, keep: float, description: str) -> Footprint:
    """A plain (unplated) hole of ``diameter``; ``keep``: radius kept free of copper round it (a screw head)."""
    pad = Pad("", "np_thru_hole", "circle", 0.0, 0.0, diameter, diameter, diameter)
    return Footprint(ref, f"ShutBox:Hole_{diameter:g}mm", f"{diameter:g} mm hole", description, x, y, (pad,), "hole",
                     keepout=(-keep, -keep, keep, keep))
