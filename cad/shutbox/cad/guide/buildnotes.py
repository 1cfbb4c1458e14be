"""The build guide (``docs/build.md`` and ``DIR/build.md``): from nothing to a working box.

Everything it counts or sizes comes from the kit model and the part catalogue: the tiles, the
magnets and reed switches fitted into the parts (``PartSpec.fitted``), the board, the pin plan's
74HC165 chips, the print settings each part carries. ``python -m shutbox.cad.guide.buildnotes`` rewrites
the repository's copy and its pictures (``docs/img/cad-*.png``) for the default kit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

from shutbox.cad.geometry.layout import (
    BRIDGE_SPAN,
    BUTTON_PART,
    CAMERA_HFOV,
    CAMERA_IMAGE,
    FELT_SLACK,
    REED_BEND,
    REED_LEAD,
    TAB_SCREW,
    Layout,
)
from shutbox.cad.geometry.parts import Item, PartSpec
from shutbox.cad.geometry.split import SplitPlan, plan_split
from shutbox.cad.guide.boardnotes import BOARD_IMAGES, board_steps
from shutbox.cad.guide.figures import BAY_VIEW, REED_VIEW
from shutbox.firmware.host.serialport import ARCH_PORT_GROUP, PORT_GROUP, group_command
from shutbox.kit.model import Kit

if TYPE_CHECKING:
    pass

#: The .mpy format the bundle's files use (bytecode only: no native code) and the first MicroPython
#: release that loads it. MicroPython's .mpy table: "v1.19 and up: 6"; the sub-version (6.3 from
#: mpy-cross 1.29) is checked only for files with native code (py/persistentcode.c).
MPY_VERSION = 6
MPY_FIRST_RELEASE = "v1.19"
UF2_PAGES = {"pico": "https://micropython.org/download/RPI_PICO/",
             "pico2": "https://micropython.org/download/RPI_PICO2/"}
PLAYERS = '"Ann,Bob"'  # the players the guide's play command names


def _merged(items: Iterable[Item]) -> list[Item]:
    """Items with the same name and note added up, in first-seen order."""
    totals: dict[tuple[str, str], int] = {}
    for item in items:
        totals[(item.name, item.note)] = totals.get((item.name, item.note), 0) + item.quantity
    return [Item(name, qty, note) for (name, note), qty in totals.items()]


def wire_metres(lay: Layout) -> float:
    """Hook-up wire for every switch's signal run plus the shared ground, with 20% spare, in 0.1 m."""
    n = lay.tiles
    signal = sum(lay.wire_per_switch)
    ground = (lay.lane_x(n) - lay.lane_x(1)) + n * lay.wire_start[1] + max(lay.wire_per_switch)
    return math.ceil((signal + ground) * 1.2 / 100) / 10


