"""The host driver's conformance tests (tests/dealer/test_dealer_driver.py), run again on the real firmware:
hardware/firmware/build/dealer.elf in simavr, the mechanism simulated on its pins (hardware/emulated.py).

The tests are the same functions; only the machine they are given (``make_machine``) and the host's timeouts
(``timeouts``) differ. Tests of the Python simulator's own links (TCP, socket pair) and of the soak's bookkeeping
stay with the simulator.
"""

import importlib.util
from pathlib import Path

import pytest

from firmware_bridge.driver import Timeouts
from hardware.emulated import FAST_HOST_TIMEOUTS, EmulatedDealer

_path = Path(__file__).resolve().parents[1] / "dealer" / "test_dealer_driver.py"
_spec = importlib.util.spec_from_file_location("dealer_driver_conformance", _path)
assert _spec is not None and _spec.loader is not None
shared = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(shared)

key = shared.key
sim = shared.sim
dealer = shared.dealer


@pytest.fixture
def make_machine(key, firmware_elf):
    made = []

    def make(**kwargs):
        machine = EmulatedDealer(key, elf=firmware_elf, **kwargs)
        made.append(machine)
        return machine

    yield make
    for machine in made:
        machine.close()


@pytest.fixture
def timeouts():
    return Timeouts(**FAST_HOST_TIMEOUTS)


test_the_host_opens_the_pty_as_a_device_path_and_deals_every_game = (
    shared.test_the_host_opens_the_pty_as_a_device_path_and_deals_every_game
)
test_pitch_refill_and_rob = shared.test_pitch_refill_and_rob
test_deal_file_puts_each_named_card_in_its_pocket = shared.test_deal_file_puts_each_named_card_in_its_pocket
test_each_mechanism_fault_has_its_error_and_the_deal_resumes_exactly = (
    shared.test_each_mechanism_fault_has_its_error_and_the_deal_resumes_exactly
)
test_deck_check_findings_are_named = shared.test_deck_check_findings_are_named
test_hopper_empty_without_a_deck_list = shared.test_hopper_empty_without_a_deck_list
test_power_lost_mid_deal_resumes_from_the_device_memory = (
    shared.test_power_lost_mid_deal_resumes_from_the_device_memory
)
test_emergency_stop_from_the_driver = shared.test_emergency_stop_from_the_driver
test_unplug_in_the_middle_of_a_deal_loses_and_repeats_nothing = (
    shared.test_unplug_in_the_middle_of_a_deal_loses_and_repeats_nothing
)
test_the_host_refuses_forged_and_replayed_frames = shared.test_the_host_refuses_forged_and_replayed_frames
test_no_device_or_wrong_key_is_a_clear_link_error = shared.test_no_device_or_wrong_key_is_a_clear_link_error
test_closing_ends_a_command_waiting_for_a_pulled_cable = shared.test_closing_ends_a_command_waiting_for_a_pulled_cable
test_a_silent_line_is_noticed_by_the_heartbeat_and_the_link_comes_back = (
    shared.test_a_silent_line_is_noticed_by_the_heartbeat_and_the_link_comes_back
)
test_a_machine_that_stops_answering_gives_a_timeout_not_a_hang = (
    shared.test_a_machine_that_stops_answering_gives_a_timeout_not_a_hang
)
