"""A written board read back: each footprint's reference, place and pads' nets, as KiCad will see them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from shutbox.cad.board.sexpr import Node, child, children, loads


@dataclass(frozen=True)
class Placed:
    """A footprint of a written board: reference, position in KiCad's frame, pad name -> net name (or None)."""

    ref: str
    name: str
    at: tuple[float, float]
    nets: dict[str, str | None]
    properties: dict[str, str]

    def box_xy(self, width: float) -> tuple[float, float]:
        """Its position in the box frame of a box ``width`` deep (KiCad's y runs down)."""
        return self.at[0], width - self.at[1]


def read_board(path: Path) -> list[Placed]:
    """The footprints of the board file at ``path``."""
    tree = loads(path.read_text(encoding="utf-8"))
    if not tree or tree[0] != "kicad_pcb":
        raise ValueError(f"{path} is not a KiCad board")
    return [_placed(node) for node in children(tree, "footprint")]


def _placed(node: Node) -> Placed:
    at = child(node, "at")
    props = {str(p[1]): str(p[2]) for p in children(node, "property")}
    nets: dict[str, str | None] = {}
    for pad in children(node, "pad"):
        net = child(pad, "net")
        nets[str(pad[1])] = str(net[2]) if net is not None and len(net) > 2 else None
    assert at is not None
    return Placed(props.get("Reference", ""), str(node[1]), (float(at[1]), float(at[2])), nets, props)  # type: ignore[arg-type]


def segments(path: Path) -> list[Node]:
    """The board's track segments (for counting)."""
    return children(loads(path.read_text(encoding="utf-8")), "segment")
