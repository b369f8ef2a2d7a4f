"""HTTPS for a table served beyond this machine: a self-signed certificate made on the first start and kept in
the data folder, so the tablets that trusted it once keep trusting it after a restart.

The pages' addresses carry the roles' tokens; over plain HTTP on a network anyone on it reads them (the director's
among them). Over a loopback address nothing leaves the machine, so plain HTTP stays the default there. The
certificate is self-signed (a table has no domain name to get one for): a browser warns once, and the fingerprint
``cardref serve`` prints (and the table's pages show) is how a person checks it is this table's.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import socket
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from referee.eventlog import DataFolderError

LOOPBACK_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost")


@dataclass(frozen=True)
class Certificate:
    cert: Path
    key: Path
    fingerprint: str  # SHA-256 of the certificate, as colon-separated hex (what browsers show)


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


def local_addresses() -> list[str]:
    """The machine's own addresses a tablet can reach (what ``--host 0.0.0.0`` serves on), loopback left out."""
    found: list[str] = []
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, proto=socket.IPPROTO_TCP):
            found.append(str(info[4][0]))
    except OSError:
        pass
    # The address of the default route: a UDP socket "connected" to a documentation address sends nothing.
    for family, probe in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as s:
                s.connect((probe, 9))
                found.append(str(s.getsockname()[0]))
        except OSError:
            continue
    out: list[str] = []
    for a in found:
        a = a.split("%")[0]
        try:
            ip = ipaddress.ip_address(a)
        except ValueError:
            continue
        if not ip.is_loopback and not ip.is_link_local and a not in out:
            out.append(a)
    return out


def fingerprint_of(pem: bytes) -> str:
    cert = x509.load_pem_x509_certificate(pem)
    return ":".join(f"{b:02X}" for b in cert.fingerprint(hashes.SHA256()))


def ensure_certificate(data_dir: Path, names: list[str]) -> Certificate:
    """The table's certificate in ``data_dir/tls/``: the one made before, or a new one (an EC P-256 key, valid
    ten years, naming ``names``: the host and the machine's addresses)."""
    folder = data_dir / "tls"
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    if cert_path.exists() and key_path.exists():
        try:
            return Certificate(cert_path, key_path, fingerprint_of(cert_path.read_bytes()))
        except (OSError, ValueError) as exc:
            raise DataFolderError(f"{cert_path}: not a certificate ({exc}); remove {folder} to have a new one "
                                  "made (the tablets will have to accept it again)") from None
    folder.mkdir(mode=0o700, exist_ok=True)
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "cardref table"),
                         x509.NameAttribute(NameOID.ORGANIZATION_NAME, "cardref")])
    alt: list[x509.GeneralName] = []
    for n in dict.fromkeys([*names, "localhost"]):
        try:
            alt.append(x509.IPAddress(ipaddress.ip_address(n)))
        except ValueError:
            alt.append(x509.DNSName(n))
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=3650))
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    fd = os.open(key_path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)  # the key is private from its first byte
    with os.fdopen(fd, "wb") as f:
        f.write(key_pem)
    pem = cert.public_bytes(serialization.Encoding.PEM)
    cert_path.write_bytes(pem)
    return Certificate(cert_path, key_path, fingerprint_of(pem))