def shopping_list(kit: Kit, lay: Layout, specs: list[PartSpec]) -> list[Item]:
    """Everything to buy: the hardware fitted into the parts, then what the kit as a whole needs."""
    items = [item for spec in specs for item in spec.fitted(kit, lay) for _ in range(spec.quantity)]
    fx, fy = lay.felt
    items.append(Item("felt (baize) sheet", 1, f"{fx - FELT_SLACK:.0f} x {fy - FELT_SLACK:.0f} mm, "
                      f"{kit.box.felt_mm:g} mm thick, self-adhesive or glued; lines the dice tray"))
    if lay.sensors:
        from shutbox.firmware.host.plan import pin_map
        from shutbox.firmware.host.topology import RESISTOR, topology

        pins = pin_map(kit)
        wiring = topology(pins)
        n = kit.rules.tiles
        items.append(Item(f"hook-up wire, 26-30 AWG ({wire_metres(lay):g} m)", 1,
                          f"one signal wire per switch plus a shared {wiring.tiles.net} return, {n + 1} runs"))
        if pins.chips:
            items.append(Item("74HC165 shift register, DIP-16", pins.chips, "reads 8 tiles each, chained (wiring.md)"))
            items.append(Item("100 nF ceramic capacitor", pins.chips,
                              "decoupling: across VCC and GND of each 74HC165, next to the chip"))
            s = kit.sensors
            items.append(Item("perfboard, 2.54 mm pitch", 1, f"cut to {s.shift_board_length_mm:g} x "
                              f"{s.shift_board_width_mm:g} mm: the 74HC165 board, on its rails in the bay"))
        pulled = n * (wiring.tiles.resistor_to is not None) + (wiring.button is not None
                                                              and wiring.button.resistor_to is not None)
        if pulled:
            items.append(Item(f"resistor {RESISTOR}, 1/4 W", pulled, "pull resistors for inputs without an internal "
                              f"pull (to {wiring.tiles.resistor_to or wiring.button and wiring.button.resistor_to})"))
        if wiring.button is not None and not any(item.name.startswith(BUTTON_PART) for item in items):
            contact = "normally closed" if wiring.button.normally_closed else "normally open"
            items.append(Item(f"momentary push button, {contact}", 1,
                              f"ends a turn; on GP{pins.button}, wired as wiring.md says"))
        items.append(Item("micro-USB data cable" if kit.firmware.board == "pico" else "USB cable for the board", 1,
                          "to the computer running the scorekeeper"))
    glued = glued_joints(specs, lay)
    if glued:
        items.append(Item("CA (super) glue or plastic glue", 1, f"for {glued}"))
    return _merged(items)


def m_second(kit: Kit) -> str:
    """The microswitch tab the shared return goes on besides C (NO, or NC for normally-closed wiring)."""
    from shutbox.cad.geometry.microswitch import contact
    from shutbox.firmware.host.plan import pin_map
    from shutbox.firmware.host.topology import topology

    return contact(topology(pin_map(kit)).tiles.normally_closed)


def glued_joints(specs: list[PartSpec], lay: Layout) -> str | None:
    """The joints of the box pieces that need glue, or None. Gates screwed across the cuts between lanes hold
    those, screwed tabs a cut at the tray's back wall; a cut across the tray itself has only floor keys, which
    locate the pieces but do not hold them down."""
    from shutbox.cad.geometry.split import at_wall

    boxes = [spec for spec in specs if spec.kind == "box"]
    if len(boxes) < 2:
        return None
    if not any(spec.kind == "gate" for spec in specs):
        return "the joints of the box pieces"
    across = [spec.inputs["span_y"][0] for spec in boxes if spec.inputs["span_y"][0] > 1e-6]
    return "the joints across the tray" if any(not at_wall(lay, y) for y in across) else None


def _image(prefix: str, name: str, alt: str) -> str:
    return f"![{alt}]({prefix}{name})"


def shell(*commands: str, indent: str = "") -> str:
    """A fenced block of shell commands, each on a ``$ `` line (what tests/test_build_guide_commands.py runs)."""
    return "\n".join(f"{indent}{line}" for line in ("```sh", *(f"$ {c}" for c in commands), "```"))


def settings_flags(kit: Kit) -> str:
    """The fewest flags that give ``kit``'s settings (`` --tiles 12`` ...; '' for the default kit): each setting
    that differs from its default, unless the others already give it (the dice follow the tiles). A flag is kept
    when the others alone are not a kit (``--limit 45`` without ``--match drop-out``)."""
    import shlex

    from shutbox.base.errors import SettingsError
    from shutbox.kit.model import SETTINGS, build_kit, kit_as_flat, show_value

    values, defaults = kit_as_flat(kit), kit_as_flat(Kit())
    given = {key: value for key, value in values.items() if value != defaults[key] and key != "cad.cache_limit_mb"}
    for key in list(given):
        fewer = {k: v for k, v in given.items() if k != key}
        try:
            same = build_kit(fewer) == kit
        except SettingsError:
            same = False
        if same:
            given = fewer
    return "".join(f" {s.flag} {shlex.quote(show_value(given[s.key]))}" for s in SETTINGS if s.key in given)


