"""Smart dice without a radio: the bytes each make sends, replays made of them, and fakes at bleak's boundary.

``godice_*`` / ``pixels_*`` are the notifications as the dice send them (the byte fixtures); :class:`Script`
writes a replay; :class:`FakeDie`, :class:`FakeClient` and :class:`FakeScanner` stand in for the radio:
``BleakClient(..., backend=FakeClient)`` and ``BleakScanner(..., backend=FakeScanner)`` reach these dice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bleak.backends.characteristic import BleakGATTCharacteristic
from bleak.backends.client import BaseBleakClient
from bleak.backends.descriptor import BleakGATTDescriptor
from bleak.backends.device import BLEDevice
from bleak.backends.scanner import AdvertisementData, BaseBleakScanner
from bleak.backends.service import BleakGATTService, BleakGATTServiceCollection
from bleak.exc import BleakError

from shutbox.dice.ble.protocol import GODICE, GODICE_AXES, Protocol
from shutbox.dice.ble.record import Record

# -- the bytes (fixtures) ------------------------------------------------------------------------------


def _byte(v: int) -> int:
    return v & 0xFF


def godice_xyz(prefix: bytes, face: int, wobble: int = 0) -> bytes:
    x, y, z = GODICE_AXES[face]
    return prefix + bytes(_byte(v + wobble) for v in (x, y, z))


GODICE_ROLLING = b"R"


def godice_stable(face: int, wobble: int = 0) -> bytes:
    return godice_xyz(b"S", face, wobble)


def godice_tilted(face: int = 1) -> bytes:
    return godice_xyz(b"TS", face, 9)


def godice_moved(face: int = 1) -> bytes:
    return godice_xyz(b"MS", face)


def godice_fake(face: int = 1) -> bytes:
    return godice_xyz(b"FS", face)


def godice_battery(percent: int) -> bytes:
    return b"Bat" + bytes([percent])


PIXELS_ROLLING = bytes([3, 3, 0])


def pixels_on_face(face: int, old: bool = False) -> bytes:
    return bytes([3, 1 if old else 5, face - 1])


def pixels_crooked(face: int = 1) -> bytes:
    return bytes([3, 4, face - 1])


def pixels_handling(face: int = 1) -> bytes:
    return bytes([3, 2, face - 1])


def pixels_battery(percent: int) -> bytes:
    return bytes([34, percent, 0])


def pixels_i_am_a_die(state: int, face: int, battery: int) -> bytes:
    return bytes([2, 20, 1, 0]) + bytes(14) + bytes([state, face - 1, battery, 0])


ROLLING = {"godice": GODICE_ROLLING, "pixels": PIXELS_ROLLING}
LANDED: dict[str, Callable[[int], bytes]] = {"godice": godice_stable, "pixels": pixels_on_face}
TILTED: dict[str, Callable[[], bytes]] = {"godice": godice_tilted, "pixels": pixels_crooked}
MOVED: dict[str, Callable[[], bytes]] = {"godice": godice_moved, "pixels": pixels_handling}
BATTERY: dict[str, Callable[[int], bytes]] = {"godice": godice_battery, "pixels": pixels_battery}


# -- replays -------------------------------------------------------------------------------------------


@dataclass
class Script:
    """A replay being written: dice of one make, and what they do, second by second."""

    protocol: str = "godice"
    names: tuple[str, ...] = ("GoDice_A", "GoDice_B")
    t: float = 0.0
    records: list[Record] = field(default_factory=list)

    def say(self, die: str, event: str, data: bytes = b"", after: float = 0.1) -> Script:
        self.t += after
        self.records.append(Record(round(self.t, 3), die, self.protocol, event, data))
        return self

    def connect(self) -> Script:
        for name in self.names:
            self.say(name, "connect")
        return self

    def throw(self, faces: dict[str, int], gap: float = 5.0) -> Script:
        """These dice roll together and land on these faces."""
        self.t += gap
        for name in faces:
            self.say(name, "notify", ROLLING[self.protocol], 0.01)
        for name, face in faces.items():
            self.say(name, "notify", LANDED[self.protocol](face), 0.4)
        return self

    def throw_values(self, values: tuple[int, ...], gap: float = 5.0) -> Script:
        return self.throw(dict(zip(self.names, values, strict=False)), gap)

    def lines(self) -> str:
        return "".join(r.line() + "\n" for r in self.records)

    def write(self, path: Path) -> Path:
        path.write_text(self.lines(), encoding="utf-8")
        return path


# -- fakes at bleak's boundary -------------------------------------------------------------------------


@dataclass
class FakeDie:
    """One die on the fake air: its address, name and make; ``send`` notifies, ``drop`` cuts the link."""

    address: str
    name: str
    protocol: Protocol = GODICE
    battery: int = 80
    client: FakeClient | None = None
    writes: list[bytes] = field(default_factory=list)
    refuse_connects: int = 0  #: connection attempts that fail first (a die out of reach)

    def send(self, data: bytes) -> None:
        client = self.client
        assert client is not None and client.notify is not None, f"{self.name} is not listened to"
        client.loop.call_soon_threadsafe(client.notify, bytearray(data))

    def drop(self) -> None:
        client = self.client
        assert client is not None
        client.loop.call_soon_threadsafe(client.lost)


#: The dice on the fake air, by address.
AIR: dict[str, FakeDie] = {}


def _services(protocol: Protocol) -> BleakGATTServiceCollection:
    services = BleakGATTServiceCollection()
    service = BleakGATTService(None, 1, protocol.service)
    services.add_service(service)
    services.add_characteristic(BleakGATTCharacteristic(None, 2, protocol.notify, ["notify"], lambda: 20, service))
    services.add_characteristic(BleakGATTCharacteristic(None, 3, protocol.write, ["write-without-response"],
                                                        lambda: 20, service))
    return services


class FakeClient(BaseBleakClient):
    """A bleak client backend that reaches the dice in :data:`AIR`."""

    def __init__(self, address_or_ble_device: BLEDevice | str, **kwargs: Any) -> None:
        super().__init__(address_or_ble_device, disconnected_callback=kwargs.get("disconnected_callback"),
                         timeout=kwargs.get("timeout", 10.0))
        self.die = AIR.get(self.address)
        self.connected = False
        self.notify: Callable[[bytearray], None] | None = None
        self.loop = asyncio.get_running_loop()

    @property
    def mtu_size(self) -> int:
        return 23

    async def connect(self, pair: bool, **kwargs: Any) -> None:
        die = self.die
        if die is None:
            raise BleakError(f"device {self.address} not found")
        if die.refuse_connects > 0:
            die.refuse_connects -= 1
            raise BleakError("connection failed")
        self.services = _services(die.protocol)
        self.connected = True
        die.client = self

    def lost(self) -> None:
        if self.connected:
            self.connected = False
            self.notify = None
            if self._disconnected_callback is not None:
                self._disconnected_callback()

    async def disconnect(self) -> None:
        self.connected = False
        self.notify = None

    async def pair(self, *args: Any, **kwargs: Any) -> None:
        return None

    async def unpair(self) -> None:
        return None

    @property
    def is_connected(self) -> bool:
        return self.connected

    async def read_gatt_char(self, characteristic: BleakGATTCharacteristic, **kwargs: Any) -> bytearray:
        raise BleakError("not readable")

    async def read_gatt_descriptor(self, descriptor: BleakGATTDescriptor, **kwargs: Any) -> bytearray:
        raise BleakError("not readable")

    async def write_gatt_char(self, characteristic: BleakGATTCharacteristic, data: Any, response: bool) -> None:
        die = self.die
        assert die is not None and self.connected
        assert characteristic.uuid == die.protocol.write
        die.writes.append(bytes(data))
        if bytes(data) == die.protocol.battery_request and self.notify is not None:
            answer = b"Bat" + bytes([die.battery]) if die.protocol.name == "godice" else bytes([34, die.battery, 0])
            self.loop.call_soon(self.notify, bytearray(answer))

    async def write_gatt_descriptor(self, descriptor: BleakGATTDescriptor, data: Any) -> None:
        raise BleakError("not writable")

    async def start_notify(self, characteristic: BleakGATTCharacteristic, callback: Callable[[bytearray], None],
                           **kwargs: Any) -> None:
        die = self.die
        assert die is not None and characteristic.uuid == die.protocol.notify
        self.notify = callback

    async def stop_notify(self, characteristic: BleakGATTCharacteristic) -> None:
        self.notify = None


class FakeScanner(BaseBleakScanner):
    """A bleak scanner backend that sees the dice in :data:`AIR` (and a stranger that is no die)."""

    def __init__(self, detection_callback: Any, service_uuids: Any, scanning_mode: Any = "active",
                 **kwargs: Any) -> None:
        super().__init__(detection_callback, service_uuids)

    async def start(self) -> None:
        self.seen_devices = {}
        seen = [*AIR.values(), FakeDie("00:00:00:00:00:99", "Headphones")]
        for die in seen:
            uuids = [die.protocol.service] if die.name != "Headphones" else []
            ad = AdvertisementData(die.name, {}, {}, uuids, None, -50, ())
            device = self.create_or_update_device(die.address, die.address, die.name, None, ad)
            self.call_detection_callbacks(device, ad)

    async def stop(self) -> None:
        return None


class BrokenScanner(FakeScanner):
    """A machine with no Bluetooth adapter."""

    async def start(self) -> None:
        raise BleakError("No Bluetooth adapters found.")


def on_air(*dice: FakeDie) -> None:
    AIR.clear()
    AIR.update({d.address: d for d in dice})


