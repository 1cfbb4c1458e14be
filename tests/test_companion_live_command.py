"""Reading input into commands (shutbox.companion.live.inputs) and the commands themselves
(shutbox.companion.live.command):
a typed line, a web POST body and the box's press count each become one typed command object."""

from __future__ import annotations

import pytest

from shutbox.companion.live.command import BoxSeen, End, Help, Hint, Move, Quit, Throw, Undo
from shutbox.companion.live.inputs import ButtonCounter, NotUnderstood, from_post, parse_line
from shutbox.firmware.host.protocol import PRESSES_MODULO


@pytest.mark.parametrize(("line", "command"), [
    ("3 5", Throw((3, 5))),
    ("  3,5 ", Throw((3, 5))),
    ("3+5", Throw((3, 5))),
    ("4", Throw((4,))),
    ("7 1", Throw((7, 1))),  # the form is a throw; the rules engine says a die shows 1 to 6
    ("= 27", Throw(total=27)),
    ("total 12", Throw(total=12)),
    ("END", End()),
    ("undo", Undo()),
    ("hint", Hint()),
    ("?", Help()),
    ("q", Quit()),
    ("shut 9, 3", Move((9, 3), "shut")),
    ("open 4", Move((4,), "open")),
    ("uncover 4 5", Move((4, 5), "open")),
    ("tiles 1 2", Move((1, 2), "either")),
])
def test_a_typed_line_is_one_command(line, command):
    assert parse_line(line) == command


def test_an_empty_line_is_no_command_and_nonsense_says_so():
    assert parse_line("   ") is None
    with pytest.raises(NotUnderstood, match="^'three': not understood$"):
        parse_line("three")
    with pytest.raises(NotUnderstood, match=r"^shut 'nine': give tile numbers, e.g. 'shut 3 5'$"):
        parse_line("shut nine")
    with pytest.raises(NotUnderstood):
        parse_line("1 2 3 4 5 6 7 8 9 1")  # more dice than any set has


def test_the_source_travels_with_the_command():
    assert parse_line("3 5", source="script") == Throw((3, 5), source="script")
    assert Throw((3, 5), source="camera").value == 8 and Throw(total=27).value == 27
    assert BoxSeen(frozenset({3})).source == "box"


def test_a_throw_is_its_dice_or_its_total():
    with pytest.raises(ValueError, match="not both or neither"):
        Throw()
    with pytest.raises(ValueError, match="not both or neither"):
        Throw((3, 4), total=7)


def test_a_web_post_is_one_command_checked_for_its_shape():
    assert from_post("throw", {"dice": [6, 6]}) == Throw((6, 6), source="phone")
    assert from_post("shut", {"tiles": [9, 3]}) == Move((9, 3), "either", "phone")
    assert from_post("end", None) == End("phone") and from_post("undo", None) == Undo("phone")
    for body in ({"dice": "6 6"}, {"dice": []}, {"dice": [True, 1]}, {"dice": [-1]}, [], None):
        with pytest.raises(ValueError, match=r"expected \{\"dice\": \[3, 5\]\}"):
            from_post("throw", body)
    with pytest.raises(ValueError, match="at most 9 dice, not 10"):
        from_post("throw", {"dice": [1] * 10})


def test_the_button_count_rises_by_a_press_and_a_restart_is_no_press():
    button = ButtonCounter()
    assert not button.pressed(5)  # the first count of a connection only sets the mark
    assert button.pressed(6)
    assert not button.pressed(6)  # a heartbeat repeating the count
    assert not button.pressed(5)  # counting back
    assert button.pressed(0) is False and button.pressed(PRESSES_MODULO - 1) is False  # round the modulo, back
    button.reset()
    assert not button.pressed(0) and button.pressed(1)
    assert not button.pressed(1 + 500)  # a jump: the box restarted
