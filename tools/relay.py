"""A fault-injecting relay between two pseudo-terminals: the cable next to the spilled drinks.

The machine's side: the relay opens the simulated machine's pty like a host would. The host's side: the
relay makes a second pty and publishes its slave at a stable path (a symlink, like /dev/serial/by-id/...).
Bytes are copied both ways through ``LinkFaults``: each byte may be dropped, have one bit flipped, be sent
twice, or hold up its chunk (and everything after it, order is kept) for ``delay_s``.

An unplug is modelled as a USB serial adapter's: the host's pty is closed (the host's next read fails, as it
does when /dev/ttyUSB0 disappears), the symlink is removed, bytes in flight are lost, and on replug a new pty
appears at the same path. The machine itself keeps its power and keeps working.

Drop, flip and duplicate decisions depend only on the seed and each byte's position in its direction's stream,
so a run's faults can be replayed; a delay holds the chunk that holds the chosen byte.
"""

from __future__ import annotations

import collections
import os
import select
import threading
import time
from dataclasses import dataclass

import numpy as np

from hardware.channels import make_pty, set_nonblocking


@dataclass(frozen=True)
class LinkFaults:
    """Per-byte probabilities of the relay's faults."""

    drop: float = 0.0
    flip: float = 0.0
    duplicate: float = 0.0
    delay: float = 0.0
    delay_s: float = 0.02

    def __post_init__(self) -> None:
        for name in ("drop", "flip", "duplicate", "delay"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be a probability within 0..1, got {value}")
        if self.delay_s < 0:
            raise ValueError(f"delay_s must not be negative, got {self.delay_s}")


class _Direction:
    def __init__(self, faults: LinkFaults, seed: int, stats: collections.Counter[str], name: str) -> None:
        self.faults = faults
        self.rng = np.random.default_rng(seed)
        self.stats = stats
        self.name = name
        self.out: collections.deque[tuple[float, bytes]] = collections.deque()

    def apply(self, data: bytes, now: float) -> None:
        f = self.faults
        n = len(data)
        self.stats[f"{self.name}_bytes"] += n
        # One row of draws per byte, so the decisions do not depend on how the stream was chunked.
        draws = self.rng.random((n, 5))
        bits = (draws[:, 4] * 8).astype(np.uint8)
        arr = np.frombuffer(data, dtype=np.uint8).copy()
        flip = draws[:, 1] < f.flip
        arr[flip] ^= np.left_shift(np.uint8(1), bits[flip])
        keep = draws[:, 0] >= f.drop
        repeat = np.where(draws[:, 2] < f.duplicate, 2, 1) * keep
        out = np.repeat(arr, repeat).tobytes()
        self.stats["dropped"] += int(n - keep.sum())
        self.stats["flipped"] += int(flip.sum())
        self.stats["duplicated"] += int((repeat == 2).sum())
        release = now
        if (draws[:, 3] < f.delay).any():
            release = now + f.delay_s
            self.stats["delayed_chunks"] += 1
        if self.out:
            release = max(release, self.out[-1][0])  # keep order
        if out:
            self.out.append((release, out))


class Relay:
    """Copies bytes between the machine's pty (``device_path``) and a new pty published at ``link_path``."""

    def __init__(
        self, device_path: str, link_path: str, faults: LinkFaults | None = None, seed: int = 0
    ) -> None:
        self.device_path = device_path
        self.link_path = link_path
        self.faults = faults or LinkFaults()
        self.stats: collections.Counter[str] = collections.Counter()
        self._to_host = _Direction(self.faults, seed * 2 + 1, self.stats, "to_host")
        self._to_device = _Direction(self.faults, seed * 2 + 2, self.stats, "to_device")
        self._lock = threading.Lock()
        self._device_fd: int | None = None
        self._host_master: int | None = None
        self._host_slave: int | None = None
        self._running = False
        self._thread: threading.Thread | None = None

    # Plugging

    def start(self) -> Relay:
        """Open the machine's side, plug in the host's side, start copying."""
        import termios
        import tty

        fd = os.open(self.device_path, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(fd, termios.TCSANOW)
        set_nonblocking(fd)
        self._device_fd = fd
        self.plug()
        self._running = True
        self._thread = threading.Thread(target=self._pump, name="relay", daemon=True)
        self._thread.start()
        return self

    def plug(self) -> None:
        """A new pty for the host, published at ``link_path`` (atomically, as udev would)."""
        master, slave, path = make_pty()
        set_nonblocking(master)
        tmp = f"{self.link_path}.new"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(path, tmp)
        with self._lock:
            self._host_master, self._host_slave = master, slave
            os.replace(tmp, self.link_path)

    def unplug(self) -> None:
        """Pull the cable: the host's pty disappears and what was in flight is lost."""
        with self._lock:
            master, slave = self._host_master, self._host_slave
            self._host_master = self._host_slave = None
            if os.path.lexists(self.link_path):
                os.unlink(self.link_path)
            self._to_host.out.clear()
            self._to_device.out.clear()
        self.stats["unplugs"] += 1
        # Closing our slave handle too lets the host's next read see the hang-up.
        for fd in (slave, master):
            if fd is not None:
                os.close(fd)

    def set_faults(self, faults: LinkFaults) -> None:
        """Change the line's faults from now on (both directions)."""
        self.faults = faults
        self._to_host.faults = faults
        self._to_device.faults = faults

    def unplug_for(self, seconds: float) -> None:
        """Unplug, wait, plug in again."""
        self.unplug()
        time.sleep(seconds)
        self.plug()

    def close(self) -> None:
        """Stop copying and release both sides."""
        self._running = False
        if self._thread is not None:
            self._thread.join(timeout=2)
        if self._host_master is not None:
            self.unplug()
        if self._device_fd is not None:
            os.close(self._device_fd)
            self._device_fd = None

    def __enter__(self) -> Relay:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # Copying

    def _pump(self) -> None:
        assert self._device_fd is not None
        dev = self._device_fd
        while self._running:
            with self._lock:
                host = self._host_master
            fds = [dev] + ([host] if host is not None else [])
            now = time.monotonic()
            waits = [d.out[0][0] - now for d in (self._to_host, self._to_device) if d.out]
            timeout = max(0.0, min([0.02, *waits]))
            try:
                ready, _, _ = select.select(fds, [], [], timeout)
            except (OSError, ValueError):
                continue  # the host side was closed by an unplug between lock and select
            now = time.monotonic()
            for fd in ready:
                try:
                    data = os.read(fd, 4096)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    continue  # EIO: the other end is not open at the moment
                if not data:
                    continue
                if fd == dev:
                    if host is not None:
                        self._to_host.apply(data, now)
                    else:
                        self.stats["lost_unplugged"] += len(data)
                else:
                    self._to_device.apply(data, now)
            self._flush(self._to_device, dev, now)
            with self._lock:
                host = self._host_master
                if host is not None:
                    self._flush(self._to_host, host, now)

    def _flush(self, direction: _Direction, fd: int, now: float) -> None:
        while direction.out and direction.out[0][0] <= now:
            _, data = direction.out.popleft()
            try:
                os.write(fd, data)
            except (BlockingIOError, InterruptedError):
                self.stats["overflow"] += len(data)  # the reader is not draining: the UART would lose it too
            except OSError:
                self.stats["lost_unplugged"] += len(data)
