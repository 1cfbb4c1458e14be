"""Every dimension and position of the kit, computed from the Kit before any geometry is built.

Box frame: x along the long side (0..length), y from the player's side (0) to the back (width),
z up from the table. The tiles run in lanes along y in a deck at the back; the tray for the dice
is in front of it. :func:`layout` refuses combinations that cannot work, with one clear line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from shutbox.base.errors import ShutboxError
from shutbox.cad.geometry.microswitch import check_layout, tabs_at
from shutbox.cad.geometry.printable import SQRT2
from shutbox.kit.model import Kit

# Fixed design figures (mm). Everything a user may want to change is a setting in the kit model.
TILE_LENGTH = 36.0  # along the lane
TILE_THICKNESS = 6.0  # tile top is flush with the box top (thin: every millimetre is 10 g of the kit)
TRAVEL = 22.0  # open <-> shut
FLARE = 1.2  # dovetail flare at the tile's foot (45 degrees)
RIB_MIN = 2.4  # narrowest rib between two lanes, at the lane floor
TILE_MIN_WIDTH = 14.0  # room for the number "12", the detent arm and the magnet
FLOOR = 0.8  # tray floor under the felt (four 0.2 mm layers: 24 g and 0.2 h less than 1.2 mm on Prusa's preset)
FELT_MARGIN = 2.0  # ledge around the felt recess
FELT_SLACK = 0.5  # cut the felt this much smaller than its recess
CORNER_RADIUS = 6.0  # outer vertical edges
TRAY_RADIUS = 3.0  # inner corners of the tray
ARM_THICKNESS = 1.6  # detent spring arm, at the top
SLIT = 1.0  # slit freeing the detent arm (it must take the whole bump when the tile leans on that side)
ARM_LENGTH = 22.0
BUMP_BASE = 3.0  # detent bump length along the lane
BUMP_FROM_BACK = 3.0  # bump centre, from the tile's back end
MAGNET_AT = 24.0  # magnet centre, from the tile's front end
SCOOP_DEPTH = 1.2  # finger dimple on the tile top
FLOOR_SKIN = 1.0  # least plastic between a reed switch shaft's ceiling and the lane floor
# A glass reed switch's leads, folded as the build guide tells: the top lead runs straight out of the seal for
# REED_BEND (the pliers' jaw), then turns down in a U whose return leg lies along the glass; the switch is pushed
# up its shaft until the U stops against the shaft's ceiling.
REED_LEAD = 0.5  # lead diameter of a typical glass reed switch
REED_BEND = 2.0  # straight lead between the glass seal and the bend
REED_LEAD_LENGTH = 20.0  # each lead's length out of the glass as bought (a 14 mm reed is about 52 mm overall)
#: The reference magnet of the reed's rated distances: an NdFeB rod, diameter x length (mm), magnetised along it.
REFERENCE_MAGNET = (3.0, 7.0)
SHAFT_PLAY = 0.3  # room round the glass and its folded lead in the shaft, per side
SHIFT_GAP = 4.0  # between the 74HC165 board and the controller board in the bay (the wires between them)
SHIFT_RAIL = 2.0  # width of the two rails the 74HC165 board rests on (taped down), on the cover
BOARD_INSET = 3.0  # the controller board from the cover's flange (or from the 74HC165 board's gap)
SHIFT_INSET = 3.0  # the 74HC165 board from the cover's flange: its end stop clear of the flange slab over the seat
GROOVE = 4.0  # wire channel width (and straight height)
COVER_THICKNESS = 2.0
COVER_FLANGE_X = 10.0  # cover flange at each end of the cavity, holds the screws
COVER_FLANGE_Y = 4.5
COVER_GAP = 0.2  # cover in its rebate, per side
FLANGE_SLAB = 2.0  # the slab over each end flange of the cover (a bridge across the seat) the screws go into
# A tooth of the seat's side wall under each corner where a flange slab's free edge meets it: a round post centred on
# that corner, in a round notch of the cover's edge. PrusaSlicer rounds a slab's inner perimeters where they turn at
# that corner and supports whatever of the turn is over air, even inside a bridge; the tooth puts plastic under it.
# Round, so the notch keeps its distance from the plastic round the cover screw's countersink.
SEAT_TOOTH = 1.8  # radius (mm): 1.6 still left 0.09 g of support; the notch keeps 0.2 mm clear of that plastic
MEMBRANE = 0.6  # plastic a screw pierces at the foot of a pilot hole that starts over a bridge
BAY_CORNER = 3.0  # the cover's seat this far in from the end wall: a whole wall round the box's rounded corner
STANDOFF = 3.0  # board standoff height on the cover
PIN_DIAMETER = 1.8  # pins through the board's mounting holes (Pico: 2.1 mm holes)
PIN_TIP = 2.5  # how far the pins stand above the standoffs
COVER_HEIGHT = COVER_THICKNESS + STANDOFF + PIN_TIP  # the cover as printed, pins included
USB_WIDTH = 12.0  # opening for a micro-USB plug's overmould
USB_MARGIN = 4.0
# The one fastener: M3 countersunk screws driven into printed pilot holes (they form their own thread), with
# at least WALL_MIN of plastic around every hole over its whole depth.
SCREW_NAME = "M3 countersunk screw, ISO 10642 / DIN 7991 (forms its thread in the printed 2.5 mm pilot)"
SCREW_PILOT = 2.5  # pilot hole for an M3 screw forming its thread in PLA/PETG
SCREW_CLEAR = 3.4
SCREW_HEAD = 6.8  # 90 degree countersink (ISO 10642 head: 6.72 mm at most)
WALL_MIN = 1.6  # plastic around every screw hole, and the countersink's margin in its part
BOSS_RADIUS = SCREW_PILOT / 2 + WALL_MIN + 0.15  # plastic column round a pilot hole
SCREW_EDGE = SCREW_HEAD / 2 + WALL_MIN  # a screw hole's centre from the edge of the part it holds
COVER_SCREW = 12.0  # cover screw length (countersunk: overall)
USB_CLEAR = 3.0  # plastic between the USB opening and any screw hole
# Captive tiles: a sill across each lane mouth stops a tile at "shut"; a gate screwed into a pocket at the
# back of the lanes stops it at "open". Tiles go in from the back before the gate is fitted.
SILL_HEIGHT = 3.0  # sill top over the lane floor
SILL_DEPTH = 2.5  # sill thickness (y), in front of a shut tile
GATE_DEPTH = 10.6  # gate (y), from the lanes' back ends to the box's back face
GATE_BELOW = 1.2  # gate pocket floor under the lane floor
GATE_GAP = 0.2  # gate in its pocket, per side
GATE_SCREW = 16.0  # gate screw length
PILOT_EXTRA = 1.0  # pilot hole deeper than the screw reaches
DETENT_MARGIN = 0.3  # detent engagement left when the tile leans away from its bump
# End-turn button: a 12 mm panel push button in the box's right end wall, into the hollow under the deck.
BUTTON_PART = "12 mm panel push button"  # what the parts list names it by (its contact follows the wiring)
BUTTON_HOLE = 12.2  # hole for the M12 thread (teardrop-topped, so it prints without support)
BUTTON_BODY = 22.0  # room behind the panel for the body and its terminals
BUTTON_NUT = 16.0  # nut across its flats-ish: room round the hole inside
BUTTON_PANEL = 3.0  # wall thickness round the button
# Lean deck: an open-bottomed hollow under the deck, split along x by a spine under the reed switches; its
# flat roofs bridge along y (front wall to spine, spine to the back wall). The spine is a row of beams (arches with
# microswitches) between the tubes round the reed shafts.
HOLLOW_RIB = 1.2  # the spine's thickness (and the plinth's walls round the wire trunk)
BRIDGE_SPAN = 45.0  # longest flat ceiling printed as a bridge, between supports on two opposite sides
DECK_SKIN = 0.8  # plastic between the hollow's roof and the floor above it (under the engraved numbers too); a cross
# rib under every lane's centre line keeps the lane floor's free span short
SPINE_BAND = 2.0  # solid spine left over the top of its arches (microswitch kits), under the roof it holds up
BEAM_DEPTH = 3.0  # with reed switches or none: spine and cross ribs are beams this deep under the roof, each
# bridged from post to post (at most BRIDGE_SPAN) instead of arches rising from the bed; the gate wall half as deep
TUBE_WALL = 1.2  # tube round a reed switch shaft in the spine (the columns its beams span between)
DIE_FILLET_RATIO = 0.105  # edge radius / die size (2 mm on a 19 mm die)
PIP_RATIO = 0.09  # pip radius / die size
#: The die's face printed on the bed. With 1 down the sliced die is the most even: the slicer fills small
#: holes on the bed face a little (6 down put the printed centre of mass 0.027 mm low, 1 down 0.004 mm).
BED_FACE = 1
JOINT_DEPTH = 6.0  # dovetail key length across a split
JOINT_ROOT = 8.0  # dovetail width where it leaves the piece
JOINT_ANGLE = 15.0  # dovetail flank angle, degrees
# A cut along the box at the tray's back wall (a bed too shallow for the box): the tray pieces carry tabs at
# floor level that reach under the deck's front wall into a slot in a block behind it; an M3 screw from
# below through each tab's countersink into the block holds the tray to the deck.
TAB_WIDTH = 12.0
TAB_REACH = 11.0  # behind the deck's front wall
TAB_THICKNESS = 4.0  # holds the screw head's 3.4 mm countersink
TAB_SCREW = 10.0  # screw length (head included, as countersunk screws are measured)
TAB_BLOCK = 14.0  # height of the block round the slot and the pilot hole
# The camera over the tray (cad/shutbox/cad/geometry/mount.py holds it). The stated camera: a common 720p USB webcam,
# its picture's long side along the box's length, looking straight down from over the tray's middle.
CAMERA_HFOV = 70.0  # degrees across the picture's long side (a phone's main camera sees about as much or more)
CAMERA_IMAGE = (1280, 720)  # its picture, px
CAMERA_ROOM = 1.05  # the tray framed with this much room round it (5 %: a camera aimed a little off still sees it)


def camera_vfov(hfov: float, image: tuple[int, int]) -> float:
    """Degrees across the picture's short side, for a rectilinear lens ``hfov`` degrees across the long side."""
    if not 1.0 <= hfov <= 170.0:
        raise ValueError(f"a field of view of {hfov:g} degrees; allowed: 1 to 170")
    w, h = image
    if w <= 0 or h <= 0 or h > w:
        raise ValueError(f"a picture of {w} x {h} px; give its long side first, both above 0")
    return math.degrees(2 * math.atan(math.tan(math.radians(hfov) / 2) * h / w))


