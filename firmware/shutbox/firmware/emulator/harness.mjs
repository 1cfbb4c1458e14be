// An emulated Raspberry Pi Pico for shutbox's tests: MicroPython's rp2 port on rp2040js, with
//  - the boot ROM's flash erase/program functions done here (the emulator ignores SPI flash writes),
//  - USB CDC served on a TCP port (pyserial opens it as socket://127.0.0.1:PORT), with a host-side
//    queue that tops the device's 512-byte receive FIFO up each time the firmware re-arms its endpoint,
//  - the box's wiring at the pins: switches that connect a GPIO to GND or 3V3 (an open one reads the
//    pin's pull resistor, internal or external) and a chain of 74HC165 shift registers,
//  - a control channel on stdin/stdout: one JSON object per line each way (see README.md).
// Device time is the emulator's simulated clock; it never runs ahead of the wall clock.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { GPIOPinState, Simulator, USBCDC } from 'rp2040js';

const FLASH_SIZE = 2 * 1024 * 1024; // the Pico's W25Q16 flash
const XIP_BASE = 0x10000000;
const BREAK_ERASE = 0x31;
const BREAK_PROGRAM = 0x32;
const CYCLE_NANOS = 1e9 / 125e6;
const SOF_RD = 0x48; // USB controller: frame number of the last SOF
const INTR_DEV_SOF = 1 << 17;
const EMPTY_READ_NANOS = 1e6; // an OUT transfer with no host bytes for it completes empty after 1 ms

function parseArgs(argv) {
  const args = { port: 0, fsOffset: 0xa0000 };
  for (let i = 0; i < argv.length; i += 2) {
    const [key, value] = [argv[i], argv[i + 1]];
    if (key === '--bootrom') args.bootrom = value;
    else if (key === '--uf2') args.uf2 = value;
    else if (key === '--fs') args.fs = value;
    else if (key === '--fs-offset') args.fsOffset = Number(value);
    else if (key === '--port') args.port = Number(value);
    else throw new Error(`unknown option ${key}`);
  }
  if (!args.bootrom || !args.uf2) throw new Error('--bootrom and --uf2 are required');
  return args;
}

const args = parseArgs(process.argv.slice(2));

function send(object) {
  process.stdout.write(JSON.stringify(object) + '\n');
}

// -- the flash: the UF2's blocks, then the file system image if one is given --------------------

function flashImage() {
  const flash = new Uint8Array(FLASH_SIZE).fill(0xff);
  const uf2 = readFileSync(args.uf2);
  for (let at = 0; at + 512 <= uf2.length; at += 512) {
    const block = new DataView(uf2.buffer, uf2.byteOffset + at, 512);
    if (block.getUint32(0, true) !== 0x0a324655 || block.getUint32(4, true) !== 0x9e5d5157) {
      throw new Error(`${args.uf2}: block ${at / 512} is not a UF2 block`);
    }
    const target = block.getUint32(12, true) - XIP_BASE;
    const size = block.getUint32(16, true);
    if (target < 0 || target + size > FLASH_SIZE || size > 476) throw new Error(`${args.uf2}: block outside flash`);
    flash.set(uf2.subarray(at + 32, at + 32 + size), target);
  }
  if (args.fs && existsSync(args.fs)) {
    const fs = readFileSync(args.fs);
    if (args.fsOffset + fs.length > FLASH_SIZE) throw new Error(`${args.fs}: larger than the file system area`);
    flash.set(fs, args.fsOffset);
  }
  return flash;
}

// The boot ROM with flash_range_erase ('RE') and flash_range_program ('RP') replaced by a
// breakpoint and a return, found through the ROM's function table as the SDK finds them.
function patchedBootrom() {
  const rom = new Uint8Array(readFileSync(args.bootrom));
  const view = new DataView(rom.buffer);
  let table = view.getUint16(0x14, true);
  const found = {};
  for (;;) {
    const code = view.getUint16(table, true);
    if (!code) break;
    found[code] = view.getUint16(table + 2, true) & ~1;
    table += 4;
  }
  const code = (a, b) => a.charCodeAt(0) | (b.charCodeAt(0) << 8);
  for (const [name, brk] of [['RE', BREAK_ERASE], ['RP', BREAK_PROGRAM]]) {
    const at = found[code(name[0], name[1])];
    if (at === undefined) throw new Error(`boot ROM has no ${name} function`);
    view.setUint16(at, 0xbe00 | brk, true); // bkpt #brk
    view.setUint16(at + 2, 0x4770, true); // bx lr
  }
  return new Uint32Array(rom.buffer);
}

