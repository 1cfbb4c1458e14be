"""Smart dice over a fake radio at bleak's own boundary (``BleakClient(..., backend=FakeClient)``): found, chosen
by name, connected, listened to, asked for their battery, reconnected by themselves; no adapter is one line."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable

import pytest

from shutbox.base.errors import ShutboxError
from shutbox.dice.ble.protocol import GODICE, PIXELS
from shutbox.dice.ble.radio import radio_refusal
from shutbox.dice.ble.source import DiceFeed, DiceSource
from shutbox.dice.ble.throws import Said, Seen, Thrown
from tests.smartdice_support import (
    LANDED,
    ROLLING,
    BrokenScanner,
    FakeClient,
    FakeDie,
    FakeScanner,
    on_air,
)

OPTIONS = {"client_backend": FakeClient, "scanner_backend": FakeScanner, "retry_s": 0.05}


class Running:
    """A DiceFeed of fake dice in a thread; what it sees is queued."""

    def __init__(self, source: DiceSource, count: int = 2, **options: object) -> None:
        self.seen: queue.Queue[Seen] = queue.Queue()
        self.error: list[BaseException] = []
        self.feed = DiceFeed(source, count, self.seen.put, radio_options={**OPTIONS, **options})
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.feed.run()
        except ShutboxError as exc:
            self.error.append(exc)

    def until(self, test: Callable[[Seen], bool], timeout: float = 10.0) -> Seen:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                item = self.seen.get(timeout=0.1)
            except queue.Empty:
                continue
            if test(item):
                return item
        raise AssertionError("not seen in time")

    def stop(self) -> None:
        self.feed.stop()
        self.thread.join(timeout=10)
        assert not self.thread.is_alive()


def said(text: str) -> Callable[[Seen], bool]:
    return lambda s: isinstance(s, Said) and text in s.text


def connected(die: FakeDie) -> bool:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if die.client is not None and die.client.notify is not None:
            return True
        time.sleep(0.02)
    return False


def roll(die: FakeDie, face: int) -> None:
    die.send(ROLLING[die.protocol.name])
    time.sleep(0.05)
    die.send(LANDED[die.protocol.name](face))


@pytest.mark.parametrize("protocol", [GODICE, PIXELS])
def test_the_first_dice_found_are_connected_and_their_throws_read(protocol):
    a, b = FakeDie("AA:01", f"{protocol.name_prefix}_1", protocol), FakeDie("AA:02", f"{protocol.name_prefix}_2",
                                                                             protocol, battery=9)
    on_air(a, b)
    run = Running(DiceSource(protocol.name))
    try:
        run.until(said(f"{b.name} ({protocol.label}) connected"))
        low = run.until(said("battery"))
        assert isinstance(low, Said) and low.text == f"{b.name}'s battery is at 9 %: charge it soon"
        assert a.writes[:1] == [protocol.battery_request] and b.writes[:1] == [protocol.battery_request]
        assert connected(a) and connected(b)
        roll(a, 6)
        roll(b, 3)
        thrown = run.until(lambda s: isinstance(s, Thrown))
        assert isinstance(thrown, Thrown) and thrown.dice == (3, 6) and thrown.protocol == protocol.name
    finally:
        run.stop()
    assert not run.error


def test_two_sets_near_one_another_are_told_apart_by_name():
    mine = [FakeDie("AA:01", "GoDice_red"), FakeDie("AA:02", "GoDice_blue")]
    theirs = [FakeDie("BB:01", "GoDice_X"), FakeDie("BB:02", "GoDice_Y")]
    on_air(theirs[0], mine[0], theirs[1], mine[1])
    run = Running(DiceSource("godice", ("godice_blue", "AA:01")))  # a name (any case) and an address
    try:
        assert connected(mine[0]) and connected(mine[1])
        time.sleep(0.2)
        assert theirs[0].client is None and theirs[1].client is None
        roll(mine[0], 2)
        roll(mine[1], 5)
        thrown = run.until(lambda s: isinstance(s, Thrown))
        assert isinstance(thrown, Thrown) and thrown.dice == (2, 5)
    finally:
        run.stop()


def test_a_die_that_drops_out_is_named_and_rejoins_by_itself():
    a, b = FakeDie("AA:01", "GoDice_1"), FakeDie("AA:02", "GoDice_2")
    on_air(a, b)
    run = Running(DiceSource("godice"))
    try:
        assert connected(a) and connected(b)
        roll(a, 4)
        b.refuse_connects = 2  # out of reach for two tries
        b.drop()
        run.until(said("GoDice_2 disconnected; the throw waits"))
        run.until(said("GoDice_2 is back"))
        assert connected(b)
        roll(b, 1)
        thrown = run.until(lambda s: isinstance(s, Thrown))
        assert isinstance(thrown, Thrown) and thrown.dice == (1, 4)  # A's face, said before B went, kept
    finally:
        run.stop()


def test_the_radio_is_tried_before_anything_is_written():
    assert radio_refusal(GODICE, FakeScanner) is None
    assert radio_refusal(PIXELS, BrokenScanner) == ("Pixels dice: Bluetooth cannot be used here (No Bluetooth "
                                                    "adapters found.); is there an adapter, and is Bluetooth on?")


def test_no_bluetooth_adapter_is_one_clear_error():
    on_air(FakeDie("AA:01", "GoDice_1"))
    run = Running(DiceSource("godice"), scanner_backend=BrokenScanner)
    run.thread.join(timeout=10)
    assert not run.thread.is_alive()
    assert [str(e) for e in run.error] == ["GoDice dice: Bluetooth cannot be used here (No Bluetooth adapters "
                                           "found.); is there an adapter, and is Bluetooth on?"]
