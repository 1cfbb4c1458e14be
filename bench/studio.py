"""Benchmark: the kit studio on a warm part cache, from a post of new settings to the preview and to the zip.

A real studio (``shutbox.studio.server.Studio`` on 127.0.0.1, its pool of ``shutbox kit`` processes) is asked over
HTTP as its page asks it. First the cache is warmed: the default kit and the 12-tile kit for a mini's bed are built
once (minutes when the cache is cold). Then each measured change is posted to a fresh studio (no finished build to
share), timed until its preview is served (``GET /api/builds/ID/preview.glb``) and until its zip is:

- **tiles**: the 12-tile kit for the mini, then back to the 9-tile default -- a change that moves tiles, every part
  of it in the part cache (the kit's assembly too);
- **text**: the 12-tile mini kit with another stake, scoring or match -- only the pads' and card's text change (the
  parts are cached; the assembly and the guide's pictures are made again for the new settings).

Goals (issue 45): the preview within 5 s, the zip within 60 s, for every change; exit status 1 when one misses.
``SHUTBOX_CACHE_DIR`` picks the cache (default: a folder of this benchmark's own, kept between runs in /tmp).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

os.environ.setdefault("SHUTBOX_CACHE_DIR", "/tmp/shutbox-bench-studio-cache")

from shutbox.studio.server import Studio  # noqa: E402

PREVIEW_BUDGET_S = 5.0
ZIP_BUDGET_S = 60.0
MINI_12 = {"rules": {"tiles": 12}, "printer": {"bed": "mini"}}
WARM = [MINI_12, {}]
CHANGES: list[tuple[str, dict[str, Any]]] = [
    ("tiles: 12 on a mini", MINI_12),
    ("tiles: back to 9", {}),
    ("text: stake 1", {"rules": {"tiles": 12, "stake": 1}, "printer": {"bed": "mini"}}),
    ("text: scoring digits", {"rules": {"tiles": 12, "scoring": "digits"}, "printer": {"bed": "mini"}}),
    ("text: match drop-out", {"rules": {"tiles": 12, "match": "drop-out"}, "printer": {"bed": "mini"}}),
]


def ready_studio() -> Studio:
    """A studio serving, its preview process loaded (as a studio that has run a minute is)."""
    studio = Studio("127.0.0.1", 0, workers=2, say=lambda line: None).start()
    studio.pool.standby.wait_ready(60)
    return studio


def build(client: httpx.Client, settings: dict[str, Any], timeout: float) -> tuple[float, float, dict[str, Any]]:
    """Post ``settings``; seconds until the preview was fetched and until the zip was; the final status."""
    start = time.perf_counter()
    answer = client.post("/api/builds", json={"settings": settings})
    assert answer.status_code == 202, answer.text
    key = answer.json()["id"]
    preview_s = zip_s = None
    status: dict[str, Any] = answer.json()
    while time.perf_counter() - start < timeout:
        status = client.get(f"/api/builds/{key}").json()
        if status["state"] == "failed":
            raise SystemExit(f"the build failed: {status['reason']}")
        if preview_s is None and status["preview"]:
            assert client.get(f"/api/builds/{key}/preview.glb").content[:4] == b"glTF"
            preview_s = time.perf_counter() - start
        if status["state"] == "done":
            assert client.get(f"/api/builds/{key}/kit.zip").content[:2] == b"PK"
            zip_s = time.perf_counter() - start
            break
        time.sleep(0.05)
    if preview_s is None or zip_s is None:
        raise SystemExit(f"no kit within {timeout:.0f} s: {status}")
    return preview_s, zip_s, status


def main() -> int:
    print(f"cache: {os.environ['SHUTBOX_CACHE_DIR']}")
    studio = ready_studio()
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{studio.port}", timeout=60) as client:
            for settings in WARM:
                preview_s, zip_s, _ = build(client, settings, 1800)
                print(f"warm-up {settings or 'defaults'}: preview {preview_s:.1f} s, zip {zip_s:.1f} s")
    finally:
        studio.stop()
    worst_preview = worst_zip = 0.0
    print(f"{'change':28} {'preview':>8} {'zip':>7}")
    for name, settings in CHANGES:
        studio = ready_studio()
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{studio.port}", timeout=60) as client:
                preview_s, zip_s, status = build(client, settings, 600)
        finally:
            studio.stop()
        worst_preview, worst_zip = max(worst_preview, preview_s), max(worst_zip, zip_s)
        print(f"{name:28} {preview_s:7.2f}s {zip_s:6.1f}s  ({len(status['parts'])} parts, "
              f"{status['zip_bytes'] / 1e6:.1f} MB)")
    ok = worst_preview <= PREVIEW_BUDGET_S and worst_zip <= ZIP_BUDGET_S
    print(f"worst: preview {worst_preview:.2f} s (goal {PREVIEW_BUDGET_S:g} s), zip {worst_zip:.1f} s "
          f"(goal {ZIP_BUDGET_S:g} s): {'ok' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
