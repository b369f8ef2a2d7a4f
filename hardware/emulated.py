"""The dealing machine's real firmware (hardware/firmware/build/dealer.elf) in an emulator, ready to plug in.

``EmulatedDealer`` has the interface of ``hardware.sim.SimulatedDealer``: ``start()`` powers the machine on and
gives ``path`` (a pseudo-terminal the host opens as it opens /dev/ttyACM0), ``close()`` powers it off. Behind
the pty runs the unchanged ELF in simavr's ATmega2560 (``hardware/firmware/emu/harness.c``), with the mechanism
simulated on the firmware's pins. ``machine`` and ``device`` stand where the simulator's ``Machine`` and
``Device`` stand, so the host driver's tests run on either: ``machine.pockets`` is the physical truth (cards
with serial numbers, kept by the harness, outside the firmware), ``machine.inject`` arms a fault on the pins,
``device.power_cycle()`` cuts the power (the harness saves the EEPROM, stops the MCU and starts a new one).

The firmware's EEPROM is a file: give ``eeprom`` to keep the machine's memory across ``EmulatedDealer``
instances (a power loss of the whole process), or let it live in a temporary folder.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dealer_protocol.cards import byte_to_card, card_to_byte, full_deck
from hardware.machine import FOREIGN_BACK, HOME_BACK, PER_CARD_KINDS, FaultKind, FaultRates, PhysicalCard, Timing

FIRMWARE_DIR = Path(__file__).resolve().parent / "firmware"
DEFAULT_ELF = FIRMWARE_DIR / "build" / "dealer.elf"
HARNESS = FIRMWARE_DIR / "build" / "dealer-emu"

# The harness's fast profile (a timing profile written to the EEPROM, as a pairing jig would) runs the
# mechanism about 30 times faster than a real one, and the emulated clock up to SPEED times the wall clock.
FAST_SPEED = 4.0


class EmulatorError(RuntimeError):
    """The emulator could not be started or stopped answering its control channel."""


def toolchain_missing() -> str | None:
    """Why the firmware cannot be built and emulated here (None: it can)."""
    for tool in ("avr-gcc", "avr-size", "cc", "pkg-config", "make"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (apt-get install gcc-avr avr-libc binutils-avr libsimavr-dev)"
    if not Path("/usr/include/simavr/sim_avr.h").exists():
        return "libsimavr-dev is not installed"
    return None


def build_firmware() -> Path:
    """Run ``make`` in hardware/firmware (the ELF, the harness, the host test program); return the ELF."""
    why = toolchain_missing()
    if why:
        raise EmulatorError(f"cannot build the firmware: {why}")
    # one build at a time: two processes (two test workers, two `cardref dealer emulate`) running make in the same
    # folder at once would write the same object files over each other
    (FIRMWARE_DIR / "build").mkdir(exist_ok=True)
    with open(FIRMWARE_DIR / "build" / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = subprocess.run(["make", "-s", "-C", str(FIRMWARE_DIR)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise EmulatorError(f"building the firmware failed:\n{done.stdout}{done.stderr}")
    return DEFAULT_ELF


# The host's timeouts (``firmware_bridge.driver.Timeouts`` fields) that suit the emulated firmware in its fast
# profile; a real board, or the real profile, takes the driver's defaults.
FAST_HOST_TIMEOUTS: dict[str, float] = {
    "ack": 0.15,
    "progress": 0.8,
    "hello": 0.8,
    "silence": 1.5,
    "command": 90.0,
    "connect": 20.0,
    "backoff_initial": 0.01,
    "backoff_max": 0.2,
}


def _card(raw: list[int]) -> PhysicalCard:
    serial, face, foreign = raw
    code = byte_to_card(face) if face < 54 else None
    return PhysicalCard(serial, code or "??", FOREIGN_BACK if foreign else HOME_BACK)


class _Control:
    """The harness's control channel: one command a line on its stdin, one answer a line on its stdout."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.lock = threading.Lock()

    def ask(self, line: str, timeout: float = 10.0) -> Any:
        with self.lock:
            if self.proc.poll() is not None or self.proc.stdin is None or self.proc.stdout is None:
                raise EmulatorError(f"the emulator has exited (status {self.proc.returncode})")
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
            ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
            if not ready:
                raise EmulatorError(f"the emulator did not answer {line.split()[0]!r} within {timeout} s")
            answer = self.proc.stdout.readline()
        if not answer:
            raise EmulatorError("the emulator closed its control channel")
        out = json.loads(answer)
        if isinstance(out, dict) and "error" in out:
            raise EmulatorError(out["error"])
        return out