const bootrom = patchedBootrom();
let flash = flashImage();

// -- the board (rebuilt on a hard reset, keeping the flash) ----------------------------------------

let sim = null;
let mcu = null;
let cdc = null;
let usbUp = false;
let epoch = 0; // wall-clock ms at device time 0
let deviceOffset = 0; // device nanos before the latest reset
const hostQueue = [];
let pendingRead = null; // the firmware's OUT transfer waiting for host bytes
let deliver = () => {};
let client = null;
let watches = [];
let outputTail = '';
// A host that has the port open but does not read (its buffer full): the device's IN transfers are
// not taken, so TinyUSB's transmit FIFO fills and the firmware's writes wait as on a board.
let holding = false;
let heldReady = []; // IN endpoints whose transfer the host has not taken yet
let heldBytes = []; // what those transfers carried, delivered on release
let releaseHeld = () => {};

function nowNanos() {
  return deviceOffset + (sim ? sim.clock.nanos : 0);
}

function boot() {
  if (sim) {
    deviceOffset += sim.clock.nanos;
    sim.stop();
    flash = mcu.flash.slice(0, FLASH_SIZE);
  }
  sim = new Simulator();
  mcu = sim.rp2040;
  mcu.loadBootrom(bootrom);
  mcu.flash.set(flash);
  mcu.logger = { debug() {}, info() {}, warn() {}, error(tag, msg) { send({ event: 'log', tag, msg: String(msg) }); } };
  mcu.onBreak = onBreak;
  mcu.peripherals[0x40058].onWatchdogTrigger = () => setImmediate(hardReset);
  usbUp = false;
  hostQueue.length = 0;
  pendingRead = null;
  cdc = new USBCDC(mcu.usbCtrl);
  cdc.onDeviceConnected = () => {
    usbUp = true;
    if (!client) cdc.cdcSetControlLineState(0); // no host has the port open yet
    send({ event: 'usb', t_us: nowNanos() / 1000 });
  };
  cdc.onSerialData = (buffer) => {
    if (holding) heldBytes.push(Buffer.from(buffer));
    else onSerialData(buffer);
  };
  const usbCtrl = mcu.usbCtrl;
  const ready = usbCtrl.indicateBufferReady.bind(usbCtrl);
  usbCtrl.indicateBufferReady = (endpoint, out) => {
    if (holding && !out && endpoint === cdc.inEndpoint) heldReady.push(endpoint);
    else ready(endpoint, out);
  };
  releaseHeld = () => {
    const bytes = heldBytes;
    const endpoints = heldReady;
    heldBytes = [];
    heldReady = [];
    for (const chunk of bytes) onSerialData(chunk);
    for (const endpoint of endpoints) ready(endpoint, false);
  };
  heldReady = [];
  heldBytes = [];
  // The firmware arms its OUT endpoint for the host's bytes: top the 512-byte FIFO up from the host
  // queue then; with nothing to send, leave the transfer pending (a real host NAKs it) rather than
  // completing it empty, which would interrupt the chip every few microseconds.
  const read = mcu.usbCtrl.onEndpointRead;
  mcu.usbCtrl.onEndpointRead = (endpoint, size) => {
    while (hostQueue.length && !cdc.txFIFO.full) cdc.sendSerialByte(hostQueue.shift());
    if (endpoint === cdc.outEndpoint && cdc.txFIFO.empty) {
      pendingRead = { endpoint, size };
      idleRead.schedule(EMPTY_READ_NANOS);
      return;
    }
    read(endpoint, size);
  };
  // ... but answer it empty after a while, as the emulator's CDC class expects.
  const idleRead = sim.clock.createAlarm(() => {
    if (!pendingRead) return;
    const { endpoint, size } = pendingRead;
    pendingRead = null;
    read(endpoint, size);
  });
  deliver = () => {
    if (!pendingRead || !hostQueue.length) return;
    const { endpoint, size } = pendingRead;
    pendingRead = null;
    idleRead.cancel();
    mcu.usbCtrl.onEndpointRead(endpoint, size);
  };
  startOfFrames();
  wireBoard();
  mcu.core.PC = XIP_BASE;
  run();
}

