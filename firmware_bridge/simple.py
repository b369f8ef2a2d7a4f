"""A synchronous facade over the asyncio driver, as python-chess's ``SimpleEngine`` is over its protocol.

``SimpleDealer.open(port, key)`` runs an event loop in a background thread and forwards each call to it;
each call waits for its result with a timeout (the command's own limit plus a margin), so nothing blocks
forever.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from dealer_protocol.messages import StateReport
from firmware_bridge.driver import Dealer, DealResult, DeviceInfo, Timeouts
from firmware_bridge.errors import DealerTimeout
from firmware_bridge.transport import Transport

T = TypeVar("T")


class SimpleDealer:
    """Blocking calls to a ``Dealer`` living in its own event-loop thread."""

    def __init__(self, dealer: Dealer, loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
        self.dealer = dealer
        self._loop = loop
        self._thread = thread
        self._closed = False

    @classmethod
    def open(
        cls, port: str | Transport, pair_key: bytes, *, timeouts: Timeouts | None = None
    ) -> SimpleDealer:
        """Open ``port`` (pyserial URL, device path or Transport) and connect."""
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, name="dealer-loop", daemon=True)
        thread.start()
        t = timeouts or Timeouts()
        future = asyncio.run_coroutine_threadsafe(Dealer.open(port, pair_key, timeouts=t), loop)
        try:
            dealer = future.result(t.connect + 5.0)
        except BaseException:
            future.cancel()
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout=5)
            loop.close()
            raise
        return cls(dealer, loop, thread)

    def _run(self, coro: Coroutine[Any, Any, T], limit: float | None = None) -> T:
        if self._closed:
            coro.close()
            raise RuntimeError("the dealer is closed")
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result(limit or self.dealer.timeouts.command + 5.0)
        except concurrent.futures.TimeoutError:
            # Since 3.11 this is the built-in TimeoutError, which DealerTimeout also is: only a future that is
            # still running means the facade itself waited too long.
            if future.done():
                raise
            future.cancel()
            raise DealerTimeout("the dealer's event loop did not answer in time") from None

    @property
    def info(self) -> DeviceInfo | None:
        """What HELLO told us."""
        return self.dealer.info

    @property
    def state(self) -> StateReport | None:
        """The last state report received."""
        return self.dealer.state

    def on_card(self, listener: Callable[[int, int, str | None], None]) -> None:
        """Call ``listener(cmd_id, pocket, card)`` per card read (from the loop's thread)."""
        self.dealer.on_card(listener)

    def on_busy(self, listener: Callable[[int, int, int], None]) -> None:
        """Call ``listener(cmd_id, done, total)`` per progress report of a long command (from the loop's thread)."""
        self.dealer.on_busy(listener)

    def ping(self) -> None:
        """A round trip."""
        self._run(self.dealer.ping())

    def status(self) -> StateReport:
        """The device's state report."""
        return self._run(self.dealer.status())

    def load(self, expected: list[str]) -> int:
        """Load and verify the deck."""
        return self._run(self.dealer.load(expected))

    def shuffle(self) -> None:
        """Shuffle the hopper."""
        self._run(self.dealer.shuffle())

    def deal(self, counts: tuple[int, ...] | list[int]) -> DealResult:
        """Deal a pattern of counts per pocket."""
        return self._run(self.dealer.deal(counts))

    def deal_more(self, pocket: int, count: int) -> DealResult:
        """Deal ``count`` more cards to ``pocket``."""
        return self._run(self.dealer.deal_more(pocket, count))

    def deal_rest(self, pocket: int) -> DealResult:
        """Deal the rest of the hopper to ``pocket``."""
        return self._run(self.dealer.deal_rest(pocket))

    def deal_file(self, assignments: list[tuple[str, int]]) -> DealResult:
        """Deal each named card to its named pocket."""
        return self._run(self.dealer.deal_file(assignments))

    def resume(self) -> DealResult:
        """Continue an interrupted deal."""
        return self._run(self.dealer.resume())

    def abort(self) -> StateReport:
        """Give up an interrupted deal."""
        return self._run(self.dealer.abort())

    def stop(self) -> None:
        """Emergency stop."""
        self._run(self.dealer.stop())

    def close(self) -> None:
        """Close the driver and stop the loop thread."""
        if self._closed:
            return
        try:
            self._run(self.dealer.close(), 10.0)
        finally:
            self._closed = True
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)
            self._loop.close()

    def __enter__(self) -> SimpleDealer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
