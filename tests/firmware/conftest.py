"""The firmware's tests need the AVR toolchain and libsimavr: CI installs them (.ci/run); elsewhere the tests
are skipped with the reason, never silently passed."""

import os

import pytest

from hardware.emulated import EmulatorError, build_firmware, toolchain_missing


@pytest.fixture(scope="session")
def firmware_elf():
    why = toolchain_missing()
    if why:
        if os.environ.get("CI"):
            pytest.fail(f"CI must test the firmware, but {why}")
        pytest.skip(f"the firmware cannot be built here: {why}")
    try:
        return build_firmware()
    except EmulatorError as exc:
        pytest.fail(str(exc))