// The host's start-of-frame packets, once a millisecond, which rp2040js does not send to a device:
// TinyUSB in MicroPython flushes output that waited for a host in its SOF interrupt.
function startOfFrames() {
  const usb = mcu.usbCtrl;
  const readRegister = usb.readUint32.bind(usb);
  usb.readUint32 = (offset) => {
    if (offset === SOF_RD && usb.intRaw & INTR_DEV_SOF) { // reading SOF_RD clears the interrupt
      usb.intRaw &= ~INTR_DEV_SOF;
      usb.checkInterrupts();
    }
    return readRegister(offset);
  };
  const frame = sim.clock.createAlarm(() => {
    if (usbUp) {
      usb.sofFrameNumber = (usb.sofFrameNumber + 1) & 0x7ff;
      usb.intRaw |= INTR_DEV_SOF;
      usb.checkInterrupts();
    }
    frame.schedule(1e6);
  });
  frame.schedule(1e6);
}

function hardReset() {
  send({ event: 'reset', t_us: nowNanos() / 1000 });
  if (client) client.destroy(); // the USB device goes away and comes back: the host's port closes
  client = null;
  boot();
}

function onBreak(code) {
  const r = mcu.core.registers;
  if (code === BREAK_ERASE) {
    const [offset, count] = [r[0], r[1]];
    mcu.flash.fill(0xff, offset, offset + count);
  } else if (code === BREAK_PROGRAM) {
    const [offset, data, count] = [r[0], r[1], r[2]];
    for (let i = 0; i < count; i++) mcu.flash[offset + i] &= mcu.readUint8(data + i);
  } else {
    send({ event: 'break', code, pc: mcu.core.PC });
    sim.stop();
  }
}

function onSerialData(buffer) {
  stats.txBytes += buffer.length;
  if (client) client.write(Buffer.from(buffer));
  else stats.txDropped += buffer.length;
  if (watches.length) {
    outputTail = (outputTail + Buffer.from(buffer).toString('latin1')).slice(-400);
    const t = nowNanos() / 1000;
    watches = watches.filter((w) => {
      if (!outputTail.includes(w.text)) return true;
      send({ id: w.id, ok: true, t_us: t });
      return false;
    });
    if (!watches.length) outputTail = '';
  }
}

// The run loop: as fast as the host allows, but never ahead of the wall clock (a real board's
// time passes at one second per second even while it idles).
function run() {
  const mine = sim;
  const step = () => {
    if (sim !== mine || mine.stopped === undefined) return;
    const { rp2040: chip, clock } = mine;
    const limit = (Date.now() - epoch) * 1e6 - deviceOffset;
    for (let i = 0; i < 200000; i++) {
      if (chip.core.waiting) {
        const skip = clock.nanosToNextAlarm;
        if (clock.nanos + skip > limit) {
          setTimeout(step, Math.max(1, Math.min(20, (clock.nanos + skip - limit) / 1e6)));
          return;
        }
        clock.tick(skip);
        stats.skipped += skip;
        stats.waits += 1;
        i += skip / CYCLE_NANOS;
      } else {
        clock.tick(chip.core.executeInstruction() * CYCLE_NANOS);
        stats.instructions += 1;
      }
    }
    setImmediate(step);
  };
  mine.stopped = false;
  mine.stop = () => { mine.stopped = undefined; };
  setImmediate(step);
}

// -- the box's wiring at the pins ----------------------------------------------------------------

