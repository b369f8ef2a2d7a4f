"""``cardref dealer sim --firmware ELF``: the real firmware behind a pty, opened and dealt on like the simulator."""

import subprocess
import sys
import time

import pytest

from dealer_protocol.security import load_key


@pytest.mark.timeout(90)
def test_dealer_sim_firmware_prints_a_device_path_a_host_can_deal_on(tmp_path, firmware_elf):
    key_file = tmp_path / "dealer.key"
    load_key(key_file, create=True)
    link = tmp_path / "ttyDEALER"
    sim = [
        sys.executable,
        "-m",
        "cli",
        "dealer",
        "sim",
        "--fast",
        "--game",
        "bid_euchre",
        "--firmware",
        str(firmware_elf),
    ]
    proc = subprocess.Popen(
        [*sim, "--key-file", str(key_file), "--link", str(link), "--seconds", "60"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == str(link)
        deadline = time.monotonic() + 10
        while not link.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        deal = [sys.executable, "-m", "cli", "dealer", "deal", "--port", str(link), "--game", "bid_euchre"]
        done = subprocess.run([*deal, "--key-file", str(key_file)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert len([line for line in done.stdout.splitlines() if line.strip()]) >= 4
    finally:
        proc.terminate()
        proc.wait(10)
    assert "emulated ATmega2560" in proc.stderr.read()


def test_a_missing_elf_is_one_clear_line(tmp_path, firmware_elf):
    key_file = tmp_path / "dealer.key"
    load_key(key_file, create=True)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli",
            "dealer",
            "sim",
            "--firmware",
            str(tmp_path / "nope.elf"),
            "--key-file",
            str(key_file),
            "--seconds",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "nope.elf" in done.stderr and "make firmware" in done.stderr
