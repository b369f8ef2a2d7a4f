"""The two devices as the service sees them: small protocols, so the service depends on what it uses of a device
and not on a driver. ``firmware_bridge.simple.SimpleDealer`` (the serial link, to a real or simulated machine) is
a ``DealingMachine``; ``vision.play.PlayDetector`` is a ``PlayDetector``. A test or a new device fits by shape."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol


class DealResult(Protocol):
    """What the pockets hold after a deal command: every pocket's cards, and this command's reads in order."""

    @property
    def pockets(self) -> tuple[tuple[str | None, ...], ...]: ...

    @property
    def reads(self) -> tuple[tuple[int, str | None], ...]: ...


class DealingMachine(Protocol):
    """The automatic shuffler/dealer: loaded with a deck, it shuffles and deals a pattern into its pockets, reading
    every card (None for a card it could not read)."""

    def load(self, expected: list[str]) -> int: ...

    def shuffle(self) -> None: ...

    def deal(self, counts: tuple[int, ...] | list[int]) -> DealResult: ...

    def deal_more(self, pocket: int, count: int) -> DealResult: ...

    def deal_rest(self, pocket: int) -> DealResult: ...


class CameraEvent(Protocol):
    """One thing the camera saw: ``kind`` (card_played, unsure_card, trick_gathered, camera_lost, ...), in which
    frame, by which seat, which card."""

    kind: str
    frame: int
    seat: int | None
    code: str | None
    detail: str

    def to_json(self) -> dict[str, Any]: ...


class PlayDetector(Protocol):
    """Frames in, play events out. The service tells it whose turn it is, whether a seat can hold a card (a card
    it cannot hold is a misread), and how many seats the game has (which mat it must see)."""

    turn: Callable[[], int | None] | None
    check: Callable[[int | None, str], bool] | None
    seats: Callable[[], int | None] | int | None

    def feed(self, frame: Any) -> Sequence[CameraEvent]: ...