const stats = { instructions: 0, waits: 0, skipped: 0, txBytes: 0, txDropped: 0 };
const switches = new Map(); // gpio -> {net, closed, resistor}
let chain = null; // {load, clock, data, inputs: [levels], ser, shift: [levels]}

function pullLevel(pin, resistor) {
  if (resistor !== null && resistor !== undefined) return resistor;
  if (pin.pullupEnabled && !pin.pulldownEnabled) return 1;
  if (pin.pulldownEnabled && !pin.pullupEnabled) return 0;
  return 0; // floating: the emulator reads 0
}

function applySwitch(gpio) {
  const s = switches.get(gpio);
  const pin = mcu.gpio[gpio];
  if (!s || pin.outputEnable) return;
  const level = s.closed ? s.net : pullLevel(pin, s.resistor);
  if (pin.rawInputValue !== !!level) pin.setInputValue(!!level);
}

function chainOut() {
  const c = chain;
  mcu.gpio[c.data].setInputValue(!!c.shift[0]);
}

function wireBoard() {
  for (const gpio of switches.keys()) {
    mcu.gpio[gpio].addListener(() => applySwitch(gpio));
    applySwitch(gpio);
  }
  if (chain) wireChain();
}

function wireChain() {
  const c = chain;
  const loadPin = mcu.gpio[c.load];
  const high = (state) => state === GPIOPinState.High;
  c.loading = !high(loadPin.value);
  c.clocked = high(mcu.gpio[c.clock].value);
  if (c.loading || !c.shift) c.shift = c.inputs.slice();
  loadPin.addListener((state) => {
    c.loading = !high(state);
    if (c.loading) {
      c.shift = c.inputs.slice();
      chainOut();
    }
  });
  mcu.gpio[c.clock].addListener((state) => {
    const rising = high(state) && !c.clocked;
    c.clocked = high(state);
    if (rising && !c.loading) {
      c.shift.shift();
      c.shift.push(c.ser);
      chainOut();
    }
  });
  chainOut();
}

function setChainInput(index, level) {
  chain.inputs[index] = level;
  if (chain.loading) {
    chain.shift = chain.inputs.slice();
    chainOut();
  }
}

// Contact bounce in device time: `flips` changes `gap_us` apart, ending at the final state.
function withBounce(msg, apply, final, done) {
  const flips = msg.bounce ? msg.bounce.flips : 0;
  const gap = msg.bounce ? msg.bounce.gap_us * 1000 : 0;
  if (!flips) {
    apply(final);
    done();
    return;
  }
  let n = 0;
  const alarm = sim.clock.createAlarm(() => {
    n += 1;
    if (n > flips) {
      apply(final);
      done();
      return;
    }
    apply(n % 2 ? final : !final);
    alarm.schedule(gap);
  });
  alarm.schedule(0);
}

// -- the control channel ---------------------------------------------------------------------------