def build_notes(kit: Kit, lay: Layout, plan: SplitPlan, specs: list[PartSpec], images: str = "preview/",
                seated: bool = False, boards: str = BOARD_IMAGES) -> str:
    """The guide as Markdown; pictures are linked as ``{images}assembly.png`` etc., the circuit board's as
    ``{boards}front.svg``. ``seated``: the pictures of :mod:`shutbox.cad.guide.sensorviews` are there too (the
    repository's copy: they take a box build each, so a kit's own build does not render them)."""
    n = kit.rules.tiles
    bed = "x".join(f"{v:g}" for v in kit.printer.bed_mm)
    pieces = len(plan.pieces)
    s = kit.sensors
    lines = [
        "# Building the Shut the Box kit",
        "",
        f"Generated by `shutbox cad` for {n} tiles, a {lay.length:g} x {lay.width:g} x {lay.height:g} mm box, "
        f"{kit.dice.size_mm:g} mm dice, sensors `{s.kind}` and the `{kit.printer.bed}` bed ({bed} mm). "
        "Every quantity and size below follows from those settings. Work in a folder holding them as "
        "`shutbox.toml` (the first command writes it): every `shutbox` command reads `./shutbox.toml`, so the "
        "commands below build and talk to this kit. For another kit, give its flags to `shutbox config show` and "
        "run `shutbox cad --out cad` again: it writes the parts and this guide into `cad/`.",
        "",
        shell(f"shutbox config show{settings_flags(kit)} > shutbox.toml", "shutbox cad --out cad"),
        "",
        _image(images, "assembly.png", "The assembled kit: tiles in their lanes, two shut, dice in the tray"),
        "",
        "## 1. What to buy",
        "",
        "| item | quantity | notes |",
        "|---|---|---|",
    ]
    lines += [f"| {i.name} | {i.quantity} | {i.note} |" for i in shopping_list(kit, lay, specs)]
    lines += [
        "",
        "Filament: PLA or PETG, 1.75 mm. The printed parts:",
        "",
        "| printed part | copies | size (mm) |",
        "|---|---|---|",
    ]
    lines += [f"| printed: {p.name} | {p.quantity} | {p.size[0]:.1f} x {p.size[1]:.1f} x {p.size[2]:.1f} |"
              for p in specs]
    lines += [
        "",
        "## 2. Tools",
        "",
        f"- A 3D printer whose bed holds the largest part above (this guide: {bed} mm), with a "
        + " and a ".join(f"{n:g} mm" for n in sorted({p.print_settings.nozzle_mm for p in specs}))
        + " nozzle (a 0.4 mm nozzle alone does too, slower: see section 3).",
    ]
    if lay.sensors:
        lines += [
            "- Soldering iron (fine tip, about 330 °C), solder with flux core, heat-shrink tubing or tape.",
            ("- Flat-nose pliers (to hold wires and tabs while soldering), side cutters, wire stripper."
             if s.lever else "- Flat-nose pliers (to bend reed switch leads and to hold them as a heat sink), side "
             "cutters, wire stripper."),
            "- The hex key that fits the screws (an M3 ISO 10642 screw takes a 2 mm hex key).",
            "- A multimeter (continuity) helps find a bad joint.",
            "- A computer with this project installed (the README says how) and a USB port.",
        ]
    joints = glued_joints(specs, lay)
    glued = (["the magnets"] if lay.sensors and s.magnets else []) + ([joints] if joints else [])
    lines += ["- Scissors for the felt" + (f"; CA glue for {' and '.join(glued)}." if glued else ".")]
    lines += [
        "",
        "## 3. Print the parts",
        "",
        "Every part prints without support material: all overhangs are 45 degrees or steeper, and the flat "
        f"ceilings of the hollow under the deck are bridges of at most {BRIDGE_SPAN:g} mm (from the tray wall to "
        f"the spine under the {'switches' if s.lever else 'reed switches'}, and from the spine to the back wall) "
        "the slicer bridges unsupported; "
        "with the part cooling fan on, as every PLA profile has it, they sag a little at most, out of sight. "
        "Use the orientation given (the files are already laid that way). The dice print solid, as the table "
        "says: with sparse infill the skins put the die's weight off its centre (about 0.3 mm at 15%) and it "
        "favours some faces; solid, it is off by a few thousandths of a millimetre.",
        "",
        "Pips that read well (the camera's dice reader, docs/dice.md, and players across the table): the pips"
        " must contrast with the die from any angle, not only by their shadow. Two colours: "
        "`shutbox cad` writes `3mf/die-two-colour.3mf`, the die and its pips (their own body, filling the "
        "holes flush) as two objects of one 3MF, `die` and `pips`; load it, give the pips"
        " object the second filament (a dark colour on a light die, white on a dark one) and print as above. "
        "One colour: after printing, fill each pip with acrylic paint or a paint pen (black on white, white "
        "on black), let it sit a minute and wipe the face flat with a barely damp cloth, so the paint stays "
        "only in the pip; or press in coloured wax crayon and scrape it level with a card. Paint the whole "
        "pip, rim to point: a half-filled pip reads as a ring.",
        "",
        "| part | copies | nozzle | layer | perimeters | infill | orientation |",
        "|---|---|---|---|---|---|---|",
    ]
    for p in specs:
        ps = p.print_settings
        lines.append(f"| {p.name} | {p.quantity} | {ps.nozzle_mm:g} mm | {ps.layer_height_mm:g} mm | {ps.perimeters} "
                     f"| {ps.infill} | {ps.orientation}{'; brim ' + ps.brim if ps.brim else ''} |")
    lines += ["", *_projects(kit, specs), ""]
    lines += [
        f"The box prints in {'one piece' if pieces == 1 else f'{pieces} pieces'} on this bed"
        + ("." if pieces == 1 else ", joined by dovetail keys that drop into pockets in the neighbouring piece; "
           "cuts run between lanes and across the tray, never through a lane."),
        "",
        "## 4. Assemble",
        "",
    ]
    lines += _assembly_steps(kit, lay, specs, pieces, images, seated)
    if lay.sensors:
        lines += _electronics(kit, lay, specs, images, seated, boards)
    lines += _camera_mount(lay, images)
    lines += [
        "",
        "## Play",
        "",
        "Put the dice in the tray. Open every tile (pushed back, the lane's number showing). "
        + ("Plug the box into the computer and start the scorekeeper, naming the players in turn order: it "
           "follows the tiles as you shut them" + (" and the button ends your turn." if
                                                   kit.firmware.button_pin is not None else ".")
           if lay.sensors else "Roll, shut tiles that add up to the throw, and play by the rules in RULES.md. "
           "The scorekeeper can keep the score: type each throw and the tiles you shut."),
        "",
        shell(f"shutbox play --players {PLAYERS}" + ("" if lay.sensors else " --port none")),
    ]
    return "\n".join(lines) + "\n"


