"""The soak: many deals through the fault-injecting relay, checked card by card against the physical truth.

The host's view of every deal (what the driver returns) is compared with what physically lies in the
simulated pockets, by card serial number: a card in a pocket the host does not know of is lost; a card the
host reports that is not there, or reports twice, or a pocket holding more cards than the deal asked, is
duplicated. A deal that cannot be completed must end in a reported fault.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import random
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from dealer_protocol.security import new_key
from engine.match import deal_pattern, deck_for
from firmware_bridge.driver import Dealer, DealResult, Timeouts
from firmware_bridge.errors import DealerError, DeviceFault
from hardware.emulated import EmulatedDealer
from hardware.machine import MECHANICAL_FAULTS, FaultKind, FaultRates, Timing
from hardware.sim import SimulatedDealer
from tools.relay import LinkFaults, Relay

# The mechanical faults a soak injects: the same kinds as the simulated machine's ``--fault-rate``.
MECHANICAL_KINDS = MECHANICAL_FAULTS


@dataclass(frozen=True)
class SoakConfig:
    """What to soak."""

    deals: int = 100
    drop: float = 0.01
    flip: float = 0.001
    duplicate: float = 0.0
    delay: float = 0.0
    unplug_every: int = 50
    unplug_seconds: float = 0.3
    fault_rate: float = 0.0  # per card, for each mechanical fault kind
    power_rate: float = 0.0  # per card, of a power loss (the machine reboots; its memory keeps the deal)
    seed: int = 0
    game: str = "bid_whist"
    players: int = 4
    time_scale: float = 0.001  # of the real mechanism timings
    firmware: str | None = None  # soak the real firmware (this ELF) in the emulator instead of the simulator


@dataclass
class SoakResult:
    """The soak's outcome (the JSON line)."""

    deals: int = 0
    deals_completed: int = 0
    deals_failed_with_fault: int = 0
    deals_failed_silently: int = 0
    faults_reported: int = 0
    cards_lost: int = 0
    cards_duplicated: int = 0
    unplugs: int = 0
    reconnects: int = 0
    device_resets: int = 0
    retransmits: int = 0
    bytes_dropped: int = 0
    bits_flipped: int = 0
    seconds: float = 0.0
    faults: dict[str, int] = field(default_factory=dict)

    def as_json_dict(self) -> dict[str, object]:
        return asdict(self)


def compare(host: DealResult, sim: SimulatedDealer | EmulatedDealer, pattern: tuple[int, ...]) -> tuple[int, int]:
    """(cards lost, cards duplicated) of one deal: the host's pockets against the physical pockets."""
    lost = duplicated = 0
    physical = [[c.face for c in p] for p in sim.machine.pockets]
    for p, want in enumerate(pattern):
        have: collections.Counter[str | None] = collections.Counter(physical[p])
        told: collections.Counter[str | None] = collections.Counter(
            host.pockets[p] if p < len(host.pockets) else ()
        )
        lost += sum((have - told).values())
        duplicated += sum((told - have).values())
        duplicated += max(0, len(physical[p]) - want)  # the machine dealt more than asked
    everywhere = collections.Counter(face for pocket in host.pockets for face in pocket)
    duplicated += sum(n - 1 for n in everywhere.values() if n > 1)
    return lost, duplicated


async def _deal_with_recovery(
    dealer: Dealer, pattern: tuple[int, ...], result: SoakResult
) -> DealResult | None:
    """Deal; on a fault, count it and resume (the simulated operator fixes the cause), at most 20 times."""
    try:
        return await dealer.deal(pattern)
    except DeviceFault as fault:
        _count(result, fault)
        last: DeviceFault = fault
    for _ in range(20):
        if last.state is None or not last.state.plan_cmd:
            return None
        try:
            return await dealer.resume()  # its state report holds every pocket, whatever the deal so far
        except DeviceFault as fault:
            _count(result, fault)
            last = fault
    return None


def _count(result: SoakResult, fault: DeviceFault) -> None:
    result.faults_reported += 1
    name = fault.code.name.lower()
    result.faults[name] = result.faults.get(name, 0) + 1