const ops = {
  stats(msg) { send({ id: msg.id, ok: true, t_us: nowNanos() / 1000, ...stats }); },
  time(msg) { send({ id: msg.id, ok: true, t_us: nowNanos() / 1000 }); },
  switch(msg) {
    const gpio = msg.pin;
    const first = !switches.has(gpio);
    const s = switches.get(gpio) || { net: 0, closed: false, resistor: null };
    s.net = msg.net;
    s.resistor = msg.resistor ?? null;
    switches.set(gpio, s);
    if (!mcu) { // wiring before power-up
      s.closed = !!msg.closed;
      send({ id: msg.id, ok: true, t_us: 0 });
      return;
    }
    if (first) mcu.gpio[gpio].addListener(() => applySwitch(gpio));
    withBounce(msg, (closed) => { s.closed = !!closed; applySwitch(gpio); }, !!msg.closed,
      () => send({ id: msg.id, ok: true, t_us: nowNanos() / 1000 }));
  },
  // A press: the contact closes (bouncing), stays closed `hold_us`, opens (bouncing), stays open as
  // long; the reply comes at the end, all timed in device time.
  press(msg) {
    const s = switches.get(msg.pin);
    if (!s || !mcu) throw new Error(`no switch on GPIO ${msg.pin}, or the board is off`);
    const hold = msg.hold_us * 1000;
    const set = (closed) => { s.closed = !!closed; applySwitch(msg.pin); };
    const wait = (then) => { const alarm = sim.clock.createAlarm(then); alarm.schedule(hold); };
    withBounce(msg, set, !!msg.closed, () => wait(() => withBounce(msg, set, !msg.closed, () => wait(() =>
      send({ id: msg.id, ok: true, t_us: nowNanos() / 1000 })))));
  },
  chain(msg) {
    chain = { load: msg.load, clock: msg.clock, data: msg.data, inputs: msg.inputs.slice(), ser: msg.ser, shift: null };
    if (mcu) wireChain();
    send({ id: msg.id, ok: true, t_us: nowNanos() / 1000 });
  },
  power(msg) {
    if (mcu) throw new Error('the board is powered already');
    epoch = Date.now();
    boot();
    send({ id: msg.id, ok: true, t_us: 0 });
  },
  chain_input(msg) {
    if (!mcu) {
      chain.inputs[msg.index] = msg.level ? 1 : 0;
      send({ id: msg.id, ok: true, t_us: 0 });
      return;
    }
    if (!chain || msg.index < 0 || msg.index >= chain.inputs.length) throw new Error(`no chain input ${msg.index}`);
    withBounce(msg, (level) => setChainInput(msg.index, level ? 1 : 0), !!msg.level,
      () => send({ id: msg.id, ok: true, t_us: nowNanos() / 1000 }));
  },
  read(msg) {
    if (!mcu) throw new Error('the board is not powered');
    const pin = mcu.gpio[msg.pin];
    const output = pin.outputEnable;
    const level = output ? (pin.outputValue ? 1 : 0) : (pin.inputValue ? 1 : 0);
    send({ id: msg.id, ok: true, t_us: nowNanos() / 1000, level, output, pull: pin.pullupEnabled ? 'up' : pin.pulldownEnabled ? 'down' : 'none' });
  },
  watch(msg) { watches.push({ id: msg.id, text: msg.text }); },
  // The host stops reading (its buffer full) or reads again; the port stays open (DTR set) meanwhile.
  hold(msg) {
    holding = !!msg.on;
    if (!holding) releaseHeld();
    send({ id: msg.id, ok: true, t_us: nowNanos() / 1000 });
  },
  save_fs(msg) {
    writeFileSync(msg.path, mcu.flash.subarray(args.fsOffset, FLASH_SIZE));
    send({ id: msg.id, ok: true, t_us: nowNanos() / 1000 });
  },
};

function onControl(line) {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    send({ event: 'error', error: `not JSON: ${line.slice(0, 80)}` });
    return;
  }
  const op = ops[msg.op];
  try {
    if (!op) throw new Error(`unknown op ${msg.op}`);
    op(msg);
  } catch (err) {
    send({ id: msg.id, ok: false, error: String(err.message || err) });
  }
}

// -- USB CDC on TCP ----------------------------------------------------------------------------------

const server = createServer((socket) => {
  if (client) { // one program at a time has the port, as with a serial device opened exclusively
    socket.destroy();
    return;
  }
  client = socket;
  socket.setNoDelay(true);
  if (usbUp) cdc.cdcSetControlLineState(); // DTR and RTS set: a host has the port open
  socket.on('data', (data) => {
    for (const byte of data) hostQueue.push(byte);
    deliver();
  });
  const gone = () => {
    if (client !== socket) return;
    client = null;
    if (usbUp) cdc.cdcSetControlLineState(0);
  };
  socket.on('close', gone);
  socket.on('error', gone);
});

server.listen(args.port, '127.0.0.1', () => {
  send({ event: 'listening', port: server.address().port });
  createInterface({ input: process.stdin }).on('line', onControl).on('close', () => process.exit(0));
  const parent = process.ppid; // the driver: if it dies (even by kill -9) the board goes with it
  setInterval(() => { if (process.ppid !== parent) process.exit(0); }, 250).unref();
});
