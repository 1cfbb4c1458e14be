"""The kit studio's API without building anything: the form's schema is the settings model, a refused setting is
refused beside its field in the command line's own words, and the server takes the live scoreboard's care (bounded
bodies, the page's own JSON only, ids and file names looked up, never paths; one terminal line per refusal)."""

from __future__ import annotations

import dataclasses
import re
import warnings

import pytest

from shutbox.kit.model import SECTIONS, SETTINGS
from shutbox.studio import server as studio_server
from shutbox.studio.schema import form_schema
from shutbox.studio.server import MAX_BODY, THREE_VERSION, VENDORED, Studio, packaged
from tests.conftest import run_cli

with warnings.catch_warnings():  # Starlette's test client (the app in this process, no server) warns of its httpx
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


@pytest.fixture
def studio():
    lines: list[str] = []
    made = Studio("127.0.0.1", 0, workers=1, say=lines.append)
    made.lines = lines  # type: ignore[attr-defined]
    yield made
    made.stop()


@pytest.fixture
def client(studio):
    return TestClient(studio.asgi(), base_url="http://127.0.0.1:8765")


def post(client, body, **headers):
    return client.post("/api/builds", json=body, headers=headers)


def test_the_schema_is_every_setting_of_the_model_in_its_groups(client):
    schema = client.get("/api/settings").json()
    assert [g["name"] for g in schema["groups"]] == list(SECTIONS)
    assert [(s["group"], s["name"]) for s in schema["settings"]] == [(s.section, s.name) for s in SETTINGS]
    for item, setting in zip(schema["settings"], SETTINGS, strict=True):
        assert item["help"] == setting.help and item["allowed"] == setting.allowed()
        assert item["min"] == setting.minimum and item["max"] == setting.maximum
        assert item["choices"] == (list(setting.choices) if setting.choices is not None else None)
    by_key = {s["key"]: s for s in schema["settings"]}
    assert by_key["rules.tiles"]["type"] == "int" and by_key["rules.tiles"]["default"] == 9
    assert by_key["box.length_mm"]["type"] == "float" and by_key["box.length_mm"]["unit"] == "mm"
    assert by_key["firmware.debounce_ms"]["unit"] == "ms"
    assert by_key["rules.one_die_forced"]["type"] == "bool"
    assert by_key["rules.scoring"]["type"] == "choice" and by_key["rules.scoring"]["choices"] == ["sum", "digits"]
    assert by_key["rules.dice"]["nullable"] and by_key["rules.dice"]["default"] is None
    assert "mini" in by_key["printer.bed"]["suggestions"]


def test_a_setting_the_model_adds_is_in_the_schema(monkeypatch):
    from shutbox.kit import model

    @dataclasses.dataclass(frozen=True)
    class Extra:
        """Something new."""

        knob_mm: float = model.param(2.0, "a new knob, mm", minimum=1, maximum=3)

    sections = {**model.SECTIONS, "extra": Extra}
    monkeypatch.setattr(model, "SECTIONS", sections)
    added = tuple(model.settings())
    monkeypatch.setattr("shutbox.studio.schema.SETTINGS", added)
    monkeypatch.setattr("shutbox.studio.schema.SECTIONS", sections)
    schema = form_schema()
    assert schema["groups"][-1] == {"name": "extra", "title": "Something new"}
    knob = schema["settings"][-1]
    assert (knob["key"], knob["type"], knob["unit"], knob["min"], knob["max"], knob["default"]) == \
        ("extra.knob_mm", "float", "mm", 1, 3, 2.0)


#: (the settings as the page posts them, the same as `shutbox kit` flags, the field the refusal is beside)
REFUSED = [
    ({"rules": {"tiles": "13"}}, ["--tiles", "13"], "rules.tiles"),
    ({"rules": {"tiles": "twelve"}}, ["--tiles", "twelve"], "rules.tiles"),
    ({"printer": {"bed": "10x10x10"}}, ["--bed", "10x10x10"], "printer.bed"),
    ({"tile_fit": {"detent_mm": "0.3"}}, ["--detent", "0.3"], "tile_fit.detent_mm"),
    ({"rules": {"dice": "3", "tiles": "12"}}, ["--dice", "3", "--tiles", "12"], "rules.dice"),
    # the command line says this one after building the CAD (the firmware comes last); the studio before
    pytest.param({"firmware": {"pins": "1,2"}}, ["--pins", "1,2"], "firmware.pins", marks=pytest.mark.slow),
    ({"rules": {"scoring": "digit"}}, ["--scoring", "digit"], "rules.scoring"),
]