def _camera_mount(lay: Layout, images: str) -> list[str]:
    """The camera mount: how it goes on, what it frames, and how the camera uses it."""
    w, h = CAMERA_IMAGE
    text = (
        "The `camera-mount` part holds a small USB webcam or a phone over the tray, for the camera that reads "
        "the dice (the scorekeeper's `--camera` flag, docs/dice.md). Push its clip down over the middle of the "
        "box's front wall until its base sits on the wall's top; the shelf then reaches back over the tray. Lay "
        "the webcam (or the phone, camera side down, along the shelf) on the shelf with its lens over the window, "
        f"the picture's long side along the box. The lens is then {lay.camera_height:g} mm above the felt: a "
        f"camera that sees {CAMERA_HFOV:g} degrees across its picture's long side ({w} x {h} px) frames the whole "
        f"tray with 5 % to spare, and a {lay.die:g} mm die lying under it is about {lay.camera_die_px:.0f} px "
        "across. Take the mount off to play without the camera."
    )
    return ["", "## Camera mount (optional)", "", text, "",
            _image(images, "camera-over-tray.png", "The camera mount on the front wall, its shelf over the tray")]


def _projects(kit: Kit, specs: list[PartSpec]) -> list[str]:
    """The print section's project files: one per bed plate, what is on it, and how to slice it."""
    from shutbox.cad.slicer.printprofile import PRINT, SPEED_PROFILE
    from shutbox.cad.slicer.project3mf import kit_plates

    plates = kit_plates(specs, kit.printer.bed_mm)
    lines = [
        f"`shutbox cad` writes a PrusaSlicer project per bed plate, {len(plates)} in all: open one (File > Open "
        "project) and the plate's parts are on the bed, laid as printed, each with its settings above (the dice "
        "solid beside 20% tiles), PLA at 215 / 60 °C, support off, "
        f"external perimeters at {PRINT['external_perimeter_speed']} mm/s and infill at {PRINT['infill_speed']} "
        "mm/s, for a printer of the Prusa MK3S/MK4 class (its limits set the time estimate). Slice and print; "
        "a print or printer preset of your own changes speeds and start G-code but keeps each part's layer height, "
        "perimeters and infill (they are per-object settings); check its nozzle against the table:",
        "",
        "| project file | nozzle | parts on the plate |",
        "|---|---|---|",
    ]
    for plate in plates:
        copies = {name: sum(p.name == name for p in plate.placed) for name in plate.parts}
        parts = ", ".join(f"{name} x {n}" if n > 1 else name for name, n in copies.items())
        lines.append(f"| `{plate.file}` | {plate.nozzle_mm:g} mm | {parts} |")
    print_name, filament, printer = SPEED_PROFILE
    lines += [
        "",
        f"Only a 0.4 mm nozzle: open the same projects and choose Prusa's own \"{print_name}\" print preset, "
        f"\"{filament}\" and your printer (\"{printer}\" or its successor); every part keeps its own layer height "
        "and infill (the dice stay solid). It takes longer (docs/cad.md gives the hours and grams of both).",
    ]
    return lines