def framing_height(span: tuple[float, float], hfov: float, image: tuple[int, int], room: float) -> float:
    """How high above a ``span`` (x, y mm) a camera looking straight down at its middle must be to see all of it,
    with ``room`` to spare (1.05: 5 %), the picture's long side along x."""
    if room < 1.0:
        raise ValueError(f"room {room:g}: the tray must fit in the picture; allowed: 1 or more")
    if min(span) <= 0:
        raise ValueError(f"a tray of {span[0]:g} x {span[1]:g} mm; both sides must be above 0")
    v = camera_vfov(hfov, image)
    return room * max(span[0] / 2 / math.tan(math.radians(hfov) / 2), span[1] / 2 / math.tan(math.radians(v) / 2))


def button_name(normally_closed: bool) -> str:
    """The end-turn button as the parts list names it, with the contact the wiring needs."""
    contact = "normally closed" if normally_closed else "normally open"
    return f"{BUTTON_PART}, momentary, {contact} (M12 thread, panel up to 4 mm, body <= 22 mm)"


def lane_growth(clearance: float) -> float:
    """How much wider a lane's foot is than its tile's foot: the clearance along every face of the dovetail."""
    return 2 * clearance * (1 + SQRT2)


# The key that lets a tile into its lane only the right way round (shutbox.cad.geometry.keys): its groove.
KEY_HALF = 1.25  # half the groove's width