def _unplug_midway(sim: SimulatedDealer | EmulatedDealer, relay: Relay, cards: int, seconds: float, seed: int) -> None:
    # Pull the cable once the machine has dealt a random part of the deal.
    at = random.Random(seed).randint(1, max(1, cards - 1))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if sum(len(p) for p in sim.machine.pockets) >= at:
            break
        time.sleep(0.0005)
    relay.unplug_for(seconds)


async def _soak(cfg: SoakConfig, progress: Callable[[SoakResult], None] | None) -> SoakResult:
    key = new_key()
    per_card = {k: cfg.fault_rate for k in MECHANICAL_KINDS if cfg.fault_rate}
    if cfg.power_rate:
        per_card[FaultKind.POWER_LOST] = cfg.power_rate
    rates = FaultRates(per_card) if per_card else None
    deck = deck_for(cfg.game)
    pattern = deal_pattern(cfg.game, cfg.players)
    sim: SimulatedDealer | EmulatedDealer
    timeouts = Timeouts.fast()
    if cfg.firmware:
        # The real firmware in simavr: the same relay, host and checks; faults are drawn on its pins.
        sim = EmulatedDealer(key, elf=cfg.firmware, seed=cfg.seed, deck=deck).start()
        assert sim.machine is not None
        if rates is not None:
            sim.machine.set_rates(rates)
        timeouts = Timeouts(**sim.host_timeouts)
    else:
        sim = SimulatedDealer(
            key, seed=cfg.seed, timing=Timing().scaled(cfg.time_scale), rates=rates, deck=deck, fast=True
        ).start()
    assert sim.path is not None
    workdir = tempfile.mkdtemp(prefix="cardref-soak-")
    link = os.path.join(workdir, "ttyDEALER")
    relay = Relay(
        sim.path, link, LinkFaults(cfg.drop, cfg.flip, cfg.duplicate, cfg.delay), seed=cfg.seed
    ).start()
    result = SoakResult()
    start = time.monotonic()
    dealer: Dealer | None = None
    try:
        dealer = await Dealer.open(link, key, timeouts=timeouts)
        for i in range(cfg.deals):
            result.deals += 1
            unplugger = None
            try:
                await dealer.load(deck)
                await dealer.shuffle()
                if cfg.unplug_every and (i + 1) % cfg.unplug_every == 0:
                    unplugger = threading.Thread(
                        target=_unplug_midway,
                        args=(sim, relay, sum(pattern), cfg.unplug_seconds, cfg.seed + i),
                        daemon=True,
                    )
                    unplugger.start()
                outcome = await _deal_with_recovery(dealer, pattern, result)
            except DeviceFault as fault:
                _count(result, fault)
                outcome = None
            finally:
                if unplugger is not None:
                    await asyncio.to_thread(unplugger.join, 60)
            if outcome is None:
                result.deals_failed_with_fault += 1
            else:
                lost, dup = compare(outcome, sim, pattern)
                result.cards_lost += lost
                result.cards_duplicated += dup
                complete = [len(p) for p in outcome.pockets][: len(pattern)] == list(pattern)
                if complete:
                    result.deals_completed += 1
                else:
                    result.deals_failed_silently += 1
            if progress is not None:
                result.seconds = time.monotonic() - start
                _fill_link_stats(result, dealer, relay)
                progress(result)
    except DealerError as exc:
        raise RuntimeError(f"soak stopped at deal {result.deals}: {exc}") from exc
    finally:
        if dealer is not None:
            _fill_link_stats(result, dealer, relay)
            await dealer.close()
        relay.close()
        sim.close()
        with contextlib.suppress(OSError):
            os.rmdir(workdir)
    result.seconds = time.monotonic() - start
    return result


def _fill_link_stats(result: SoakResult, dealer: Dealer, relay: Relay) -> None:
    result.unplugs = relay.stats["unplugs"]
    result.reconnects = dealer.stats["reconnects"]
    result.retransmits = dealer.stats["retransmits"]
    result.device_resets = dealer.stats["device_resets"]
    result.bytes_dropped = relay.stats["dropped"]
    result.bits_flipped = relay.stats["flipped"]


def run_soak(cfg: SoakConfig, progress: Callable[[SoakResult], None] | None = None) -> SoakResult:
    """Run the soak (blocking)."""
    return asyncio.run(_soak(cfg, progress))
