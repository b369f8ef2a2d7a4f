"""What only the real firmware can show: its EEPROM carries a deal through power cuts struck at any instruction,
and its window of 128 command ids answers an old id instead of executing it again (issue 13, item 6)."""

import random
import threading

import pytest

from dealer_protocol.security import new_key
from engine.match import deal_pattern, deck_for
from firmware_bridge.driver import Timeouts
from firmware_bridge.errors import CommandRefused, PowerLostError
from firmware_bridge.simple import SimpleDealer
from hardware.emulated import EmulatedDealer, wait_until
from hardware.machine import Timing

WHIST = deal_pattern("bid_whist")


def _exact(result, sim, pattern):
    physical = [tuple(c.face for c in p) for p in sim.machine.pockets]
    assert [tuple(p) for p in result.pockets] == physical
    assert [len(p) for p in physical] == list(pattern)
    serials = [c.serial for p in sim.machine.pockets for c in p]
    assert len(serials) == len(set(serials))
    # Every card of the deck is somewhere: none lost in the machine either.
    assert sorted(c.serial for c in sim.machine.all_cards()) == list(range(1, 55))


@pytest.mark.timeout(120)
def test_power_cut_at_any_instruction_mid_deal_resumes_with_no_card_lost(firmware_elf):
    key = new_key()
    with EmulatedDealer(key, elf=firmware_elf, seed=7) as sim:
        with SimpleDealer.open(sim.path, key, timeouts=Timeouts(**sim.host_timeouts)) as dealer:
            dealer.load(deck_for("bid_whist"))
            dealer.shuffle()
            sim.machine.timing = Timing().scaled(0.05)  # ~20 ms a card: the cuts land inside the deal
            boot = dealer.info.boot_id
            targets = sorted(random.Random(3).sample(range(4, 50), 3))

            def cut() -> None:
                for i, n in enumerate(targets):
                    # (the host learns of a reset when it opens its next session and finds a new boot id: two cuts
                    # before it does are one reset to it - cuts at 38 and 41 cards, ~60 ms apart, once made it count
                    # 2 of 3 - so each cut waits until the host has seen the one before)
                    wait_until(lambda i=i: dealer.dealer.stats["device_resets"] >= i, timeout=60)
                    wait_until(lambda n=n: sum(len(p) for p in sim.machine.pockets) >= n, timeout=60)
                    sim.device.power_cycle()  # now, wherever the MCU is: mid-step, mid-frame, mid-EEPROM write

            cutter = threading.Thread(target=cut)
            cutter.start()
            result, lost_power = None, 0
            try:
                result = dealer.deal(WHIST)
            except PowerLostError:
                lost_power += 1
            for _ in range(10):
                if result is not None:
                    break
                try:
                    result = dealer.resume()
                except PowerLostError:
                    lost_power += 1
            cutter.join()
            assert result is not None and lost_power >= 1
            assert dealer.dealer.stats["device_resets"] == len(targets) and dealer.info.boot_id != boot
            _exact(result, sim, WHIST)


@pytest.mark.timeout(120)
def test_an_id_is_never_executed_again_even_after_130_other_commands(firmware_elf):
    key = new_key()
    deck = deck_for("bid_euchre")
    with EmulatedDealer(key, elf=firmware_elf, seed=2, deck=deck) as sim:
        with SimpleDealer.open(sim.path, key, timeouts=Timeouts(**sim.host_timeouts)) as dealer:
            dealer.load(deck)
            first = dealer.deal((2, 2, 2, 2, 0))
            for _ in range(130):
                dealer.ping()
            # A host that lost the DEAL's reply sends the same id again: it is answered, not dealt again.
            dealer.dealer._next_id = first.cmd_id - 1
            again = dealer.deal((2, 2, 2, 2, 0))
            assert again.cmd_id == first.cmd_id and again.pockets == first.pockets
            assert sum(len(p) for p in sim.machine.pockets) == 8 and len(sim.machine.hopper) == 16
            dealer.dealer._next_id = first.cmd_id - 1
            with pytest.raises(CommandRefused, match="already used"):
                dealer.deal((1, 1, 1, 1, 0))
            assert sum(len(p) for p in sim.machine.pockets) == 8


@pytest.mark.timeout(120)
def test_a_bounded_soak_of_the_firmware_through_a_bad_cable(firmware_elf):
    from tools.dealer_soak import SoakConfig, run_soak

    result = run_soak(
        SoakConfig(deals=2, drop=0.01, flip=0.001, unplug_every=2, seed=4, firmware=str(firmware_elf))
    )
    assert result.deals == 2 and result.deals_completed == 2
    assert result.cards_lost == 0 and result.cards_duplicated == 0 and result.deals_failed_silently == 0
    assert result.unplugs == 1 and result.reconnects >= 1 and result.bytes_dropped > 0


@pytest.mark.timeout(120)
def test_the_emergency_stop_button_stops_before_the_next_card_and_holds(firmware_elf):
    import time

    from firmware_bridge.errors import EmergencyStopError

    key = new_key()
    with EmulatedDealer(key, elf=firmware_elf, seed=5) as sim:
        with SimpleDealer.open(sim.path, key, timeouts=Timeouts(**sim.host_timeouts)) as dealer:
            dealer.load(deck_for("bid_whist"))
            sim.machine.timing = Timing().scaled(0.05)
            errors = []

            def deal() -> None:
                try:
                    dealer.deal(WHIST)
                except EmergencyStopError as exc:
                    errors.append(exc)

            worker = threading.Thread(target=deal)
            worker.start()
            wait_until(lambda: sum(len(p) for p in sim.machine.pockets) >= 5, timeout=60)
            sim.machine.press_estop(True)  # the button on the machine, not a STOP from the host
            worker.join(60)
            assert len(errors) == 1 and errors[0].state.plan_cmd == errors[0].cmd_id
            stopped_at = sum(len(p) for p in sim.machine.pockets)
            assert stopped_at < 54
            with pytest.raises(EmergencyStopError):
                dealer.resume()  # still held down: nothing moves
            time.sleep(0.2)
            assert sum(len(p) for p in sim.machine.pockets) == stopped_at
            sim.machine.press_estop(False)
            _exact(dealer.resume(), sim, WHIST)