KEY_STRAIGHT = 1.0  # the groove's upright sides, under its 45-degree roof


KEY_WALL = 1.0  # least plastic between the groove and the magnet pocket, and between it and the tile's side


def widest_magnet_pocket(tile_width: float) -> float:
    """The widest magnet pocket that leaves the key its walls in a tile ``tile_width`` wide."""
    return 2 * (tile_width / 2 - 2 * (KEY_HALF + KEY_WALL))


@dataclass(frozen=True)
class Layout:
    """Derived dimensions of one kit (mm)."""

    kit: Kit
    length: float
    width: float
    height: float
    wall: float
    tiles: int
    clearance: float
    pitch: float
    tile_width: float  # at the top
    tile_length: float
    tile_thickness: float
    travel: float
    deck_front: float  # y of the deck's front face (lanes open there)
    lane_floor: float  # z
    tray_floor: float  # z of the tray surface around the felt recess
    felt_floor: float  # z of the felt recess floor
    number_size: float  # font size of the numbers
    sensors: bool
    die: float

    # --- lanes and tiles -------------------------------------------------------------------
    @property
    def tile_foot(self) -> float:
        """Tile width at its foot (the dovetail flare)."""
        return self.tile_width + 2 * FLARE

    def lane_x(self, number: int) -> float:
        """x of the centre of the lane of tile ``number`` (1..N, left to right)."""
        return self.wall + self.pitch * (number - 0.5)

    @property
    def lane_length(self) -> float:
        return self.travel + self.tile_length + self.clearance

    @property
    def lane_foot(self) -> float:
        """Lane width at its floor: the tile foot offset by the clearance along every face."""
        return self.tile_foot + lane_growth(self.clearance)

    @property
    def rib(self) -> float:
        """Narrowest rib between two lanes."""
        return self.pitch - self.lane_foot

    def tile_y(self, shut: bool) -> float:
        """y of a tile's front end, open (at the back of its lane) or shut (flush with the deck front)."""
        return self.deck_front if shut else self.deck_front + self.travel

    @property
    def tile_z(self) -> float:
        return self.lane_floor + self.clearance

    @property
    def number_zone(self) -> tuple[float, float]:
        """y range of the lane floor that the tile covers only when shut: the box's numbers."""
        return (self.deck_front + 1.0, self.deck_front + self.travel - 1.0)

    @property
    def lane_end(self) -> float:
        """y of the lanes' back ends: the gate's face."""
        return self.deck_front + self.lane_length

    @property
    def gate_floor(self) -> float:
        """z of the floor of the gate pocket behind the lanes."""
        return self.lane_floor - GATE_BELOW

    @property
    def hollow_roof(self) -> float:
        """z of the hollow's flat roof in front of the spine: a skin under the lanes' engraved numbers."""
        return self.lane_floor - self.engrave - DECK_SKIN

    @property
    def back_roof(self) -> float:
        """z of the hollow's flat roof behind the spine, where nothing is engraved: a skin under the lane floor."""
        return self.lane_floor - DECK_SKIN

    @property
    def gate_roof(self) -> float:
        """z of the hollow's flat roof under the gate pockets, which sit lower than the lanes."""
        return self.gate_floor - DECK_SKIN

    def roof_at(self, y: float) -> float:
        """z of the hollow's roof at ``y`` (under the deck): behind the spine it steps down to ``gate_roof`` over the
        gate wall, under the lanes' back ends."""
        if y < self.switch_y:
            return self.hollow_roof
        return self.back_roof if y < self.lane_end - HOLLOW_RIB / 2 else self.gate_roof

    @property
    def button_at(self) -> tuple[float, float]:
        """Box-frame y, z of the end-turn button's axis (through the right end wall, x = length)."""
        return (self.tray[3] + WALL_MIN + BUTTON_NUT / 2 + 2.0, BUTTON_NUT / 2 + GROOVE + 3.0)

    @property
    def engagement(self) -> float:
        """How far the detent bump still catches its notch when the tile leans away from it."""
        return self.kit.tile_fit.detent_mm - 2 * self.clearance

    def bump_y(self, shut: bool) -> float:
        return self.tile_y(shut) + self.tile_length - BUMP_FROM_BACK

    @property
    def engrave(self) -> float:
        return self.kit.cad.engrave_depth_mm

    # --- sensing ---------------------------------------------------------------------------
    @property
    def switch_y(self) -> float:
        """y of the reed switch shafts: under the magnet of a shut tile."""
        return self.deck_front + MAGNET_AT

    @property
    def fold_radius(self) -> float:
        """Centre-line radius of the U the top lead is folded in: from the glass's axis to the return leg lying
        along the glass."""
        return (self.kit.sensors.reed_diameter_mm + REED_LEAD) / 4

    @property
    def fold_rise(self) -> float:
        """How far the folded top lead stands above the glass."""
        return REED_BEND + self.fold_radius + REED_LEAD / 2

    @property
    def glass_offset(self) -> float:
        """How far the glass's axis is beside the shaft's (along -x): the U of the folded lead is centred in it."""
        return self.fold_radius

    @property
    def shaft_radius(self) -> float:
        """The shaft round the glass and the folded lead's return leg, with ``SHAFT_PLAY``."""
        return self.glass_offset + self.kit.sensors.reed_diameter_mm / 2 + SHAFT_PLAY

    @property
    def magnet_face(self) -> float:
        """z of the underside of a tile's magnet (pressed to the bottom of its pocket)."""
        return self.tile_z + self.kit.sensors.magnet_slack_mm

    @property
    def reed_top(self) -> float:
        """z of the top of a seated reed switch's glass: ``reed_gap_mm`` under a shut tile's magnet."""
        return self.magnet_face - self.kit.sensors.reed_gap_mm

    @property
    def shaft_ceiling(self) -> float:
        """z of the shaft's small flat ceiling, which the folded lead's U stops against."""
        return self.reed_top + self.fold_rise

    @property
    def ceiling_radius(self) -> float:
        """Radius of that flat ceiling: wide enough that the 45-degree taper under it clears the U's shoulders."""
        return (self.fold_radius + REED_LEAD / 2) * 0.5 + 0.1

    @property
    def shaft_top(self) -> float:
        """z of the top of the shaft's straight part, where it starts to taper at 45 degrees to its ceiling."""
        return self.shaft_ceiling - (self.shaft_radius - self.ceiling_radius)

    # --- the bay -------------------------------------------------------------------------
    @property
    def shift_board(self) -> bool:
        """Whether the bay takes the 74HC165 board beside the controller: for 12 tiles or ``--tile-input 74hc165``."""
        return self.sensors and (self.tiles == 12 or self.kit.firmware.tile_input == "74hc165")

    @property
    def shift_extent(self) -> float:
        """Length (x) of the bay taken by the 74HC165 board and the gap to the controller board (0 without it)."""
        if not self.shift_board:
            return 0.0
        return SHIFT_INSET + self.kit.sensors.shift_board_length_mm + SHIFT_GAP - BOARD_INSET

    @property
    def shift_origin(self) -> tuple[float, float]:
        """Cover-frame x, y of the 74HC165 board's lower-left corner (left of the controller board)."""
        s = self.kit.sensors
        return (COVER_FLANGE_X + SHIFT_INSET,
                COVER_FLANGE_Y + 1.0 + (self.cavity_width - 2.0 - s.shift_board_width_mm) / 2)

    @property
    def magnet_pocket(self) -> tuple[float, float]:
        """(diameter, depth) of the magnet pocket in a tile's underside."""
        s = self.kit.sensors
        return (s.magnet_diameter_mm + s.magnet_slack_mm, s.magnet_height_mm + s.magnet_slack_mm)

    @property
    def cavity(self) -> tuple[float, float, float, float]:
        """x0, x1, y0, y1 of the controller cavity (open at the bottom)."""
        s = self.kit.sensors
        x1 = self.length - self.wall - COVER_FLANGE_X - BAY_CORNER
        x0 = x1 - (s.board_length_mm + 4.0) - self.shift_extent
        y1 = self.width - self.wall - COVER_FLANGE_Y - 1.0
        y0 = y1 - self.cavity_width
        return (x0, x1, y0, y1)

    @property
    def cavity_width(self) -> float:
        """Width (y) of the controller cavity: the board (the wider board) with 1 mm either side."""
        s = self.kit.sensors
        return max(s.board_width_mm, s.shift_board_width_mm if self.shift_board else 0.0) + 2.0

    @property
    def cavity_height(self) -> float:
        """Straight height of the cavity above the table (a 45 degree roof follows)."""
        s = self.kit.sensors
        tallest = max(s.board_height_mm, s.shift_board_height_mm if self.shift_board else 0.0)
        return COVER_THICKNESS + STANDOFF + tallest + 4.0

    @property
    def cover_size(self) -> tuple[float, float]:
        x0, x1, y0, y1 = self.cavity
        return (x1 - x0 + 2 * COVER_FLANGE_X, y1 - y0 + 2 * COVER_FLANGE_Y)

    @property
    def cover_origin(self) -> tuple[float, float]:
        """Box-frame x, y of the cover's lower-left corner when fitted."""
        x0, _, y0, _ = self.cavity
        return (x0 - COVER_FLANGE_X, y0 - COVER_FLANGE_Y)

    @property
    def board_origin(self) -> tuple[float, float]:
        """Cover-frame x, y of the board's lower-left corner (USB end towards +x)."""
        return (COVER_FLANGE_X + BOARD_INSET + self.shift_extent,
                COVER_FLANGE_Y + 1.0 + (self.cavity_width - 2.0 - self.kit.sensors.board_width_mm) / 2)

    @property
    def usb_height(self) -> float:
        """Straight height of the USB opening above the table."""
        return COVER_THICKNESS + STANDOFF + self.kit.sensors.board_height_mm + USB_MARGIN

    def seat_teeth(self) -> list[tuple[float, float]]:
        """Cover-frame x, y of the centres of the seat wall's teeth (``SEAT_TOOTH``): where each flange slab's free
        edge meets the seat's side walls."""
        w, h = self.cover_size
        return [(x, y) for x in (COVER_FLANGE_X, w - COVER_FLANGE_X) for y in (-COVER_GAP, h + COVER_GAP)]

    def screw_points(self) -> list[tuple[float, float]]:
        """Cover-frame x, y of the four cover screws (in the corners of the end flanges, clear of the USB opening)."""
        w, h = self.cover_size
        e = SCREW_EDGE
        return [(e, e), (e, h - e), (w - e, e), (w - e, h - e)]

    @property
    def cover_pilot(self) -> tuple[float, float]:
        """z range of the cover screws' pilot holes with full walls, in the flange beams."""
        start = COVER_THICKNESS
        return (start, COVER_SCREW + PILOT_EXTRA)

    @property
    def usb_floor(self) -> float:
        """z of the USB opening's floor: the top of the flange slab the cover screws go into."""
        return COVER_THICKNESS + FLANGE_SLAB

    @property
    def usb_y(self) -> float:
        """Box-frame y of the centre of the USB opening."""
        return self.cover_origin[1] + self.board_origin[1] + self.kit.sensors.board_width_mm / 2

    @property
    def gate_pilot(self) -> tuple[float, float]:
        """z range of the gate screws' pilot holes (from the gate pocket floor down)."""
        top = self.gate_floor
        return (self.height - GATE_SCREW - PILOT_EXTRA, top)

    @property
    def tab_pilot(self) -> tuple[float, float]:
        """z range of a tray tab's screw pilot hole in its block: from the slot's roof over the tab up to past
        the screw's tip (the screw goes in from below through the tab's countersink)."""
        return (TAB_THICKNESS + self.kit.cad.joint_clearance_mm, TAB_SCREW + PILOT_EXTRA)

    def pin_points(self) -> list[tuple[float, float]]:
        """Cover-frame x, y of the board's mounting pins (Pico hole pattern: inset 2 mm and 4.8 mm)."""
        s = self.kit.sensors
        bx, by = self.board_origin
        xs = (bx + 2.0, bx + s.board_length_mm - 2.0)
        ys = (by + 4.8, by + s.board_width_mm - 4.8)
        return [(x, y) for x in xs for y in ys]

    @property
    def wire_start(self) -> tuple[float, float]:
        """(y, z) where each switch's wires leave it: a reed's lower lead at the top of its shaft, a microswitch's
        solder tabs under its body."""
        if self.kit.sensors.lever:
            return tabs_at(self)
        return self.switch_y, self.shaft_top

    @property
    def wire_per_switch(self) -> list[float]:
        """Length of wire (mm) from each switch, down to the channel and along the channels to the cavity."""
        x0, x1, y0, y1 = self.cavity
        cx = (x0 + x1) / 2
        y, z = self.wire_start
        return [abs(self.lane_x(n) - cx) + abs((y0 + y1) / 2 - y) + z for n in range(1, self.tiles + 1)]

    # --- tray and felt ---------------------------------------------------------------------
    @property
    def tray(self) -> tuple[float, float, float, float]:
        """x0, x1, y0, y1 of the dice tray."""
        return (self.wall, self.length - self.wall, self.wall, self.deck_front - SILL_DEPTH)

    @property
    def felt(self) -> tuple[float, float]:
        """Size of the felt recess (x, y)."""
        x0, x1, y0, y1 = self.tray
        return (x1 - x0 - 2 * FELT_MARGIN, y1 - y0 - 2 * FELT_MARGIN)

    # --- the camera over the tray (its mount: cad/shutbox/cad/geometry/mount.py) -----------------------
    @property
    def camera_height(self) -> float:
        """The stated camera's lens above the felt (where the dice lie), whole mm: it frames the tray so."""
        x0, x1, y0, y1 = self.tray
        return float(math.ceil(framing_height((x1 - x0, y1 - y0), CAMERA_HFOV, CAMERA_IMAGE, CAMERA_ROOM)))

    @property
    def camera_at(self) -> tuple[float, float, float]:
        """Box-frame x, y, z of the camera's lens: over the middle of the tray, :attr:`camera_height` up."""
        x0, x1, y0, y1 = self.tray
        return ((x0 + x1) / 2, (y0 + y1) / 2, self.tray_floor + self.camera_height)

    @property
    def camera_die_px(self) -> float:
        """The side of a die's top face in the stated camera's picture, px, for a die lying under the lens (the
        dice reader's expected die size with the mount)."""
        focal = CAMERA_IMAGE[0] / 2 / math.tan(math.radians(CAMERA_HFOV) / 2)
        return self.die * focal / (self.camera_height - self.die)

    def die_places(self) -> list[tuple[float, float]]:
        """Box-frame x, y of the two dice's centres, resting in the tray."""
        x0, x1, y0, y1 = self.tray
        yc = (y0 + y1) / 2
        xc = (x0 + x1) / 2
        gap = self.die * 0.8
        return [(xc - gap, yc), (xc + gap, yc)]