def _assembly_steps(kit: Kit, lay: Layout, specs: list[PartSpec], pieces: int, images: str,
                    seated: bool) -> list[str]:
    n = kit.rules.tiles
    s = kit.sensors
    fx, fy = lay.felt
    steps = []
    if pieces > 1:
        gated = any(spec.kind == "gate" for spec in specs)
        glued = glued_joints(specs, lay)
        tabs = sum(key.tab for key in plan_split(lay, kit.printer.bed_mm).keys)
        if not gated:
            hold = "Glue the joints and clamp them flat on a table."
        elif glued:
            hold = ("The gates screwed across the joints between lanes (step 6) hold those; the joints across the "
                    "tray have only floor keys, so glue them (floor and end walls) and clamp them flat on a table.")
        elif tabs:
            hold = ("No glue: the gates screwed across the joints between lanes (step 6) hold those. The tray "
                    "pieces' tabs slide under the deck's front wall into their slots; turn the box over and drive an "
                    f"M3 x {TAB_SCREW:g} mm countersunk screw up through each tab ({tabs} in all) into the block "
                    "above it.")
        else:
            hold = "No glue: the gates screwed across the joints (step 6) hold the pieces together."
        steps.append("Join the box pieces: lower each right (or back) piece onto its neighbour so the dovetail keys "
                     f"go up into their pockets, and stand the box on a flat table. {hold}"
                     f"\n\n   {_image(images, 'exploded.png', 'The box pieces and their dovetail keys')}")
    if lay.sensors and s.lever:
        steps += _microswitch_steps(lay, images, seated)
    elif lay.sensors:
        steps += [
            f"Press a {s.magnet_diameter_mm:g} x {s.magnet_height_mm:g} mm magnet to the bottom of the pocket under "
            f"each of the {n} tiles with a drop of CA glue; either pole down (a reed switch closes for both)."
            f"\n\n   {_image(images, 'magnets.png', 'A magnet in the pocket under a tile, from below and in section')}",
            "Fold each reed switch's top lead before it goes in. **Reed glass cracks easily**: never bend a lead "
            "at the glass. Grip the lead with flat-nose pliers right next to the glass and bend it around the far "
            f"side of the jaws, {REED_BEND:g} mm from the seal, so the pliers and not the glass take the force; "
            f"bend it on round, in a U about {2 * lay.fold_radius + REED_LEAD:.1f} mm across, and back down "
            "along the glass (the lower picture, to scale). Do the same when soldering: hold the lead with the "
            "pliers between the glass and the joint as a heat sink, and solder quickly."
            f"\n\n   {_image(images, 'reed-leads.png', 'Bending a lead, and a switch folded in its shaft')}",
            "Turn the box over. Push one reed switch, fold first, up each vertical shaft under the lanes (glass up "
            f"to {s.reed_length_mm:g} mm long, {s.reed_diameter_mm:g} mm across) until the fold stops against the "
            f"shaft's ceiling: the glass then sits {s.reed_gap_mm:g} mm under the magnet of a shut tile. Lead both "
            "wires along the channel to the electronics bay. The map says which shaft is which tile's and where "
            "its wire lands on the board."
            + (f"\n\n   {_image(images, REED_VIEW, 'A reed switch seated in its shaft under a shut tile, in section')}"
               if seated else "")
            + f"\n\n   {_image(images, 'underside.png', 'The underside with the cover off: shafts, channel, bay')}"
            f"\n\n   {_image(images, 'switch-map.png', 'The underside: each tile shaft, its wire and its pin')}",
        ]
    gates = [spec for spec in specs if spec.kind == "gate"]
    if gates:
        screws = [item for spec in gates for item in spec.fitted(kit, lay)]
        count = sum(item.quantity for item in screws)
        insert = ("Slide each tile, number up, its dovetail foot in the lane's groove, into its lane from the "
                  "back of the box (tile 1 is the left one seen from the front) until it meets the sill at the "
                  f"lane's front. Then drop the {'gate' if len(gates) == 1 else f'{len(gates)} gates'} into "
                  f"{'its pocket' if len(gates) == 1 else 'their pockets'} behind the lanes, countersinks up, "
                  f"and screw {'it' if len(gates) == 1 else 'them'} down ({count} screws): the sills and the "
                  f"gate{'' if len(gates) == 1 else 's'} keep every tile in its lane. ")
    else:
        insert = "Slide each tile, number up, into its lane from the tray side (tile 1 on the left). "
    from shutbox.cad.geometry.keys import key_x

    side = "left" if key_x(lay) < 0 else "right"  # as a player reads the number
    insert += (f"Every tile is keyed: the channel under its {side} side (as you read its number) runs over the rib on "
               f"the {side} of the lane floor, so it goes in only with its number reading from the front; turned "
               "round or upside down it does not go in. ")
    steps += [
        f"Cut the felt to {fx - FELT_SLACK:.0f} x {fy - FELT_SLACK:.0f} mm and lay it into the recess in the tray."
        f"\n\n   {_image(images, 'felt.png', 'The felt in the recess of the dice tray, with its size')}",
        insert + "A tile clicks into its detent at each end of its travel. Open = pushed back, the lane's number "
        "showing; shut = pulled forward, covering it."
        f"\n\n   {_image(images, 'tiles.png', 'Tile 1 shut (its number on top), tile 2 open (the lane number shows)')}",
    ]
    return [f"{i}. {text}" for i, text in enumerate(steps, 1)]


