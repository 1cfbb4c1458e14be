"""The studio's preview process: ``python -m shutbox.studio.previewer`` loads the CAD libraries, says ``ready``, then
makes one GLB (:func:`shutbox.studio.glb.write_preview`) and exits.

The studio keeps one waiting (:class:`shutbox.studio.builds.Standby`), so a preview does not wait for CadQuery to
load; a preview the studio no longer wants is ended with its process. It reads one line of JSON from stdin,
``{"settings": {"section.name": value}, "out": path}`` (settings the studio checked), and writes one line of JSON
to stdout: ``{"ok": true, "nodes": [...]}`` or ``{"ok": false, "error": "..."}``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> int:
    import cadquery  # noqa: F401  (loaded before the job comes: that is what the process waits for)
    import trimesh.exchange.gltf  # noqa: F401

    from shutbox.base.errors import ShutboxError
    from shutbox.cad.geometry.mesh import load_mesh  # noqa: F401
    from shutbox.kit.model import build_kit
    from shutbox.studio.glb import write_preview

    print("ready", flush=True)
    line = sys.stdin.readline()
    if not line:
        return 0  # the studio stopped without a job for this process
    try:
        job = json.loads(line)
        nodes = write_preview(build_kit(job["settings"]), Path(job["out"]))
    except (ShutboxError, OSError) as exc:
        print(json.dumps({"ok": False, "error": str(exc)}), flush=True)
        return 1
    print(json.dumps({"ok": True, "nodes": nodes}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