def layout(kit: Kit) -> Layout:
    """Dimensions for ``kit``; raise :class:`ShutboxError` for combinations that cannot be built."""
    box, fit, sensors = kit.box, kit.tile_fit, kit.sensors
    n = kit.rules.tiles
    c = fit.clearance_mm
    wall = box.wall_mm
    die = kit.dice.size_mm
    if c > 0.8:
        raise ShutboxError(f"--clearance {c:g}: tiles would rattle in their lanes; allowed: > 0 and <= 0.8")
    if fit.detent_mm < 2 * c + DETENT_MARGIN - 1e-9:
        raise ShutboxError(
            f"--detent {fit.detent_mm:g}: a tile leaning away from its bump would slip past the notch with "
            f"--clearance {c:g}; allowed: >= {2 * c + DETENT_MARGIN:.2f} (2 x clearance + {DETENT_MARGIN:g})"
        )
    if fit.detent_mm > SLIT - 0.1 + 1e-9:
        raise ShutboxError(
            f"--detent {fit.detent_mm:g}: more than the detent arm can give way ({SLIT:g} mm slit); "
            f"allowed: <= {SLIT - 0.1:g} (with --clearance <= {(SLIT - 0.1 - DETENT_MARGIN) / 2:.2f})"
        )
    per_tile = TILE_MIN_WIDTH + 2 * FLARE + lane_growth(c) + RIB_MIN
    min_length = 2 * wall + n * per_tile
    if box.length_mm < min_length:
        raise ShutboxError(
            f"--box-length {box.length_mm:g}: too short for {n} tiles of at least {TILE_MIN_WIDTH:g} mm; "
            f"allowed: >= {math.ceil(min_length * 10) / 10:g} mm for {n} tiles"
        )
    pitch = (box.length_mm - 2 * wall) / n
    tile_width = pitch - RIB_MIN - 2 * FLARE - lane_growth(c)
    deck = TRAVEL + TILE_LENGTH + c + GATE_DEPTH
    min_tray = 2.5 * die
    min_width = deck + SILL_DEPTH + wall + min_tray
    if box.width_mm < min_width:
        raise ShutboxError(
            f"--box-width {box.width_mm:g}: too narrow for the tile deck ({deck:.1f} mm) and a dice tray "
            f"2.5 dice deep; allowed: >= {math.ceil(min_width * 10) / 10:g} mm"
        )
    tray_floor = FLOOR + box.felt_mm
    lane_floor = box.height_mm - TILE_THICKNESS - c
    number_size = min(10.0, (tile_width - 3.0) / 1.45, TRAVEL - 8.0)
    lay = Layout(
        kit=kit, length=box.length_mm, width=box.width_mm, height=box.height_mm, wall=wall, tiles=n,
        clearance=c, pitch=pitch, tile_width=tile_width, tile_length=TILE_LENGTH, tile_thickness=TILE_THICKNESS,
        travel=TRAVEL, deck_front=box.width_mm - deck, lane_floor=lane_floor, tray_floor=tray_floor,
        felt_floor=FLOOR, number_size=number_size, sensors=sensors.kind != "none", die=die,
    )
    # With sensors: the controller cavity (straight walls, a 45-degree roof, 4 mm above) and a reed switch shaft.
    sensor_room = (
        max(lay.cavity_height + lay.cavity_width / 2 + 4.0, sensors.reed_length_mm + 4.0) if lay.sensors else 0.0
    )
    min_height = max(tray_floor + die + 2.0, TILE_THICKNESS + c + FLOOR + sensor_room)
    if box.height_mm < min_height:
        raise ShutboxError(
            f"--box-height {box.height_mm:g}: too low for the tiles, the dice and the sensors; "
            f"allowed: >= {math.ceil(min_height * 10) / 10:g} mm"
        )
    if lay.sensors:
        _check_sensors(lay)
    return lay