@pytest.mark.parametrize(("settings", "flags", "field"), REFUSED)
def test_a_refused_setting_is_refused_beside_its_field_in_the_command_lines_words(client, tmp_path, settings,
                                                                                  flags, field):
    answer = post(client, {"settings": settings})
    assert answer.status_code == 400
    assert answer.json()["field"] == field
    cli = run_cli("kit", *flags, "--out", str(tmp_path / "kit"))
    assert cli.returncode == 2 and not (tmp_path / "kit").exists()
    assert cli.stderr.strip().splitlines()[-1] == f"shutbox: error: {answer.json()['error']}"


def test_an_unknown_setting_is_refused_with_the_models_hint(client):
    answer = post(client, {"settings": {"rules": {"tilez": 12}}})
    assert answer.status_code == 400
    assert answer.json()["error"] == "settings: unknown setting 'rules.tilez'; did you mean 'rules.tiles'?"
    assert post(client, {"rules": {"tiles": 12}}).status_code == 400  # not in {"settings": ...}
    assert post(client, {"settings": {"rules": 12}}).status_code == 400


def test_the_studios_own_cache_limit_is_not_the_visitors(client):
    schema = {s["key"]: s for s in client.get("/api/settings").json()["settings"]}
    assert not schema["cad.cache_limit_mb"].get("held")  # this studio was not given one
    studio = Studio("127.0.0.1", 0, held={"cad.cache_limit_mb": 500})
    try:
        held = TestClient(studio.app(), base_url="http://127.0.0.1:8765")
        item = {s["key"]: s for s in held.get("/api/settings").json()["settings"]}["cad.cache_limit_mb"]
        assert item["held"] and item["default"] == 500
        answer = held.post("/api/builds", json={"settings": {"cad": {"cache_limit_mb": 10}}})
        assert answer.status_code == 400 and answer.json()["field"] == "cad.cache_limit_mb"
    finally:
        studio.stop()


def test_equal_settings_share_one_build_and_others_get_their_own(client, studio):
    first = post(client, {"settings": {"rules": {"tiles": 12}, "printer": {"bed": "mini"}}})
    again = post(client, {"settings": {"printer": {"bed": "mini"}, "rules": {"tiles": "12"}}})
    other = post(client, {"settings": {"rules": {"tiles": 10}}})
    assert first.status_code == again.status_code == other.status_code == 202
    assert first.json()["id"] == again.json()["id"] != other.json()["id"]
    assert first.json()["state"] == "queued"  # the pool was not started: nothing is built here
    status = client.get(f"/api/builds/{first.json()['id']}").json()
    assert status["settings"]["rules"]["tiles"] == 12 and status["settings"]["printer"]["bed"] == "mini"
    assert client.get(f"/api/builds/{first.json()['id']}/kit.zip").status_code == 409
    assert client.get(f"/api/builds/{first.json()['id']}/preview.glb").status_code == 409


def test_a_body_over_the_limit_is_refused_unread(client, studio):
    answer = client.post("/api/builds", content=b"{" + b" " * (MAX_BODY + 10) + b"}",
                         headers={"Content-Type": "application/json"})
    assert answer.status_code == 413
    assert studio.lines == [f"studio: refused POST /api/builds from testclient: 413, the body is over {MAX_BODY} "
                            "bytes"]


