"""The repository's own copy of the default kit's guide: ``python -m shutbox.cad.build.repo_docs`` rewrites
``docs/build.md``, ``docs/img/cad-*.png`` from a build of the default kit and ``docs/img/pcb-*.svg`` from its
circuit board (``kicad-cli`` draws them)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from shutbox.cad.board.folder import write_board
from shutbox.cad.board.kicad import STEM
from shutbox.cad.build.export import build_cad, plan
from shutbox.cad.guide.buildnotes import build_notes
from shutbox.cad.guide.sensorviews import sensor_views
from shutbox.kit.model import Kit


def write_repo_notes(docs: Path | None = None) -> None:
    """Regenerate the repository's ``docs/build.md`` and ``docs/img/cad-*.png`` for the default kit."""
    docs = docs or Path(__file__).resolve().parents[4] / "docs"  # cad/shutbox/cad/build/ -> the repository
    kit = Kit()
    with tempfile.TemporaryDirectory(prefix="shutbox-docs-") as tmp:
        manifest = build_cad(kit, Path(tmp), ("stl",), progress=False)
        parts = {Path(part["preview"]).name for part in manifest["parts"]}
        for rel in manifest["previews"]:
            name = Path(rel).name
            if name not in parts:  # the kit's views and the guide's figures
                shutil.copy2(Path(tmp) / rel, docs / "img" / f"cad-{name}")
    with tempfile.TemporaryDirectory(prefix="shutbox-docs-") as tmp:  # rendered from the model (a box build each)
        for name in sensor_views(Path(tmp), kit):
            shutil.copy2(Path(tmp) / name, docs / "img" / f"cad-{name}")
    write_board_pictures(kit, docs)
    write_repo_guide(kit, docs)


#: Where the repository's guide finds the board's pictures.
BOARD_PICTURES = "img/pcb-"


def write_board_pictures(kit: Kit, docs: Path) -> None:
    """``docs/img/pcb-front.svg`` and ``-back.svg``: the default kit's board as ``shutbox pcb`` draws it."""
    with tempfile.TemporaryDirectory(prefix="shutbox-docs-") as tmp:
        write_board(kit, Path(tmp))
        for side in ("front", "back"):
            shutil.copy2(Path(tmp) / f"{STEM}-{side}.svg", docs / f"{BOARD_PICTURES}{side}.svg")


def write_repo_guide(kit: Kit, docs: Path) -> None:
    """``docs/build.md`` alone (the pictures as they are)."""
    lay, split, specs = plan(kit)
    (docs / "build.md").write_text(build_notes(kit, lay, split, specs, images="img/cad-", seated=True,
                                               boards=BOARD_PICTURES), encoding="utf-8")


if __name__ == "__main__":
    write_repo_notes()
