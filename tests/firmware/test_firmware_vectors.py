"""COBS, CRC-16/GENIBUS, SHA-256 and HMAC-SHA256: one set of vectors (hardware/firmware/vectors.json), checked
against the Python side of the protocol and against the firmware's own C code (src/wire.c, compiled for the host
as build/vectors), so a change of either side is caught by the other."""

import json
import subprocess
from pathlib import Path

import pytest
from cobs import cobs

from dealer_protocol.framing import crc16, decode_frame, encode_frame
from dealer_protocol.security import _prf  # the protocol's HMAC-SHA256

VECTORS = json.loads((Path(__file__).resolve().parents[2] / "hardware/firmware/vectors.json").read_text())


def test_the_python_side_agrees_with_the_vectors():
    for v in VECTORS["crc16_genibus"]:
        assert f"{crc16(bytes.fromhex(v['data'])):04x}" == v["crc"]
    for v in VECTORS["cobs"]:
        data, enc = bytes.fromhex(v["data"]), bytes.fromhex(v["encoded"])
        assert cobs.encode(data) == enc and cobs.decode(enc) == data
    for v in VECTORS["hmac_sha256"]:
        assert _prf(bytes.fromhex(v["key"]), bytes.fromhex(v["data"])).hex() == v["mac"]
    # A frame as the protocol puts it on the wire decodes back (CRC then COBS, as the firmware does).
    body = bytes.fromhex(VECTORS["cobs"][-1]["data"])[:1000]
    assert decode_frame(encode_frame(body)[:-1]) == body


def _run_c(firmware_elf: Path, lines: list[str]) -> list[str]:
    program = firmware_elf.parent / "vectors"
    out = subprocess.run([str(program)], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_the_firmware_code_agrees_with_the_vectors(firmware_elf):
    def arg(hexdata: str) -> str:
        return hexdata or "-"

    lines, want = [], []
    for v in VECTORS["crc16_genibus"]:
        lines.append(f"crc {arg(v['data'])}")
        want.append(v["crc"])
    for v in VECTORS["cobs"]:
        lines.append(f"cobs_enc {arg(v['data'])}")
        want.append(v["encoded"])
        lines.append(f"cobs_dec {arg(v['encoded'])}")
        want.append(v["data"] or "")
    for v in VECTORS["sha256"]:
        lines.append(f"sha256 {arg(v['data'])}")
        want.append(v["digest"])
    for v in VECTORS["hmac_sha256"]:
        lines.append(f"hmac {arg(v['key'])} {arg(v['data'])}")
        want.append(v["mac"])
    got = _run_c(firmware_elf, lines)
    # An empty result prints an empty line, which split() drops: compare with the empty ones left out too.
    assert got == [w for w in want if w]


@pytest.mark.parametrize("damaged", ["0311", "03112200", "00"])
def test_the_firmware_code_refuses_damaged_cobs(firmware_elf, damaged):
    assert _run_c(firmware_elf, [f"cobs_dec {damaged}"]) == ["error"]
