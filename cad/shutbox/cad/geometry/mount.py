"""The camera mount: a post that clips onto the box's front wall and holds a shelf over the middle of the tray,
where a small USB webcam or a phone lies face down, its lens over the shelf's window, looking straight down.

The lens is :attr:`~shutbox.cad.geometry.layout.Layout.camera_height` above the felt (the stated camera,
``CAMERA_HFOV`` and ``CAMERA_IMAGE`` in the layout, frames the whole tray from there), so a die's size in
the picture is known (``Layout.camera_die_px``). :func:`plan_mount` gives every dimension (box frame, as
fitted) and refuses combinations that cannot work with ValueError; :func:`frames_tray` says whether a
camera sees the whole tray from the mount; :func:`build_mount` is the part as printed: upside down, the
shelf's top face on the bed, so the shelf, post and clip print without support (the clip's base stands
on a gusset steeper than 45 degrees; the window is a hole straight up).

As fitted (box frame, y = 0 the box's front face): the post stands outside the front wall, its inner face
:data:`CLIP_PLAY` from the wall; the clip's base rests on the wall's top and its inner leg hangs inside
the tray, so the mount's height is the box's; the shelf reaches back from the post's top over the tray.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from shutbox.cad.geometry.layout import CAMERA_HFOV, CAMERA_IMAGE, Layout, camera_vfov

if TYPE_CHECKING:
    import cadquery as cq

CLIP_PLAY = 0.3  # the clip round the front wall, per side
CLIP_DEPTH = 12.0  # how far the clip's legs reach down the wall from its top
CLIP_LEG = 3.0  # the inner leg's thickness (y)
CLIP_BASE = 3.0  # the base resting on the wall's top (z)
POST_THICKNESS = 6.0  # the post (y); its lower end is the clip's outer leg
POST_WIDTH = 30.0  # the post and the clip (x): narrow, so hands reach the tray past it
SHELF_THICKNESS = 4.0
SHELF_LENGTH = 120.0  # along x: a phone lies along it, its lens over the window and its weight on the shelf
SHELF_BEYOND = 20.0  # shelf behind the window (y)
WINDOW = (30.0, 30.0)  # the lens window (x, y), centred under the lens
RIM = 8.0  # least shelf round the window along x
GUSSET_RISE = 1.25  # the clip base's gusset rises this much per mm it reaches (steeper than 45 degrees)
BRACE = 24.0  # the 45-degree brace between the post and the shelf, each leg (y and z)


@dataclass(frozen=True)
class MountPlan:
    """Every dimension of the mount, in the box frame as fitted (mm)."""

    lens: tuple[float, float, float]  #: the lens: over the tray's middle, on the shelf's top face
    tray: tuple[float, float, float, float]  #: x0, x1, y0, y1 of the tray it frames
    floor: float  #: z of the felt (where the dice lie)
    wall: float  #: the front wall's thickness
    top: float  #: z of the wall's top (the box's height)
    window: tuple[float, float]
    shelf_length: float
    post_width: float

    @property
    def height(self) -> float:
        """The lens above the felt."""
        return self.lens[2] - self.floor

    @property
    def shelf(self) -> tuple[float, float, float, float, float, float]:
        """x0, x1, y0, y1, z0, z1 of the shelf (z1: its top face, the lens's plane)."""
        x, y, z = self.lens
        return (x - self.shelf_length / 2, x + self.shelf_length / 2, self.post_y[0],
                y + self.window[1] / 2 + SHELF_BEYOND, z - SHELF_THICKNESS, z)

    @property
    def post_y(self) -> tuple[float, float]:
        """y of the post's outer and inner faces."""
        return (-CLIP_PLAY - POST_THICKNESS, -CLIP_PLAY)

    @property
    def leg_y(self) -> tuple[float, float]:
        """y of the clip's inner leg (inside the tray, against the wall's inner face)."""
        return (self.wall + CLIP_PLAY, self.wall + CLIP_PLAY + CLIP_LEG)

    @property
    def bottom(self) -> float:
        """z of the clip legs' lower ends."""
        return self.top - CLIP_DEPTH

    @property
    def size(self) -> tuple[float, float, float]:
        """The part's extents as printed (x, y on the bed, z up)."""
        x0, x1, y0, y1, _, z1 = self.shelf
        return (x1 - x0, y1 - y0, z1 - self.bottom)


def plan_mount(lay: Layout, *, height: float | None = None, window: tuple[float, float] = WINDOW,
               shelf_length: float = SHELF_LENGTH, post_width: float = POST_WIDTH) -> MountPlan:
    """The mount for ``lay``'s box with the lens ``height`` above the felt (default: the layout's
    ``camera_height``); ValueError for a combination that cannot be built or would not see the tray."""
    h = lay.camera_height if height is None else height
    wx, wy = window
    if wx <= 0 or wy <= 0:
        raise ValueError(f"a window of {wx:g} x {wy:g} mm; both sides must be above 0")
    if post_width <= 0 or post_width > shelf_length:
        raise ValueError(f"a post {post_width:g} mm wide under a shelf {shelf_length:g} mm long; allowed: above 0 "
                         "and no wider than the shelf")
    if wx + 2 * RIM > shelf_length:
        raise ValueError(f"a window {wx:g} mm across in a shelf {shelf_length:g} mm long; allowed: a shelf at least "
                         f"{wx + 2 * RIM:g} mm long ({RIM:g} mm of shelf each side)")
    x0, x1, y0, y1 = lay.tray
    lens = ((x0 + x1) / 2, (y0 + y1) / 2, lay.tray_floor + h)
    plan = MountPlan(lens, lay.tray, lay.tray_floor, lay.wall, lay.height, window, shelf_length, post_width)
    needed = lay.height + CLIP_BASE + GUSSET_RISE * (plan.leg_y[1] - plan.post_y[1]) + BRACE + SHELF_THICKNESS
    if lens[2] < needed:
        raise ValueError(f"a lens {h:g} mm above the felt is too low for the post over a {lay.height:g} mm box; "
                         f"allowed: at least {math.ceil(needed - lay.tray_floor):g} mm")
    if plan.post_y[1] + BRACE > lens[1] - wy / 2:
        raise ValueError(f"a window {wy:g} mm deep over a tray whose middle is {lens[1]:g} mm from the front reaches "
                         f"over the post's brace; allowed: at most {2 * (lens[1] - plan.post_y[1] - BRACE):.1f} mm")
    if not _through_window(plan):
        raise ValueError(f"a window of {wx:g} x {wy:g} mm cuts off the corners of the tray {h:g} mm below; allowed: "
                         "a larger window, or a higher lens")
    return plan


def tray_corners(plan: MountPlan) -> list[tuple[float, float, float]]:
    """The tray's four corners on the felt."""
    x0, x1, y0, y1 = plan.tray
    return [(x, y, plan.floor) for x in (x0, x1) for y in (y0, y1)]


def _through_window(plan: MountPlan) -> bool:
    """Every ray from the lens to a tray corner leaves through the window's lower opening."""
    x, y, z = plan.lens
    for cx, cy, cz in tray_corners(plan):
        t = SHELF_THICKNESS / (z - cz)
        if abs(cx - x) * t > plan.window[0] / 2 or abs(cy - y) * t > plan.window[1] / 2:
            return False
    return True


def frames_tray(plan: MountPlan, hfov: float = CAMERA_HFOV, image: tuple[int, int] = CAMERA_IMAGE) -> bool:
    """Does a camera of ``hfov`` degrees across the picture's long side (along the box's length), lying on the
    shelf with its lens over the window, see every corner of the tray?"""
    half_x = math.tan(math.radians(hfov) / 2)
    half_y = math.tan(math.radians(camera_vfov(hfov, image)) / 2)
    x, y, z = plan.lens
    return all(abs(cx - x) <= (z - cz) * half_x + 1e-9 and abs(cy - y) <= (z - cz) * half_y + 1e-9
               for cx, cy, cz in tray_corners(plan)) and _through_window(plan)


def _profile_prism(points: list[tuple[float, float]], x0: float, x1: float) -> cq.Workplane:
    """A prism of the (y, z) polygon ``points`` from x0 to x1."""
    import cadquery as cq

    return cq.Workplane("YZ", origin=(x0, 0, 0)).polyline(points).close().extrude(x1 - x0)


def _box(x0: float, x1: float, y0: float, y1: float, z0: float, z1: float) -> cq.Workplane:
    import cadquery as cq

    return cq.Workplane("XY").box(x1 - x0, y1 - y0, z1 - z0, centered=False).translate((x0, y0, z0))


def fitted_mount(plan: MountPlan) -> cq.Shape:
    """The mount in the box frame, as fitted on the front wall."""
    x = plan.lens[0]
    px0, px1 = x - plan.post_width / 2, x + plan.post_width / 2
    sx0, sx1, sy0, sy1, sz0, sz1 = plan.shelf
    outer, inner = plan.post_y
    leg0, leg1 = plan.leg_y
    base = plan.top + CLIP_BASE
    reach = leg1 - inner
    solid = (_box(sx0, sx1, sy0, sy1, sz0, sz1)
             .union(_box(px0, px1, outer, inner, plan.bottom, sz0))  # the post, its foot the clip's outer leg
             .union(_box(px0, px1, outer, leg1, plan.top, base))  # the clip's base, on the wall's top
             .union(_box(px0, px1, leg0, leg1, plan.bottom, base))  # the inner leg
             .union(_profile_prism([(inner, base), (leg1, base), (inner, base + GUSSET_RISE * reach)], px0, px1))
             .union(_profile_prism([(inner, sz0), (inner + BRACE, sz0), (inner, sz0 - BRACE)], px0, px1)))
    wx, wy = plan.window
    solid = solid.cut(_box(x - wx / 2, x + wx / 2, plan.lens[1] - wy / 2, plan.lens[1] + wy / 2, sz0 - 1, sz1 + 1))
    import cadquery as cq

    shape = solid.val()
    assert isinstance(shape, cq.Shape)
    return shape


def build_mount(plan: MountPlan) -> cq.Shape:
    """The mount as printed: turned over (half a turn about x), the shelf's top face on the bed at z = 0, its
    corner at the origin."""
    import cadquery as cq

    turned = fitted_mount(plan).rotate(cq.Vector(0, 0, 0), cq.Vector(1, 0, 0), 180)
    bb = turned.BoundingBox()
    return turned.translate(cq.Vector(-bb.xmin, -bb.ymin, -bb.zmin))


def place_mount(plan: MountPlan, printed: cq.Shape) -> cq.Shape:
    """The printed mount turned back and set on the box's front wall (box frame)."""
    import cadquery as cq

    turned = printed.rotate(cq.Vector(0, 0, 0), cq.Vector(1, 0, 0), 180)
    bb = turned.BoundingBox()
    sx0, _, sy0, _, _, sz1 = plan.shelf
    return turned.translate(cq.Vector(sx0 - bb.xmin, sy0 - bb.ymin, sz1 - bb.zmax))