class HopperProxy:
    """The hopper's cards, top first, as a list a test can take cards from and put cards into."""

    def __init__(self, ctl: _Control) -> None:
        self._ctl = ctl

    def _cards(self) -> list[PhysicalCard]:
        return [_card(c) for c in self._ctl.ask("state")["hopper"]]

    def __len__(self) -> int:
        return len(self._cards())

    def __iter__(self) -> Iterator[PhysicalCard]:
        return iter(self._cards())

    def __getitem__(self, i: int) -> PhysicalCard:
        return self._cards()[i]

    def pop(self, i: int = -1) -> PhysicalCard:
        return _card(self._ctl.ask(f"hopper_pop {i}"))

    def insert(self, i: int, card: PhysicalCard) -> None:
        face = card_to_byte(card.face)
        self._ctl.ask(f"hopper_insert {i} {card.serial} {face} {int(card.back != HOME_BACK)}")

    def append(self, card: PhysicalCard) -> None:
        self.insert(-1, card)


class EmulatedMachine:
    """The mechanism around the emulated firmware, seen as ``hardware.machine.Machine`` is seen by tests."""

    n_pockets = 5

    def __init__(self, ctl: _Control) -> None:
        self._ctl = ctl
        self.hopper = HopperProxy(ctl)
        self._timing = Timing()

    def _state(self) -> dict[str, Any]:
        out: dict[str, Any] = self._ctl.ask("state")
        return out

    @property
    def pockets(self) -> list[list[PhysicalCard]]:
        return [[_card(c) for c in p] for p in self._state()["pockets"]]

    @property
    def reject(self) -> list[PhysicalCard]:
        return [_card(c) for c in self._state()["reject"]]

    @property
    def floor(self) -> list[PhysicalCard]:
        return [_card(c) for c in self._state()["floor"]]

    @property
    def removed(self) -> list[PhysicalCard]:
        return [_card(c) for c in self._state()["removed"]]

    @property
    def door_open(self) -> bool:
        return bool(self._state()["door"])

    @property
    def faults_raised(self) -> dict[FaultKind, int]:
        # the harness counts the per-card kinds in the simulated machine's order
        return {k: n for k, n in zip(PER_CARD_KINDS, self._state()["faults"], strict=True) if n}

    def all_cards(self) -> list[PhysicalCard]:
        """Every card in or on the machine (the table of removed cards excluded)."""
        s = self._state()
        piles = [s["hopper"], *s["pockets"], s["reject"], s["floor"], s["staging"], s["bay"]]
        return [_card(c) for pile in piles for c in pile]

    def inject(self, kind: FaultKind) -> None:
        """Arm a fault on the pins (see hardware/machine.py's ``inject`` for what each does)."""
        self._ctl.ask(f"inject {kind.value}")

    def open_door(self) -> None:
        """Someone opens the door (the door switch's line goes high)."""
        self._ctl.ask("door 1")

    def press_estop(self, pressed: bool = True) -> None:
        """The emergency stop button."""
        self._ctl.ask(f"estop {int(pressed)}")

    def set_rates(self, rates: FaultRates, seed: int = 0) -> None:
        """Per-card fault rates, drawn as each card starts to feed."""
        r = rates.rates
        self._ctl.ask("rates " + " ".join(str(r.get(k, 0.0)) for k in PER_CARD_KINDS))

    @property
    def timing(self) -> Timing:
        return self._timing

    @timing.setter
    def timing(self, timing: Timing) -> None:
        # The firmware drives the motors at its own (EEPROM) speed; what a test slows is the reader module,
        # which answers after the time a whole card takes at ``timing``.
        self._timing = timing
        self._ctl.ask(f"read_ms {max(1, round(timing.per_card() * 1000))}")


