"""The request and answer bodies of the API (validated by pydantic: a bad field is a 422 naming it)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Card = Annotated[str, Field(min_length=2, max_length=3, description="a card code: TH, 9C, AS, 10H, BJ, LJ")]
CardList = list[Card | None]
Seat = Annotated[int, Field(ge=0, le=4, description="a seat, 0..n-1 clockwise")]
Text = Annotated[str, Field(min_length=1, max_length=200)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MatchRequest(Strict):
    game: Literal["bid_whist", "bid_euchre", "pitch"] | None = Field(None, description="default: the served game")
    options: dict[str, int | bool | str] = Field(default_factory=dict, description="RULINGS.md option names")
    players: list[Annotated[str, Field(min_length=1, max_length=40)]] | None = Field(None, min_length=4, max_length=5)
    first_dealer: Seat = 0


class DealRequest(Strict):
    dealer: Seat | None = None
    hands: list[CardList | None] | None = Field(None, max_length=5, description="per seat; null: dealt by hand")
    kitty: CardList | None = Field(None, max_length=18)
    pack: CardList | None = Field(None, max_length=18)
    blind: CardList | None = Field(None, max_length=18)


class BidRequest(Strict):
    seat: Seat
    bid: Annotated[str, Field(min_length=1, max_length=12, description='"pass", "4", "4 low", "single", "moon"')]


class DeclareRequest(Strict):
    seat: Seat
    trump: Literal["S", "H", "D", "C"] | None = None
    direction: Literal["high", "low"] | None = None
    call: Card | None = Field(None, description="five-handed Pitch: the called card")


class SetupRequest(Strict):
    event: Literal["discard", "joker_swap", "exchange", "fold", "draw", "rob", "burn", "retract"]
    seat: Seat | None = None
    team: Annotated[int, Field(ge=0, le=1)] | None = None
    cards: CardList | None = Field(None, max_length=18)
    card: Card | None = None
    joker: Card | None = None
    drew: Card | None = None


class RefillRequest(Strict):
    seat: Seat = Field(description="the seat asking for its refill")
    count: Annotated[int, Field(ge=0, le=18)] | None = Field(
        None, description="with the machine: how many cards to deal (default: the 6 - k due by RULINGS.md)")
    cards: CardList | None = Field(None, max_length=18, description="dealt by hand: the cards drawn (null: not seen); "
                                   "leave out to have the dealing machine deal them")


class RobRequest(Strict):
    seat: Seat | None = Field(None, description="default: the declarer (rob_to_partner: or the partner)")
    cards: CardList | None = Field(None, max_length=18, description="dealt by hand: the rest of the pack (null: not "
                                   "seen); leave out to have the dealing machine deal them")


class PlayRequest(Strict):
    seat: Seat
    card: Card


class UndoRequest(Strict):
    target: Annotated[int, Field(ge=1, le=2**62, description="the seq of the event to undo")]
    who: Text
    why: Text


class ReplaceRequest(Strict):
    target: Annotated[int, Field(ge=1, le=2**62)]
    event: dict[str, Any] = Field(description="the table record event that replaces it")
    who: Text
    why: Text


class FixCardRequest(Strict):
    target: Annotated[int, Field(ge=1, le=2**62, description="the seq of the play whose card was misread")]
    card: Card
    who: Text
    why: Text


class RulingRequest(Strict):
    hand: Annotated[int, Field(ge=1, le=10**6)]
    seat: Seat
    trick: Annotated[int, Field(ge=1, le=18)]
    ruling: Literal["accept", "reject"]
    who: Text
    why: Text


class StatusRequest(Strict):
    device: Literal["dealer", "camera"]
    state: Literal["ok", "lost", "none"]
    why: str = Field("", max_length=200)


class Accepted(BaseModel):
    seq: int = Field(description="the event's row in the log")
    state: dict[str, Any]


class ErrorBody(BaseModel):
    error: str
    seq: int | None = Field(None, description="the refused attempt's row in the log, when it was logged")


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody} for code in (401, 403, 404, 409, 422)
}
