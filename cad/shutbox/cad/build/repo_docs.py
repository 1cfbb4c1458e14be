"""The repository's own copy of the default kit's guide: ``python -m shutbox.cad.build.repo_docs`` rewrites
``docs/build.md`` and ``docs/img/cad-*.png`` from a build of the default kit."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

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
    lay, split, specs = plan(kit)
    (docs / "build.md").write_text(build_notes(kit, lay, split, specs, images="img/cad-", seated=True),
                                   encoding="utf-8")


if __name__ == "__main__":
    write_repo_notes()
