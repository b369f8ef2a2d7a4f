"""The dealer link's numbers: command round trip over a pty, protocol overhead of a whole deal, the soak.

Measured by ``cardref dealer bench``, never by timed tests. The simulated machine runs in this process on its
own threads, so the round trip includes both sides' Python (framing, HMAC, encryption) and two pty hops.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass

from dealer_protocol.security import new_key
from engine.match import deal_pattern, deck_for
from firmware_bridge.driver import Dealer, Timeouts
from hardware.device import DeviceTiming
from hardware.machine import Timing
from hardware.sim import SimulatedDealer
from tools.dealer_soak import SoakConfig, SoakResult, run_soak
from tools.relay import Relay

BAUD = 115200


@dataclass(frozen=True)
class RoundTrip:
    """PING round trips over a pty, in milliseconds."""

    count: int
    median_ms: float
    p99_ms: float
    max_ms: float


@dataclass(frozen=True)
class DealOverhead:
    """One whole deal at the machine's timing: wall time against mechanism time, and bytes on the wire."""

    game: str
    cards: int
    time_scale: float
    wall_s: float
    mechanism_s: float
    overhead_share: float  # (wall - mechanism) / mechanism
    bytes_to_host: int
    bytes_to_device: int
    wire_share_at_115200: float  # the bytes' time on a 115200-baud UART / mechanism time


async def _round_trip(count: int) -> RoundTrip:
    key = new_key()
    # The firmware's real heartbeat and busy intervals: PING does no mechanical work, so only they matter.
    with SimulatedDealer(key, fast=True, device_timing=DeviceTiming()) as sim:
        assert sim.path is not None
        dealer = await Dealer.open(sim.path, key)
        try:
            for _ in range(20):  # warm up
                await dealer.ping()
            samples = []
            for _ in range(count):
                start = time.perf_counter()
                await dealer.ping()
                samples.append((time.perf_counter() - start) * 1000)
        finally:
            await dealer.close()
    samples.sort()
    p99 = samples[min(len(samples) - 1, int(round(0.99 * (len(samples) - 1))))]
    return RoundTrip(count, statistics.median(samples), p99, samples[-1])


async def _deal_overhead(time_scale: float, game: str) -> DealOverhead:
    key = new_key()
    deck = deck_for(game)
    pattern = deal_pattern(game)
    with SimulatedDealer(key, timing=Timing().scaled(time_scale), deck=deck) as sim:
        assert sim.path is not None
        workdir = tempfile.mkdtemp(prefix="cardref-bench-")
        link = os.path.join(workdir, "ttyDEALER")
        with Relay(sim.path, link) as relay:  # no faults: it only counts the bytes
            timeouts = Timeouts() if time_scale >= 0.5 else Timeouts.fast()
            dealer = await Dealer.open(link, key, timeouts=timeouts)
            try:
                await dealer.load(deck)
                await dealer.shuffle()
                sim.machine.mechanism_seconds = 0.0
                to_host, to_device = relay.stats["to_host_bytes"], relay.stats["to_device_bytes"]
                start = time.perf_counter()
                await dealer.deal(pattern)
                wall = time.perf_counter() - start
                mech = sim.machine.mechanism_seconds
                to_host = relay.stats["to_host_bytes"] - to_host
                to_device = relay.stats["to_device_bytes"] - to_device
            finally:
                await dealer.close()
        os.rmdir(workdir)
    wire = (to_host + to_device) * 10 / BAUD  # 8N1: ten bit times per byte
    return DealOverhead(
        game, sum(pattern), time_scale, wall, mech, (wall - mech) / mech, to_host, to_device, wire / mech
    )


def round_trip(count: int = 1000) -> RoundTrip:
    """Median and p99 of ``count`` PING round trips over a real pty."""
    return asyncio.run(_round_trip(count))


def deal_overhead(time_scale: float = 1.0, game: str = "bid_whist") -> DealOverhead:
    """Protocol overhead of one whole deal, at ``time_scale`` times the real mechanism timings."""
    return asyncio.run(_deal_overhead(time_scale, game))


def soak(cfg: SoakConfig, progress: Callable[[SoakResult], None] | None = None) -> SoakResult:
    """The soak (see tools.dealer_soak)."""
    return run_soak(cfg, progress)