def _check_sensors(lay: Layout) -> None:
    s = lay.kit.sensors
    if s.magnets:
        _check_magnets(lay)
    else:
        check_layout(lay)
    _check_bay(lay)


def _check_magnets(lay: Layout) -> None:
    s = lay.kit.sensors
    d, depth = lay.magnet_pocket
    widest = lay.tile_width - 2 * (ARM_THICKNESS + SLIT) - 2.0  # widest pocket beside the detent arm
    if d > widest:
        raise ShutboxError(
            f"--magnet-diameter {s.magnet_diameter_mm:g}: does not fit beside the detent arm of a "
            f"{lay.tile_width:.1f} mm tile; allowed: <= {widest - s.magnet_slack_mm:.1f}"
        )
    keyed = widest_magnet_pocket(lay.tile_width)  # the key groove beside it keeps its walls
    if d > keyed + 1e-9:
        raise ShutboxError(
            f"--magnet-diameter {s.magnet_diameter_mm:g}: leaves no room for the key groove beside the magnet in a "
            f"{lay.tile_width:.1f} mm tile; allowed: <= {keyed - s.magnet_slack_mm:.1f}"
        )
    deepest = TILE_THICKNESS - SCOOP_DEPTH - 1.0  # deepest pocket under the finger dimple
    if depth > deepest:
        raise ShutboxError(
            f"--magnet-height {s.magnet_height_mm:g}: leaves too little plastic over the magnet in a "
            f"{TILE_THICKNESS:g} mm tile; allowed: <= {deepest - s.magnet_slack_mm:.1f}"
        )
    if lay.reed_top - s.reed_length_mm < GROOVE + 2.0:
        raise ShutboxError(f"--reed-length {s.reed_length_mm:g}: the switch shaft is too short for it")
    least = s.reed_gap_mm + (lay.shaft_ceiling - (lay.lane_floor - FLOOR_SKIN))
    if least > s.reed_gap_mm + 1e-9:
        raise ShutboxError(
            f"--reed-gap {s.reed_gap_mm:g}: the reed switch's folded lead ({lay.fold_rise:.2f} mm over the glass) "
            f"would reach into the lane floor; allowed: >= {math.ceil(least * 100) / 100:g} mm with --clearance "
            f"{lay.clearance:g} and --magnet-slack {s.magnet_slack_mm:g}")
    if s.reed_release_mm <= s.reed_operate_mm:
        raise ShutboxError(f"--reed-release {s.reed_release_mm:g}: a reed switch releases farther out than it "
                           f"operates; allowed: > --reed-operate {s.reed_operate_mm:g}")