def _microswitch_steps(lay: Layout, images: str, seated: bool) -> list[str]:
    """Seating the microswitches (``--sensors microswitch``)."""
    from shutbox.cad.geometry import microswitch as m
    from shutbox.cad.guide.figures import MICROSWITCH_VIEW

    second = m_second(lay.kit)
    n = lay.tiles
    return [
        f"Solder a wire to the C tab and one to the {second} tab of each of the {n} microswitches ({m.MODEL}; the "
        "letters C, NO and NC are moulded beside the tabs), about 15 cm each, and insulate the joints; the third "
        "tab stays free. "
        f"Before the tiles go in, lower one microswitch into each pocket under the lanes, from above through the "
        f"window in the lane floor ({m.LENGTH:g} x {m.WIDTH:g} mm, its long side along the lane): its two wires first, "
        "down through the gap between the pocket's ledges into the hollow under the deck, then the switch, lever up, "
        "the lever's hinge towards the back of the box and its tip towards the tray, until it rests on the ledges "
        "(the lever's push when its tile is shut keeps it there). "
        f"Seated so, a shut tile's cam holds the lever's tip {m.PRESS:g} mm over the mounting holes' centres, "
        f"{m.OPERATE - m.PRESS:g} mm past where it operates ({m.OPERATE:g} mm); an open tile lets it rise into the "
        "channel under the tile, where it is released."
        f"\n\n   {_image(images, 'microswitch.png', 'A microswitch on its ledges, released and pressed')}"
        + (f"\n\n   {_image(images, MICROSWITCH_VIEW, 'A microswitch seated under a shut tile, in section')}"
           if seated else ""),
        "Turn the box over and lead each switch's two wires down to the channel along the spine and along it to the "
        "electronics bay. The map says which pocket is which tile's and where its wire lands on the board."
        f"\n\n   {_image(images, 'underside.png', 'The underside with the cover off: shelves, channel, bay')}"
        f"\n\n   {_image(images, 'switch-map.png', 'The underside: each tile pocket, its wire and its pin')}",
    ]


