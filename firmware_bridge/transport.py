"""Byte transports for the driver: any pyserial URL or device path, or an already connected socket.

``serial.serial_for_url`` opens a device path (/dev/ttyUSB0, a pty) and pyserial's URLs (``socket://``,
``rfc2217://``, ``loop://``) the same way. A transport's ``read`` raises ``LinkLost`` when the device is gone
(a USB adapter unplugged makes the tty report readiness with no data, which pyserial turns into an error).
"""

from __future__ import annotations

import select
import socket
from typing import Protocol

import serial


class LinkLost(Exception):
    """The transport failed: unplugged, closed, or the device node vanished."""


class Transport(Protocol):
    """What the driver needs of a link."""

    name: str

    def open(self) -> None: ...

    def read(self, timeout: float) -> bytes: ...

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class SerialTransport:
    """A pyserial port, opened (and reopened after an unplug) from its URL or path."""

    def __init__(self, url: str, *, baudrate: int = 115200) -> None:
        self.name = url
        self.url = url
        self.baudrate = baudrate
        self._port: serial.SerialBase | None = None

    def open(self) -> None:
        """Open the port; LinkLost if it is not there."""
        self.close()
        try:
            port = serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=0.05, write_timeout=2.0)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise LinkLost(f"cannot open {self.url}: {exc}") from None
        try:
            port.reset_input_buffer()  # what the device said before we listened belongs to no session of ours
        except (serial.SerialException, OSError):
            pass
        self._port = port

    def read(self, timeout: float) -> bytes:
        """Bytes that arrive within about ``timeout`` (pyserial's read timeout is fixed at open)."""
        port = self._port
        if port is None:
            raise LinkLost(f"{self.url} is not open")
        try:
            return port.read(max(1, port.in_waiting))
        except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
            # TypeError/AttributeError: pyserial's internals after the port was closed under the reader.
            raise LinkLost(f"{self.url}: {exc}") from None

    def write(self, data: bytes) -> None:
        """Send ``data``; LinkLost if the port is gone."""
        port = self._port
        if port is None:
            raise LinkLost(f"{self.url} is not open")
        try:
            port.write(data)
        except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
            raise LinkLost(f"{self.url}: {exc}") from None

    def close(self) -> None:
        """Close the port (idempotent)."""
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except (serial.SerialException, OSError):
                pass


class SocketTransport:
    """A connected socket (the in-process simulator). It cannot be reopened once closed."""

    def __init__(self, sock: socket.socket, name: str = "in-process") -> None:
        self.name = name
        self.sock = sock

    def open(self) -> None:
        """Nothing to open; LinkLost if the socket was closed."""
        if self.sock.fileno() < 0:
            raise LinkLost(f"{self.name} is closed")

    def read(self, timeout: float) -> bytes:
        """Bytes that arrive within ``timeout``."""
        try:
            ready, _, _ = select.select([self.sock], [], [], timeout)
            if not ready:
                return b""
            data = self.sock.recv(4096)
        except (OSError, ValueError) as exc:
            raise LinkLost(f"{self.name}: {exc}") from None
        if not data:
            raise LinkLost(f"{self.name}: closed by the device")
        return data

    def write(self, data: bytes) -> None:
        """Send ``data``."""
        try:
            self.sock.sendall(data)
        except OSError as exc:
            raise LinkLost(f"{self.name}: {exc}") from None

    def close(self) -> None:
        """Nothing: the socket belongs to whoever made it, and a reconnect uses it again."""


def transport_for(port: str) -> Transport:
    """A transport for a pyserial URL or device path."""
    return SerialTransport(port)