def _check_bay(lay: Layout) -> None:
    s = lay.kit.sensors
    x0, x1, y0, y1 = lay.cavity
    spare = (y0 - COVER_FLANGE_Y - COVER_GAP) - (lay.switch_y + GROOVE / 2 + 1.5)
    if spare < 0:
        raise ShutboxError(
            f"--board-width {s.board_width_mm:g}: the controller cavity would cut the wire channel; "
            f"allowed: <= {math.floor((s.board_width_mm + spare) * 10) / 10:g}"
        )
    ox = lay.cover_origin[0]
    if ox < lay.wall + 2.0:
        raise ShutboxError(f"--board-length {s.board_length_mm:g}: the controller cavity does not fit the box")


@dataclass(frozen=True)
class Gate:
    """The gate behind the lanes of tiles ``first``..``last``."""

    first: int
    last: int
    x0: float  # its pocket, box frame
    x1: float

    @property
    def name(self) -> str:
        return f"gate-tiles-{self.first}-{self.last}"

    def screw_points(self, lay: Layout) -> list[tuple[float, float]]:
        """Box-frame x, y of its screws: behind the first and the last of its lanes."""
        y = lay.lane_end + GATE_GAP + (lay.width - lay.lane_end - GATE_GAP) / 2
        xs = dict.fromkeys((lay.lane_x(self.first), lay.lane_x(self.last)))
        return [(x, y) for x in xs]


def gates(lay: Layout, cuts: tuple[float, ...] = ()) -> list[Gate]:
    """The gates closing the lanes' backs for a box cut at ``cuts`` (x positions on ribs between lanes).

    Every cut runs through a gate that has a screw on either side of it, so the gates also lock the box
    pieces together; the lanes between such gates get a gate of their own.
    """
    half = lay.tile_width / 2 + lay.clearance + 1.0
    spans: list[list[int]] = []
    for k in sorted(round((x - lay.wall) / lay.pitch) for x in cuts):  # the cut runs after lane k
        if spans and spans[-1][1] >= k:
            spans[-1][1] = k + 1
        else:
            spans.append([k, k + 1])
    groups: list[tuple[int, int]] = []
    lane = 1
    for first, last in spans:
        if first > lane:
            groups.append((lane, first - 1))
        groups.append((first, last))
        lane = last + 1
    if lane <= lay.tiles:
        groups.append((lane, lay.tiles))
    return [Gate(a, b, lay.lane_x(a) - half, lay.lane_x(b) + half) for a, b in groups]
