"""Byte channels the simulated device talks through: the master side of a pseudo-terminal, or a socket.

A real UART sends whether or not anyone listens, so a write that would block (the host has not drained the
pty) is dropped, not queued: the protocol's retransmission recovers it, as it would on the wire.
"""

from __future__ import annotations

import errno
import fcntl
import os
import select
import socket
import termios
import tty


class ChannelClosed(Exception):
    """The channel was closed by this side."""


def make_pty() -> tuple[int, int, str]:
    """A raw pseudo-terminal: (master fd, slave fd, slave path). The slave is what a host opens."""
    master, slave = os.openpty()
    # Raw at once: with the default line discipline the slave would echo the device's own bytes back to it.
    tty.setraw(slave, termios.TCSANOW)
    tty.setraw(master, termios.TCSANOW)
    return master, slave, os.ttyname(slave)


def set_nonblocking(fd: int) -> None:
    """Make writes to ``fd`` fail instead of blocking."""
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)


class FdChannel:
    """A channel over a file descriptor (a pty master, or a pty slave held open by the relay)."""

    def __init__(self, fd: int, *, owns: bool = True) -> None:
        self.fd = fd
        self.owns = owns
        self.closed = False
        self.dropped_bytes = 0
        set_nonblocking(fd)

    def read(self, timeout: float) -> bytes:
        """Bytes available within ``timeout`` (b"" if none)."""
        if self.closed:
            raise ChannelClosed()
        try:
            ready, _, _ = select.select([self.fd], [], [], timeout)
        except (OSError, ValueError):
            raise ChannelClosed() from None
        if not ready:
            return b""
        try:
            return os.read(self.fd, 4096)
        except BlockingIOError:
            return b""
        except OSError as exc:
            # EIO: no one has the other side open (a pty whose peer is closed); wait as a UART would.
            if exc.errno == errno.EIO:
                select.select([], [], [], timeout)
                return b""
            raise ChannelClosed() from None

    def write(self, data: bytes) -> None:
        """Send ``data``; what the other side cannot take now is lost, as on a wire."""
        if self.closed:
            raise ChannelClosed()
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.fd, view)
            except (BlockingIOError, InterruptedError):
                self.dropped_bytes += len(view)
                return
            except OSError as exc:
                if exc.errno == errno.EIO:
                    self.dropped_bytes += len(view)
                    return
                raise ChannelClosed() from None
            view = view[n:]

    def close(self) -> None:
        """Close the descriptor (if this channel owns it)."""
        if not self.closed:
            self.closed = True
            if self.owns:
                os.close(self.fd)


class SocketChannel:
    """A channel over a connected socket (the in-process link, or a TCP link for ``socket://`` URLs)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.closed = False
        self.dropped_bytes = 0

    def read(self, timeout: float) -> bytes:
        """Bytes available within ``timeout`` (b"" if none)."""
        if self.closed:
            raise ChannelClosed()
        try:
            ready, _, _ = select.select([self.sock], [], [], timeout)
            if not ready:
                return b""
            data = self.sock.recv(4096)
        except (OSError, ValueError):
            raise ChannelClosed() from None
        if not data:
            raise ChannelClosed()
        return data

    def write(self, data: bytes) -> None:
        """Send ``data``."""
        if self.closed:
            raise ChannelClosed()
        try:
            self.sock.sendall(data)
        except OSError:
            raise ChannelClosed() from None

    def close(self) -> None:
        """Close the socket."""
        if not self.closed:
            self.closed = True
            self.sock.close()


class ServerChannel:
    """A TCP server on localhost taking one host at a time: the simulator behind a ``socket://`` URL.

    While no host is connected, bytes written are lost (a UART with nobody listening); a new host connection
    replaces the old one, as a cable plugged into another computer would.
    """

    def __init__(self, port: int = 0) -> None:
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", port))
        self.server.listen(1)
        self.port = self.server.getsockname()[1]
        self.conn: socket.socket | None = None
        self.closed = False
        self.dropped_bytes = 0

    def _accept(self, timeout: float) -> None:
        ready, _, _ = select.select([self.server], [], [], timeout)
        if ready:
            conn, _ = self.server.accept()
            if self.conn is not None:
                self.conn.close()
            self.conn = conn

    def read(self, timeout: float) -> bytes:
        """Bytes from the connected host within ``timeout`` (b"" if none, or no host)."""
        if self.closed:
            raise ChannelClosed()
        try:
            if self.conn is None:
                self._accept(timeout)
                return b""
            ready, _, _ = select.select([self.conn, self.server], [], [], timeout)
            if self.server in ready:
                self._accept(0)
                return b""
            if not ready:
                return b""
            data = self.conn.recv(4096)
        except (OSError, ValueError):
            if self.closed:
                raise ChannelClosed() from None
            data = b""
        if not data:
            if self.conn is not None:
                self.conn.close()
            self.conn = None
        return data

    def write(self, data: bytes) -> None:
        """Send to the connected host; lost if there is none."""
        if self.closed:
            raise ChannelClosed()
        conn = self.conn
        if conn is None:
            self.dropped_bytes += len(data)
            return
        try:
            conn.sendall(data)
        except OSError:
            self.dropped_bytes += len(data)

    def close(self) -> None:
        """Stop listening and drop the host."""
        if not self.closed:
            self.closed = True
            if self.conn is not None:
                self.conn.close()
            self.server.close()
