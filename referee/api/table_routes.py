"""What the table enters (the table's token or the director's): a match, a deal, bids, declarations, the game's
other setup events, Pitch's refill and rob with or without the dealing machine, and plays entered by hand."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.exceptions import HTTPException

from referee.api.auth import TableRole
from referee.api.deps import session_of, submit, view
from referee.api.models import (
    ERRORS,
    Accepted,
    BidRequest,
    DealRequest,
    DeclareRequest,
    ErrorBody,
    MatchRequest,
    PlayRequest,
    RefillRequest,
    RobRequest,
    SetupRequest,
)
from referee.dealer import DealerBridge

router = APIRouter(tags=["table"])
MACHINE_ERRORS: dict[int | str, dict[str, Any]] = ERRORS | {503: {"model": ErrorBody}}


@router.post("/api/matches", response_model=Accepted, responses=ERRORS)
def create_match(body: MatchRequest, request: Request, role: TableRole) -> Accepted:
    """Start a match (the table may when none is running; the director always)."""
    session = session_of(request)
    cur = session.current
    if role != "director" and cur is not None and not cur.match.is_terminal():
        raise HTTPException(409, f"match {session.match_number(cur.id)} is still being played: only the director "
                                 "can start another")
    game = body.game or request.app.state.game
    st = session.create_match(game, body.options, body.players, body.first_dealer, role, role)
    return Accepted(seq=st.id, state=view(session, role))


@router.post("/api/deal", response_model=Accepted, responses=ERRORS)
def deal(body: DealRequest, request: Request, role: TableRole) -> Accepted:
    """A deal: the hands as the dealing machine read them, or null when dealt by hand."""
    if role != "director" and (body.hands is not None or any(x is not None for x in (body.kitty, body.pack,
                                                                                      body.blind))):
        raise HTTPException(403, "only the director (or the dealing machine) gives the dealt cards; the table "
                                 "posts a deal by hand with hands null")
    cur = session_of(request).current
    event: dict[str, Any] = {"event": "deal", "dealer": body.dealer if body.dealer is not None else
                             (cur.match.hand.dealer if cur else 0), "hands": body.hands}
    if cur is not None:
        key = cur.match.hand.extra_key()
        if key is not None:
            event[key] = getattr(body, key)
    return submit(request, role, event)


def _machine(request: Request, what: str) -> DealerBridge:
    bridge: DealerBridge | None = request.app.state.dealer_bridge
    if bridge is None:
        raise HTTPException(409, f"no dealing machine at this table: post the {what}'s cards (null for each card "
                                 "not seen)")
    return bridge


@router.post("/api/deal/machine", response_model=Accepted, responses=MACHINE_ERRORS)
def deal_with_machine(request: Request, role: TableRole) -> Accepted:
    """The dealing machine deals the hand and reads every card; its deal is posted as the table's."""
    bridge: DealerBridge | None = request.app.state.dealer_bridge
    if bridge is None:
        raise HTTPException(409, "no dealing machine at this table: deal by hand (POST /api/deal, hands null)")
    seq = bridge.deal("dealer", "machine")
    return Accepted(seq=seq, state=view(session_of(request), role))


@router.post("/api/pitch/refill", response_model=Accepted, responses=MACHINE_ERRORS)
def pitch_refill(body: RefillRequest, request: Request, role: TableRole) -> Accepted:
    """Pitch: a seat asks for its refill. Without ``cards``, the dealing machine deals them to the seat's pocket
    (the 6 - k due, or ``count``) and a ``draw`` is recorded with the cards it read; with ``cards``, the refill
    was dealt by hand."""
    if body.cards is not None:
        if body.count is not None and body.count != len(body.cards):
            raise HTTPException(422, f"count: {body.count} but {len(body.cards)} cards given")
        return submit(request, role, {"event": "draw", "seat": body.seat, "cards": body.cards})
    seq = _machine(request, "refill").refill(body.seat, body.count)
    return Accepted(seq=seq, state=view(session_of(request), role))


@router.post("/api/pitch/rob", response_model=Accepted, responses=MACHINE_ERRORS)
def pitch_rob(body: RobRequest, request: Request, role: TableRole) -> Accepted:
    """Pitch: the declarer robs the pack. Without ``cards``, the dealing machine deals the rest of the pack to
    the seat's pocket and a ``rob`` is recorded with the cards it read; with ``cards``, it was dealt by hand."""
    if body.cards is not None:
        cur = session_of(request).current
        seat = body.seat if body.seat is not None else getattr(cur.match.hand, "declarer", None) if cur else None
        if seat is None:
            raise HTTPException(409, "no declarer yet: the rob follows the declaration")
        return submit(request, role, {"event": "rob", "seat": seat, "cards": body.cards})
    seq = _machine(request, "rob").rob(body.seat)
    return Accepted(seq=seq, state=view(session_of(request), role))


@router.get("/api/entry", responses=ERRORS)
def table_entry(request: Request, role: TableRole) -> dict[str, Any]:
    """What the table may enter now, for the table page's buttons: the seat on turn, one-tap actions (deal,
    bids, declarations, the game's setup steps, each with its request), and the cards to tap for a play (the
    deck, each card ``legal`` unless already played face up in this hand, ``follows`` when it follows the suit
    led). Public information only: no hand the referee knows is used."""
    return session_of(request).entry(machine_joined=request.app.state.dealer_bridge is not None)


@router.post("/api/bid", response_model=Accepted, responses=ERRORS)
def bid(body: BidRequest, request: Request, role: TableRole) -> Accepted:
    return submit(request, role, {"event": "bid", **body.model_dump()})


@router.post("/api/declare", response_model=Accepted, responses=ERRORS)
def declare(body: DeclareRequest, request: Request, role: TableRole) -> Accepted:
    event = {"event": "declare", **body.model_dump(exclude_unset=True)}
    event.setdefault("trump", None)
    return submit(request, role, event)


@router.post("/api/setup", response_model=Accepted, responses=ERRORS)
def setup(body: SetupRequest, request: Request, role: TableRole) -> Accepted:
    """The game's other events: discard, joker_swap, exchange, fold, draw, rob, burn, retract."""
    if body.event == "retract" and role != "director":
        raise HTTPException(403, "only the director lets a player take a card back")
    return submit(request, role, body.model_dump(exclude_unset=True) | {"event": body.event})


@router.post("/api/play", response_model=Accepted, responses=ERRORS)
def play(body: PlayRequest, request: Request, role: TableRole) -> Accepted:
    """A card played, entered by hand (no camera, or the camera lost)."""
    return submit(request, role, {"event": "play", "seat": body.seat, "card": body.card})