def _electronics(kit: Kit, lay: Layout, specs: list[PartSpec], images: str, seated: bool,
                 boards: str = BOARD_IMAGES) -> list[str]:
    from shutbox.firmware.host.plan import BOARDS, pin_map

    pins = pin_map(kit)
    board = BOARDS[kit.firmware.board]
    n = kit.rules.tiles
    drive = board.boot_drive
    lines = [
        "",
        "## 5. Wire and solder",
        "",
        "Build the firmware bundle for the kit (its settings from `shutbox.toml`). Its `fw/wiring.md` and "
        "`fw/wiring.png` say which GPIO and header pin each tile's switch goes to, and where its other leg goes:",
        "",
        shell("shutbox firmware build --out fw"),
        "",
        _image(images, "wiring.png", "Wiring: each tile's switch to its pin on the board"),
        "",
        *board_steps(kit, lay, shell("shutbox pcb --out pcb"), m_second(kit), boards),
    ]
    if pins.chips:
        lines.append(f"- The switches go to {pins.chips} 74HC165 chip(s) with pull resistors as wiring.md shows, "
                     "and a 100 nF capacitor across each chip's VCC and GND; solder them on the "
                     f"{kit.sensors.shift_board_length_mm:g} x {kit.sensors.shift_board_width_mm:g} mm perfboard, "
                     "which rests on the two rails beside the controller on the cover (tape it down).")
    lines += [
        (f"- Join the wires from the {m_second(kit)} tabs of the {n} microswitches to the shared return wire; the "
         "wires from their C tabs go to the board." if kit.sensors.lever else
         f"- Solder a wire to each of the {n} reed switches' lower lead (pliers as a heat sink), insulate the "
         "joint, and run it along the channel; join the other leads to the shared return wire."),
        f"- Solder the wires to the {board.title}'s header pins as wiring.md says; check each with a multimeter.",
    ]
    if pins.button is not None:
        if any(item.name.startswith(BUTTON_PART) for spec in specs for item in spec.fitted(kit, lay)):
            lines.append("- Push the button through the round (teardrop-topped) hole in the box's right end wall "
                         "near the tray, from outside, and screw its nut on from inside the hollow under the deck. "
                         "Run its two wires through that hollow to the wire channel (the groove along the spine "
                         f"under the {'switches' if kit.sensors.lever else 'reed switches'}) and on into the "
                         "controller bay beside the switch wires.")
        lines.append(f"- Wire the push button to GP{pins.button} (header pin {board.header_pin(pins.button)}) "
                     "and its other side as wiring.md says.")
    lines += [
        "- Fit the board on the cover's pins with its USB socket towards the opening in the end wall, put the "
        "cover into its seat and fix it with its screws (do not overtighten; each pierces the 0.6 mm skin that "
        "closes the foot of its pilot hole, printed as a bridge).",
        "",
        _image(images, "cover.png", "The board on the cover's pins, its USB socket towards the end wall"),
        "",
    ]
    if seated:
        lines += [
            "With a 74HC165 board (12 tiles, or `--tile-input 74hc165`) the bay is longer and the board rests on "
            "its rails beside the controller (here the cover and both boards lifted out beside the bay):",
            "",
            _image(images, BAY_VIEW, "The 74HC165 board beside the controller, the cover lifted out of the bay"),
            "",
        ]
    lines += [
        "## 6. Put MicroPython on the board",
        "",
        f"1. Download the MicroPython UF2 for the {board.title} from {UF2_PAGES[board.name]} — a stable "
        f"release, {MPY_FIRST_RELEASE} or newer. The bundle's modules are compiled to .mpy version "
        f"{MPY_VERSION} bytecode (`mpy-cross --version` in `fw/bundle.json`); every MicroPython from "
        f"{MPY_FIRST_RELEASE} on loads that (the .mpy sub-version only matters for native code, which the "
        "bundle has none of). Older firmware refuses them with `incompatible .mpy file`.",
        f"2. Hold the board's BOOTSEL button while plugging it into the computer; it appears as a USB drive "
        f"named `{drive}`.",
        "",
        f"   {_image(images, 'bootsel.png', 'The BOOTSEL button, held while the USB cable goes in')}",
        "3. Copy the UF2 file onto that drive. The board restarts into MicroPython (the drive disappears).",
        "",
        "## 7. Deploy the firmware",
        "",
        "With the board plugged in, copy the bundle onto it. The command finds the board (`--port auto`; "
        "or name it, `--port /dev/ttyACM0`), stops what runs on it, copies the bundle with mpremote and "
        "restarts it:",
        "",
        shell("shutbox firmware deploy --bundle fw"),
        "",
        f"On Linux the board's serial port (`/dev/ttyACM0`) belongs to the `{PORT_GROUP}` group (`{ARCH_PORT_GROUP}` "
        "on Arch); if a command says \"permission denied\" for the port, add yourself to that group once, then "
        "log out and back in (a new terminal is not enough):",
        "",
        shell(group_command()),
        "",
        "## 8. Test each tile",
        "",
        "With the box plugged in and every tile open, run the wiring test:",
        "",
        shell("shutbox monitor --test"),
        "",
        "It tells you what to do, "
        "one step at a time (\"shut tile 4 now\", \"open tile 4 again\""
        + (", then \"press the button now\"" if pins.button is not None else "")
        + "), and reports every switch that is **stuck** (reads shut while open), **noisy** (flickers), "
        "**swapped** (reads as another tile) or **dead** (never reads shut), naming the GPIO and header pin "
        + ("(or the 74HC165 input) " if pins.chips else "")
        + "to check; it exits with status 1 when it found a fault. A dead tile is a broken joint or "
        + ("a switch not pushed up to its pocket's roof, so the tile's cam does not press its lever far enough "
           "(check the joint with a multimeter, and the seat)." if kit.sensors.lever else
           "a magnet that does not sit over its switch when shut (check the joint with a multimeter, and the magnet's "
           "pole).")
        + " Without `--test` it prints a line for every change, listing the shut tiles, until Ctrl-C:",
        "",
        shell("shutbox monitor"),
    ]
    return lines