class EmulatedDevice:
    """The MCU: its power switch, and a hang for tests of a machine that stops answering."""

    def __init__(self, ctl: _Control) -> None:
        self._ctl = ctl

    def power_cycle(self) -> None:
        """Cut the power now, wherever the firmware is; the harness restarts it with its EEPROM."""
        self._ctl.ask("power_cut")

    def stop(self) -> None:
        """The firmware stops running (the port stays open): a hung machine."""
        self._ctl.ask("halt")

    def frame_latencies(self) -> list[int]:
        """Cycles from the end of each host frame to the first byte the firmware sent after it."""
        out: list[int] = self._ctl.ask("latency")
        return out


class EmulatedDealer:
    """The real firmware in simavr behind a pty, with the mechanism simulated (see the module docstring)."""

    def __init__(
        self,
        pair_key: bytes,
        *,
        elf: str | os.PathLike[str] | None = None,
        seed: int | None = None,
        fast: bool = True,
        deck: list[str] | None = None,
        eeprom: str | os.PathLike[str] | None = None,
        speed: float | None = None,
        link: str = "pty",
    ) -> None:
        if link != "pty":
            raise ValueError("the emulated firmware speaks on a pty only (link='pty')")
        self.pair_key = pair_key
        self.elf = Path(elf) if elf else DEFAULT_ELF
        self.seed = 1 if seed is None else seed
        self.fast = fast
        self.deck = deck or full_deck()
        self.speed = speed if speed is not None else (FAST_SPEED if fast else 1.0)
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self.eeprom = Path(eeprom) if eeprom else None
        self.path: str | None = None
        self.url: str | None = None
        self._proc: subprocess.Popen[str] | None = None
        self._ctl: _Control | None = None
        self.machine: EmulatedMachine | None = None
        self.device: EmulatedDevice | None = None

    counts_hopper_before_load = False  # the firmware knows the hopper's cards once it has read them

    @property
    def host_timeouts(self) -> dict[str, float]:
        """The host timeouts that suit this machine (``Timeouts(**host_timeouts)``; empty: the defaults)."""
        return dict(FAST_HOST_TIMEOUTS) if self.fast else {}

    def start(self) -> EmulatedDealer:
        """Power on: start the harness; ``path`` is then the pty the host opens."""
        if not self.elf.exists():
            raise EmulatorError(f"no firmware at {self.elf} (run `make firmware`)")
        if not HARNESS.exists():
            raise EmulatorError(f"no emulator harness at {HARNESS} (run `make firmware`)")
        if self.eeprom is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="dealer-eeprom-")
            self.eeprom = Path(self._tmp.name) / "eeprom.bin"
        cmd = [
            str(HARNESS),
            "--elf",
            str(self.elf),
            "--eeprom",
            str(self.eeprom),
            "--key",
            self.pair_key.hex(),
            "--profile",
            "fast" if self.fast else "real",
            "--speed",
            str(self.speed),
            "--seed",
            str(self.seed),
            "--deck",
            ",".join(str(card_to_byte(c)) for c in self.deck),
        ]
        self._proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        assert self._proc.stdout is not None
        ready, _, _ = select.select([self._proc.stdout], [], [], 10.0)
        first = self._proc.stdout.readline() if ready else ""
        if not first:
            self.close()
            raise EmulatorError(f"the emulator did not start ({' '.join(cmd[:3])} ...)")
        self.path = json.loads(first)["pty"]
        self.url = self.path
        self._ctl = _Control(self._proc)
        self.machine = EmulatedMachine(self._ctl)
        self.device = EmulatedDevice(self._ctl)
        return self

    def close(self) -> None:
        """Power off: stop the harness (its EEPROM file is saved), release the pty."""
        proc, self._proc = self._proc, None
        if proc is not None:
            if proc.poll() is None and proc.stdin is not None:
                try:
                    proc.stdin.write("quit\n")
                    proc.stdin.flush()
                    proc.wait(timeout=5)
                except (OSError, subprocess.TimeoutExpired):
                    proc.kill()
                    proc.wait()
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    stream.close()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None
            self.eeprom = None

    def __enter__(self) -> EmulatedDealer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def wait_until(predicate: Any, timeout: float = 30.0, poll: float = 0.005) -> None:
    """Poll ``predicate`` until it is true (for tests that act in the middle of a deal)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not reached")
        time.sleep(poll)
