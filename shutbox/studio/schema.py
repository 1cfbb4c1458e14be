"""The studio's form, read from the settings model, and the check of what the form sends.

:func:`form_schema` is ``GET /api/settings``: every setting of :data:`shutbox.kit.model.SETTINGS` with its group (the
model's section), type, default, range, unit, choices and help, so a setting the model adds is on the page with no
change here. :func:`check_settings` reads a body in ``shutbox.toml``'s shape (``{"rules": {"tiles": 12}}``) as the
command line reads its flags, and refuses what ``shutbox kit`` would refuse before it builds, in the same words
(:class:`Refusal`, with the field the message is about).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from shutbox.base.errors import ShutboxError
from shutbox.base.text import shown
from shutbox.cad.build.export import plan
from shutbox.firmware.host.plan import pin_map
from shutbox.kit.model import BED_PRESETS, SECTIONS, SETTINGS, Kit, Setting, box_refusal, build_kit

#: What ``shutbox kit`` is refused with when the tiles or dice are not the box's (its own words, same call).
KIT_WHAT = "the kit (box, firmware and dice)"
#: Setting-name endings and the unit each means (the model's naming: ``length_mm``, ``debounce_ms`` …).
UNITS = {"_mm": "mm", "_ms": "ms", "_deg": "degrees", "_mb": "MB"}
#: Most settings one body may name (there are far fewer; a body naming more is not the form's).
MAX_NAMED = 400

_BY_KEY = {s.key: s for s in SETTINGS}
_BY_FLAG = {s.flag: s for s in SETTINGS}
_FLAG_AT_START = re.compile(r"(--[a-z][a-z0-9-]*)")


@dataclass(frozen=True)
class Refusal(Exception):
    """Settings ``shutbox kit`` would refuse: its message, and the field (``rules.tiles``) it is about, if one."""

    field: str | None
    message: str

    def __str__(self) -> str:
        return self.message


def _kind(setting: Setting) -> tuple[str, bool]:
    """The form's type of ``setting`` (``int``, ``float``, ``bool``, ``choice``, ``text``) and whether it may be
    none, read from the model's field declaration."""
    declared = next(f for f in dataclasses.fields(SECTIONS[setting.section]) if f.name == setting.name)
    annotation = str(declared.type).replace(" ", "")
    nullable = "None" in annotation.split("|") or setting.default is None
    if setting.choices is not None:
        return "choice", nullable
    if setting.is_switch:
        return "bool", nullable
    base = annotation.split("|")[0]
    return (base if base in ("int", "float") else "text"), nullable


def _unit(setting: Setting) -> str | None:
    return next((unit for end, unit in UNITS.items() if setting.name.endswith(end)), None)


def _group_title(section: str) -> str:
    doc = (SECTIONS[section].__doc__ or section).strip().splitlines()[0]
    return doc.rstrip(".").replace("``", "")


def _json_value(value: Any) -> Any:
    """A default or choice as JSON carries it (the model's values are plain already; a tuple becomes a list)."""
    return list(value) if isinstance(value, tuple) else value


def form_schema() -> dict[str, Any]:
    """``GET /api/settings``: the groups in the model's order and every setting (see the module docstring)."""
    fields = []
    for s in SETTINGS:
        kind, nullable = _kind(s)
        fields.append({
            "name": s.name, "group": s.section, "key": s.key, "type": kind, "nullable": nullable,
            "default": _json_value(s.default), "min": s.minimum, "max": s.maximum,
            "exclusive_min": s.exclusive_minimum, "unit": _unit(s),
            "choices": [_json_value(c) for c in s.choices] if s.choices is not None else None,
            "help": s.help, "flag": s.flag, "allowed": s.allowed(),
            "suggestions": list(BED_PRESETS) if s.key == "printer.bed" else None,
        })
    groups = [{"name": name, "title": _group_title(name)} for name in SECTIONS]
    return {"groups": groups, "settings": fields}


def flatten(body: Any) -> dict[str, Any]:
    """``{"settings": {"rules": {"tiles": 12}}}`` as ``{"rules.tiles": 12}``; :class:`Refusal` for another shape
    (the names themselves are checked by :func:`check_settings`, as the model checks a settings file's)."""
    if not isinstance(body, dict) or set(body) - {"settings"}:
        raise Refusal(None, 'send {"settings": {SECTION: {NAME: VALUE}}}, the shape of shutbox.toml')
    tables = body.get("settings", {})
    if not isinstance(tables, dict):
        raise Refusal(None, '"settings" must be an object of sections, as the tables of shutbox.toml')
    values: dict[str, Any] = {}
    for section, table in tables.items():
        if not isinstance(table, dict):
            raise Refusal(None, f"settings: '{shown(section)}' must be a table of settings, as [{shown(section)}] "
                                "in shutbox.toml")
        for name, value in table.items():
            values[f"{section}.{name}"] = value
            if len(values) > MAX_NAMED:
                raise Refusal(None, f"settings: more than {MAX_NAMED} settings named")
    return values


def _field_of(message: str) -> str | None:
    """The setting a refusal is about: the flag it starts with (``--tiles 13: …``), as the model words them."""
    found = _FLAG_AT_START.match(message)
    setting = _BY_FLAG.get(found.group(1)) if found else None
    return setting.key if setting is not None else None


def check_settings(values: dict[str, Any]) -> Kit:
    """The kit for ``{"section.name": value}`` (unnamed settings keep their defaults), or :class:`Refusal` with the
    message ``shutbox kit`` gives for the same values as flags: the model's check of each value and of the rules
    together, the box's tile count, the plan of the parts (sizes, the bed) and the firmware's pin plan."""
    sources = {key: _BY_KEY[key].flag for key in values if key in _BY_KEY}
    try:
        kit = build_kit(values, sources)
        refusal = box_refusal(kit.rules, KIT_WHAT, dice=True)
        if refusal:
            raise ShutboxError(refusal)
        plan(kit)
        if kit.sensors.kind != "none":
            pin_map(kit)
    except ShutboxError as exc:
        message = str(exc)
        raise Refusal(_field_of(message), message) from None
    return kit
