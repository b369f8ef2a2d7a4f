"""The driver's exceptions: one class per fault the machine reports, and the link's own failures.

Messages say what happened and what to do. They never name a card that may be in a player's hand (an
exception's text ends up in logs); the card, pocket and lists are attributes for the program to use.
A deck check's findings are named, because before a deal the deck's content is no secret.
"""

from __future__ import annotations

from dealer_protocol.messages import FAULT_MESSAGES, Fault, FaultDetail, Reply, StateReport

DECK_CHECK_FAULTS = (Fault.MISSING_CARD, Fault.EXTRA_CARD, Fault.DUPLICATE_CARD, Fault.FOREIGN_CARD)
DECK_CHECK_MESSAGE = (
    "the deck check failed: take the rejected cards from the reject tray, add the missing ones, load again"
)


class DealerError(Exception):
    """Anything that went wrong talking to the dealing machine."""


class LinkError(DealerError):
    """The serial link cannot be opened or keeps failing."""


class WrongKeyError(LinkError):
    """The machine answers, but it was paired with another key than the one this host was given."""


class DealerTimeout(DealerError, TimeoutError):
    """A wait ran out: no answer within its time limit."""


class ProtocolError(DealerError):
    """The other side does not speak our protocol, or not with our key."""


class DeviceFault(DealerError):
    """The machine answered a command with a fault."""

    code: Fault = Fault.OK

    def __init__(self, reply: Reply, op_name: str = "command") -> None:
        self.code = reply.status
        self.cmd_id = reply.cmd_id
        self.detail: FaultDetail = reply.detail
        self.state: StateReport | None = reply.state
        where = f", pocket {reply.detail.pocket}" if reply.detail.pocket is not None else ""
        why = f" ({reply.detail.reason})" if reply.detail.reason else ""
        text = FAULT_MESSAGES[reply.status]
        if op_name == "LOAD" and reply.status in DECK_CHECK_FAULTS:
            text = DECK_CHECK_MESSAGE
        super().__init__(
            f"dealing machine: {reply.status.name.lower()} during {op_name} {reply.cmd_id}{where}: "
            f"{text}{why}{self._findings()}"
        )

    def _findings(self) -> str:
        return ""


class JamError(DeviceFault):
    """A card jammed in the feed."""


class DoubleFeedError(DeviceFault):
    """Two cards were fed at once."""


class UnreadableCardError(DeviceFault):
    """The reader could not identify a card."""


class DeckError(DeviceFault):
    """A deck check found missing, extra, duplicate or foreign cards."""

    def _findings(self) -> str:
        d = self.detail
        parts = [
            f"{name}: {' '.join(c or '??' for c in cards)}"
            for name, cards in (
                ("missing", d.missing),
                ("extra", d.extra),
                ("duplicate", d.duplicate),
                ("foreign", d.foreign),
            )
            if cards
        ]
        if self.code in (Fault.DUPLICATE_CARD, Fault.FOREIGN_CARD) and not parts:
            return ""  # found during a deal: the card itself is not named (its twin may be in a hand)
        if self.code is Fault.MISSING_CARD and not any((d.extra, d.duplicate, d.foreign)) and self.state:
            if self.state.plan_cmd:
                return f" ({len(d.missing)} card(s) unaccounted for)"
        return f" ({'; '.join(parts)})" if parts else ""


class DuplicateCardError(DeckError):
    """A card read twice: a second copy in the deck."""


class MissingCardError(DeckError):
    """Cards of the deck are not there."""


class ForeignCardError(DeckError):
    """A card from another deck."""


class ExtraCardError(DeckError):
    """A card the game does not use."""


class HopperEmptyError(DeviceFault):
    """The hopper ran out before the deal was complete."""


class PocketCountError(DeviceFault):
    """A pocket's count disagrees with the cards sent to it."""


class DoorOpenError(DeviceFault):
    """The door was opened during mechanical work."""


class PowerLostError(DeviceFault):
    """The machine lost power during a deal."""


class EmergencyStopError(DeviceFault):
    """The deal was stopped by an emergency stop."""


class CommandRefused(DeviceFault):
    """The machine refused the command (bad arguments, no deck, a deal to resume first...)."""


FAULT_CLASSES: dict[Fault, type[DeviceFault]] = {
    Fault.JAM: JamError,
    Fault.DOUBLE_FEED: DoubleFeedError,
    Fault.UNREADABLE: UnreadableCardError,
    Fault.DUPLICATE_CARD: DuplicateCardError,
    Fault.MISSING_CARD: MissingCardError,
    Fault.FOREIGN_CARD: ForeignCardError,
    Fault.EXTRA_CARD: ExtraCardError,
    Fault.HOPPER_EMPTY: HopperEmptyError,
    Fault.POCKET_COUNT: PocketCountError,
    Fault.DOOR_OPEN: DoorOpenError,
    Fault.POWER_LOST: PowerLostError,
    Fault.EMERGENCY_STOP: EmergencyStopError,
    Fault.BAD_COMMAND: CommandRefused,
    Fault.NOT_LOADED: CommandRefused,
    Fault.FAULT_PENDING: CommandRefused,
    Fault.NOTHING_TO_RESUME: CommandRefused,
    Fault.CANCELLED: CommandRefused,
}


def fault_error(reply: Reply, op_name: str = "command") -> DeviceFault:
    """The exception for a reply whose status is a fault."""
    return FAULT_CLASSES[reply.status](reply, op_name)