def test_only_the_pages_own_json_is_taken(client, studio):
    assert client.post("/api/builds", content=b"settings", headers={"Content-Type": "text/plain"}).status_code == 415
    assert client.post("/api/builds", content=b"{not json", headers={"Content-Type": "application/json"}
                       ).status_code == 400
    assert post(client, {"settings": {}}, Origin="http://evil.example").status_code == 403
    rebound = TestClient(studio.asgi(), base_url="http://evil.example:8765")
    assert rebound.get("/api/settings").status_code == 403  # DNS rebinding onto this computer's studio
    assert len(studio.lines) == 4 and all(line.startswith("studio: refused ") for line in studio.lines)
    assert "requests from http://evil.example are not accepted" in studio.lines[2]


@pytest.mark.parametrize("path", ["/static/../page.html", "/static/%2e%2e/server.py", "/static/server.py",
                                  "/static//etc/passwd", "/api/builds/..%2f..%2fetc", "/api/builds/0123456789abcdef",
                                  "/api/builds/0123456789abcdef/kit.zip", "/api/builds/0123456789abcdef/../x",
                                  "/etc/passwd", "/static/three/build/three.core.js"])
def test_no_request_names_a_file(client, studio, path):
    answer = client.get(path)
    assert answer.status_code == 404
    assert len(studio.lines) == 1 and studio.lines[0].startswith("studio: refused GET ")


def test_the_page_and_three_js_are_served_from_the_package_offline(client):
    page = client.get("/")
    assert page.status_code == 200 and "<title>Shut the Box kit studio</title>" in page.text
    script = client.get("/static/studio.js").text
    for text in (page.text, script):  # every address the page loads is the studio's own
        assert re.findall(r"https?://", text) == []
    for name, path in VENDORED.items():
        served = client.get(f"/static/{name}")
        assert served.status_code == 200 and served.content == packaged(path)
    core = client.get("/static/three.core.js").text
    assert f"const REVISION = '{THREE_VERSION.split('.')[1]}';" in core
    licence = client.get("/static/LICENSE.three.txt").text
    assert licence.startswith("The MIT License") and "three.js authors" in licence
    assert THREE_VERSION in packaged("three/VENDORED.md").decode()
    assert studio_server.VENDORED["three.module.js"].startswith("three/build/")


def test_a_build_is_cancelled_when_the_last_page_that_posted_it_leaves(client, studio):
    key = post(client, {"settings": {"rules": {"tiles": 12}}}).json()["id"]
    assert post(client, {"settings": {"rules": {"tiles": 12}}}).json()["id"] == key
    assert client.delete(f"/api/builds/{key}", headers={"Origin": "http://evil.example"}).status_code == 403
    assert client.delete(f"/api/builds/{key}").json()["state"] == "queued"  # the other page still wants it
    gone = client.delete(f"/api/builds/{key}").json()
    assert (gone["state"], gone["reason"]) == ("failed", "cancelled")
    assert client.delete("/api/builds/not-an-id").status_code == 404


def test_a_full_queue_answers_503_with_when_to_try_again(client, studio):
    from shutbox.studio.builds import QUEUED_MAX

    for n in range(QUEUED_MAX):  # the pool is not started: every build waits
        assert post(client, {"settings": {"box": {"length_mm": 300 + n}}}).status_code == 202
    answer = post(client, {"settings": {"box": {"length_mm": 299}}})
    assert answer.status_code == 503 and answer.headers["retry-after"] == "30"
    assert answer.json()["error"] == f"{QUEUED_MAX} builds are waiting already; try again in a minute"
    assert post(client, {"settings": {"box": {"length_mm": 300}}}).status_code == 202  # one queued: shared
    assert studio.lines == [f"studio: refused POST /api/builds from testclient: 503, {answer.json()['error']}"]


def test_a_failure_of_the_studio_is_one_line_and_a_json_500(client, studio, monkeypatch):
    def broken(key):
        raise RuntimeError("the pool broke")

    monkeypatch.setattr(studio.pool, "get", broken)
    answer = client.get("/api/builds/0123456789abcdef")
    assert answer.status_code == 500 and answer.json() == {"ok": False, "error": "the studio could not answer that"}
    assert studio.lines == ["studio: GET /api/builds/0123456789abcdef failed (RuntimeError: the pool broke)"]
