"""What the protocol costs the real firmware, measured in the emulator in cycles of its 16 MHz clock.

``python -m tools.firmware_bench [ELF]`` prints one JSON line:

- ``frame``: cycles from the last byte of a host COMMAND frame to the first byte of the device's answer (the
  ACK): the frame's CRC, its HMAC tag checked, its payload decrypted, the command window looked up in EEPROM,
  then an ACK encrypted, tagged, CRC'd and COBS-encoded: four HMAC-SHA256 in all. Over ``pings`` PINGs.
- ``deal``: a deal in the firmware's real timing profile (feed 300 ms, reader 50 ms, selector moves), cards
  per second and how the MCU spent the deal: ``awake`` is the share of cycles it was not asleep (frames,
  EEPROM writes, step interrupts); the rest it slept while the mechanism moved.

Cycle counts are exact for the emulated ATmega2560 (simavr counts instruction cycles; its EEPROM write takes
3.4 ms as the datasheet says); wall-clock time does not enter them.
"""

from __future__ import annotations

import collections
import json
import statistics
import sys
import time
from pathlib import Path

from dealer_protocol.security import new_key
from engine.match import deck_for
from firmware_bridge.driver import Timeouts
from firmware_bridge.simple import SimpleDealer
from hardware.emulated import DEFAULT_ELF, EmulatedDealer
from hardware.machine import Timing

HZ = 16_000_000


def _counters(sim: EmulatedDealer) -> dict[str, int]:
    assert sim._ctl is not None
    out: dict[str, int] = sim._ctl.ask("counters")
    return out


def measure(elf: str | Path = DEFAULT_ELF, *, pings: int = 200, cards: int = 20) -> dict[str, object]:
    """Run both measurements and return them."""
    key = new_key()
    result: dict[str, object] = {}
    with EmulatedDealer(key, elf=elf, seed=1) as sim:
        assert sim.device is not None
        with SimpleDealer.open(sim.path or "", key, timeouts=Timeouts(**sim.host_timeouts)) as dealer:
            sim.device.frame_latencies()  # forget the HELLO's
            lat: list[int] = []
            for _ in range(pings):
                dealer.ping()
                lat.extend(sim.device.frame_latencies())
        # A heartbeat or busy frame already on its way comes out first now and then, and reads short: the
        # answer itself is the value most frames show (to 10k cycles), then its exact median.
        buckets = collections.Counter(round(v, -4) for v in lat)
        typical = buckets.most_common(1)[0][0]
        answer = int(statistics.median(v for v in lat if abs(v - typical) <= 10_000))
        result["frame"] = {
            "pings": pings,
            "answer_cycles": answer,
            "answer_ms_at_16mhz": round(answer / HZ * 1000, 2),
            "frames_answered_like_that": buckets[typical],
        }
    # The real profile: real motor speeds from the EEPROM, the reader module at its real 50 ms; the emulated
    # clock may run ahead of the wall clock (the host's timeouts are real ones, generous at that pace).
    with EmulatedDealer(key, elf=elf, seed=1, fast=False, speed=8.0) as sim:
        assert sim.machine is not None
        sim.machine.timing = Timing(feed=0.0, read=0.05, pocket_move=0.0)
        with SimpleDealer.open(sim.path or "", key, timeouts=Timeouts(command=600.0)) as dealer:
            dealer.load(deck_for("bid_whist"))
            per_pocket = cards // 4
            before = _counters(sim)
            t0 = time.monotonic()
            outcome = dealer.deal((per_pocket, per_pocket, per_pocket, per_pocket, 0))
            wall = time.monotonic() - t0
            after = _counters(sim)
        dealt = sum(len(p) for p in outcome.pockets)
        cycles = after["cycles"] - before["cycles"]
        awake = after["busy"] - before["busy"]
        result["deal"] = {
            "cards": dealt,
            "seconds_per_card": round(cycles / HZ / dealt, 4),
            "awake_share": round(awake / cycles, 4),
            "awake_ms_per_card": round(awake / HZ / dealt * 1000, 2),
            "wall_seconds": round(wall, 2),
        }
    return result


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    elf = Path(args[0]) if args else DEFAULT_ELF
    print(json.dumps(measure(elf)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
