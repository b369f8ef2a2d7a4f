"""The simulated dealing machine, ready to plug in: on a real pseudo-terminal, in-process on a socket pair, or
behind a TCP port for pyserial's ``socket://`` URLs.

On a pty the host opens ``SimulatedDealer.path`` exactly as it opens /dev/ttyUSB0; on TCP it opens
``SimulatedDealer.url``. The simulator keeps its own
handle on the slave side, so the pty survives the host closing and reopening it (as a USB adapter's device
node survives a program restarting).
"""

from __future__ import annotations

import os
import socket

from hardware.channels import FdChannel, ServerChannel, SocketChannel, make_pty
from hardware.device import Device, DeviceTiming
from hardware.machine import FaultRates, Machine, Timing


class SimulatedDealer:
    """A machine (mechanism + firmware) on a pty (``link="pty"``), a socket pair (``link="socket"``) or a TCP
    port (``link="tcp"``)."""

    def __init__(
        self,
        pair_key: bytes,
        *,
        seed: int | None = None,
        fast: bool = False,
        timing: Timing | None = None,
        rates: FaultRates | None = None,
        device_timing: DeviceTiming | None = None,
        deck: list[str] | None = None,
        link: str = "pty",
    ) -> None:
        if link not in ("pty", "socket", "tcp"):
            raise ValueError(f"link must be 'pty', 'socket' or 'tcp', not {link!r}")
        timing = timing or (Timing.fast() if fast else Timing())
        if device_timing is None:
            device_timing = DeviceTiming(heartbeat=0.1, busy=0.02) if fast else DeviceTiming()
        self.machine = Machine(timing=timing, rates=rates, seed=seed, deck=deck)
        self.device = Device(self.machine, pair_key, timing=device_timing)
        self.link = link
        self.path: str | None = None
        self.url: str | None = None
        self.host_socket: socket.socket | None = None
        self._slave_fd: int | None = None
        self._channel: FdChannel | SocketChannel | ServerChannel | None = None

    def start(self) -> SimulatedDealer:
        """Power the machine on; after this ``path`` (pty) or ``host_socket`` (socket) is the host's end."""
        if self.link == "pty":
            master, slave, path = make_pty()
            self._slave_fd, self.path = slave, path
            self._channel = FdChannel(master)
            self.url = path
        elif self.link == "tcp":
            server = ServerChannel()
            self._channel = server
            self.url = f"socket://127.0.0.1:{server.port}"
        else:
            device_end, self.host_socket = socket.socketpair()
            self._channel = SocketChannel(device_end)
        self.device.start(self._channel)
        return self

    def close(self) -> None:
        """Power off and release the pty or sockets."""
        self.device.stop()
        if self._channel is not None:
            self._channel.close()
        if self._slave_fd is not None:
            os.close(self._slave_fd)
            self._slave_fd = None
        if self.host_socket is not None:
            self.host_socket.close()

    def __enter__(self) -> SimulatedDealer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
