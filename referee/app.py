"""The table service: FastAPI over one ``TableSession``.

REST for commands (a match, a deal, bids, declarations, the game's other setup events, plays entered by hand,
the director's corrections and rulings, device status), ``GET /api/state`` per role, ``/ws`` pushing live events
per role, the exports (the table record and a PBN-style text marking each revoke), the pages, and ``/docs``.

Roles, each by its own token (a bearer token, or ``?token=`` for pages and the WebSocket):
``public`` sees the scoreboard and the cards played; ``table`` also enters bids, declarations and plays;
``director`` sees everything and corrects. Hidden cards (hands, kitty, pack, face-down cards) go to the director
only: the other roles get views and events built without them, and an error's reason has any card that is not
face up masked (a refusal can name a hidden card: "the pack gives 7H next").

Bad input is a 4xx JSON ``{"error": ..., ...}`` naming what is wrong; an unexpected fault is a 500 without a
traceback, and never loses a recorded event (the log is written before anything is acted on).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
import secrets
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Query, Request, WebSocket, WebSocketDisconnect
from fastapi import Path as Path_
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException

from referee.eventlog import EventLog, EventLogError, private_dir
from referee.export import pbn
from referee.table import Refused, TableSession

WEB = Path(__file__).parent / "web"


def swagger_ui_dir() -> Path:
    """Swagger UI's own files, shipped by the ``swagger-ui-py`` package (``/docs`` works with no internet).

    The package is located, not imported (its import pulls in its web framework handlers, which are not used).
    """
    spec = importlib.util.find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the swagger-ui-py package is missing: pip install swagger-ui-py")
    return Path(next(iter(spec.submodule_search_locations))) / "static"


ROLES = ("public", "table", "director")
CARD_RE = re.compile(r"\b(?:10|[2-9TJQKA])[SHDC]\b|\b[BL]J\b", re.IGNORECASE)

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


def load_tokens(data_dir: Path) -> dict[str, str]:
    """The roles' tokens: kept in the private data directory so that a restart (a power cut) keeps every tablet
    and page working; made at the first start."""
    path = data_dir / "tokens.json"
    if path.exists():
        tokens = json.loads(path.read_text())
        if set(tokens) == set(ROLES):
            return dict(tokens)
    tokens = {role: secrets.token_urlsafe(18) for role in ROLES}
    tmp = data_dir / "tokens.json.tmp"
    fd = os.open(tmp, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)  # 0600 from the first byte
    with os.fdopen(fd, "w") as f:
        f.write(json.dumps(tokens))
        f.flush()
        os.fsync(f.fileno())
    tmp.replace(path)
    return tokens


def masked(text: str, allowed: set[str]) -> str:
    """``text`` with every card code not in ``allowed`` (face up, or named by the asker) masked."""
    def one(m: re.Match[str]) -> str:
        code = m.group(0).upper().replace("10", "T")
        return m.group(0) if code in allowed else "a card"

    # The engine's own hint "(..., or BJ / LJ)" names the jokers as kinds of card, not as someone's card.
    hint = "or BJ / LJ)"
    return hint.join(CARD_RE.sub(one, part) for part in text.split(hint))


def public_event(event: dict[str, Any]) -> dict[str, Any]:
    """An event as everyone at the table sees it: the cards played face up, the bids, the declarations; only the
    number of cards of a deal, discard, draw, rob or burn."""
    kind = event.get("event")
    if kind == "play":
        return {"event": "play", "seat": event.get("seat"), "card": event.get("card")}
    if kind == "bid":
        return {"event": "bid", "seat": event.get("seat"), "bid": event.get("bid")}
    if kind == "declare":
        keep = ("seat", "trump", "direction", "call")
        return {"event": "declare", **{k: event[k] for k in keep if k in event}}
    if kind == "fold":
        return {"event": "fold", "team": event.get("team")}
    if kind == "deal":
        return {"event": "deal", "dealer": event.get("dealer"), "hands_known": event.get("hands") is not None}
    if kind in ("discard", "draw", "rob", "burn"):
        cards = event.get("cards")
        return {"event": kind, "seat": event.get("seat"), "count": len(cards) if isinstance(cards, list) else None}
    return {"event": kind, "seat": event.get("seat")} if "seat" in event else {"event": kind}


class Hub:
    """The WebSocket clients, each with its role; messages are built once per role and queued on the loop."""

    def __init__(self, session: TableSession) -> None:
        self.session = session
        self.loop: asyncio.AbstractEventLoop | None = None
        self.clients: dict[asyncio.Queue[str], str] = {}
        self.lock = threading.Lock()
        self._public_calls: set[tuple[int, int, int]] | None = None
        self._director_calls: set[tuple[int, int, int, bool]] | None = None
        session.listeners.append(self.on_notice)

    @staticmethod
    def _call_keys(view: dict[str, Any]) -> set[tuple[int, int, int]]:
        calls = list((view.get("hand") or {}).get("reneges", []))
        for h in view.get("history", []):
            calls += h["reneges"]
        return {(c["hand"], c["seat"], c["trick"]) for c in calls}

    @staticmethod
    def _call_keys_director(view: dict[str, Any]) -> set[tuple[int, int, int, bool]]:
        return {(c["hand"], c["seat"], c["trick"], c["proven"]) for c in view.get("calls", [])}

    def join(self, queue: asyncio.Queue[str], role: str) -> None:
        """A client joins: the calls known now are the baseline of its alerts."""
        with self.session.lock:
            if self._public_calls is None or self._director_calls is None:
                self._public_calls = self._call_keys(self.session.public_state())
                self._director_calls = self._call_keys_director(self.session.director_state())
            with self.lock:
                self.clients[queue] = role

    def on_notice(self, notice: dict[str, Any]) -> None:
        """Called by the session (under its lock, after the log write) for everything that happens."""
        with self.lock:
            clients = list(self.clients.items())
        if not clients or self.loop is None:
            # Nobody listens: nothing to build. The calls known so far are taken afresh at the next notice.
            self._public_calls = self._director_calls = None
            return
        pub_state = self.session.public_state()
        dir_state = self.session.director_state()
        seq, kind = notice["seq"], notice["kind"]
        public: list[dict[str, Any]] = []
        if kind == "game":
            public.append({"type": "event", "seq": seq, "event": public_event(notice["event"])})
        elif kind == "refused":
            public.append({"type": "refused", "seq": seq})
        elif kind in ("undo", "replace", "ruling"):
            public.append({"type": "correction", "seq": seq, "kind": kind})
        elif kind in ("match", "status"):
            public.append({"type": kind, "seq": seq})
        elif kind == "observation":
            public = []  # the camera's unsure reads are the director's
        calls = self._call_keys(pub_state)
        new_calls = calls - self._public_calls if kind == "game" and self._public_calls is not None else set()
        self._public_calls = calls
        for h in [pub_state.get("hand") or {}, *pub_state.get("history", [])]:
            for c in h.get("reneges", []):
                if (c["hand"], c["seat"], c["trick"]) in new_calls:
                    public.append({"type": "renege", "seq": seq, "call": c})
        if kind != "observation":
            public.append({"type": "state", "seq": seq, "state": pub_state})
        director: list[dict[str, Any]] = [{"type": kind, "seq": seq, "notice": notice}]
        dcalls = self._call_keys_director(dir_state)
        fresh = dcalls - self._director_calls if self._director_calls is not None else set()
        self._director_calls = dcalls
        for c in dir_state.get("calls", []):
            if (c["hand"], c["seat"], c["trick"], c["proven"]) in fresh:
                director.append({"type": "renege" if c["proven"] else "suspicion", "seq": seq, "call": c})
        director.append({"type": "state", "seq": seq, "state": dir_state})
        texts = {
            "public": [json.dumps(m) for m in public],
            "table": [json.dumps(m) for m in public],
            "director": [json.dumps(m) for m in director],
        }
        loop = self.loop
        for queue, role in clients:
            for text in texts[role]:
                loop.call_soon_threadsafe(queue.put_nowait, text)


def role_of(request: Request, token: str | None) -> str:
    """The role of the request's token (a bearer header, or ``?token=``); 401 without a known one."""
    header = request.headers.get("authorization", "")
    given = header[7:].strip() if header.lower().startswith("bearer ") else token
    role = request.app.state.by_token.get(given or "")
    if role is None:
        raise HTTPException(401, "a token is needed: 'Authorization: Bearer TOKEN' or ?token=TOKEN",
                            headers={"WWW-Authenticate": "Bearer"})
    request.state.role = role
    return str(role)


TokenQuery = Annotated[str | None, Query(max_length=100, description="the role's token, if not a bearer header")]


def any_role(request: Request, token: TokenQuery = None) -> str:
    return role_of(request, token)


def table_role(request: Request, token: TokenQuery = None) -> str:
    role = role_of(request, token)
    if role not in ("table", "director"):
        raise HTTPException(403, f"the {role} token cannot enter events: the table's or the director's can")
    return role


def director_role(request: Request, token: TokenQuery = None) -> str:
    role = role_of(request, token)
    if role != "director":
        raise HTTPException(403, f"only the director's token can do this, not the {role} token")
    return role


AnyRole = Annotated[str, Depends(any_role)]
TableRole = Annotated[str, Depends(table_role)]
DirectorRole = Annotated[str, Depends(director_role)]


def create_app(
    data_dir: Path | str,
    game: str = "bid_whist",
    dealer: str = "none",
    camera: str = "none",
) -> FastAPI:
    """The service of one table; its log and tokens live in ``data_dir`` (made private)."""
    data = private_dir(Path(data_dir))
    log = EventLog(data / "events.sqlite")
    session = TableSession(log, dealer=dealer, camera=camera, frames_dir=data / "frames")
    tokens = load_tokens(data)
    by_token = {t: role for role, t in tokens.items()}
    hub = Hub(session)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        hub.loop = asyncio.get_running_loop()
        yield
        # The log stays open: every row is already on the disk (synchronous=FULL), and an app may be started again.
        hub.loop = None

    app = FastAPI(
        title="cardref table service",
        description="The referee of one card table: commands, live events per role, exports.",
        version="1",
        lifespan=lifespan,
        docs_url=None,  # served below from the service's own copy of Swagger UI, not from a CDN
        redoc_url=None,  # ReDoc would load its script from a CDN; /docs is enough
    )
    app.state.session = session
    app.state.tokens = tokens
    app.state.hub = hub
    app.state.by_token = by_token
    app.state.dealer_bridge = None  # a referee.dealer.DealerBridge when a dealing machine is joined

    # ---------------------------------------------------------------- errors: always JSON naming what is wrong

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = []
        for e in exc.errors():
            where = ".".join(str(x) for x in e.get("loc", ()))
            problems.append(f"{where}: {e.get('msg')}")
        return JSONResponse({"error": "; ".join(problems) or "bad request", "seq": None}, status_code=422)

    @app.exception_handler(Refused)
    async def refused(request: Request, exc: Refused) -> JSONResponse:
        role = getattr(request.state, "role", "public")
        reason = exc.reason if role == "director" else masked(exc.reason, getattr(request.state, "named", set()))
        return JSONResponse({"error": reason, "seq": exc.seq}, status_code=exc.status)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse({"error": str(exc.detail), "seq": None}, status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    @app.exception_handler(EventLogError)
    async def log_error(request: Request, exc: EventLogError) -> JSONResponse:
        return JSONResponse({"error": f"the event was not recorded: {exc}", "seq": None}, status_code=503)

    @app.exception_handler(Exception)
    async def fault(request: Request, exc: Exception) -> JSONResponse:
        # No traceback to a user; the log already holds every recorded event.
        return JSONResponse({"error": f"internal error ({type(exc).__name__}); nothing recorded was lost",
                             "seq": None}, status_code=500)

    def view(role: str) -> dict[str, Any]:
        return session.director_state() if role == "director" else session.public_state()

    def submit(request: Request, role: str, event: dict[str, Any]) -> Accepted:
        # The cards the asker named may be repeated back in a refusal; any other card is masked for them.
        request.state.named = {m.group(0).upper().replace("10", "T") for m in CARD_RE.finditer(json.dumps(event))}
        request.state.named |= session_face_up()
        row = session.submit(event, role, role)
        return Accepted(seq=row.seq, state=view(role))

    def session_face_up() -> set[str]:
        cur = session.current
        if cur is None:
            return set()
        out: set[str] = set()
        for h in cur.match.hands:
            out |= session.face_up(h)
        return out

    # ---------------------------------------------------------------- commands

    @app.post("/api/matches", response_model=Accepted, responses=ERRORS, tags=["table"])
    def create_match(body: MatchRequest, request: Request, role: TableRole) -> Accepted:
        """Start a match (the table may when none is running; the director always)."""
        cur = session.current
        if role != "director" and cur is not None and not cur.match.is_terminal():
            raise HTTPException(409, f"match {cur.id} is still being played: only the director can start another")
        st = session.create_match(body.game or game, body.options, body.players, body.first_dealer, role, role)
        return Accepted(seq=st.id, state=view(role))

    @app.post("/api/deal", response_model=Accepted, responses=ERRORS, tags=["table"])
    def deal(body: DealRequest, request: Request, role: TableRole) -> Accepted:
        """A deal: the hands as the dealing machine read them, or null when dealt by hand."""
        if role != "director" and (body.hands is not None or any(x is not None for x in (body.kitty, body.pack,
                                                                                          body.blind))):
            raise HTTPException(403, "only the director (or the dealing machine) gives the dealt cards; the table "
                                     "posts a deal by hand with hands null")
        cur = session.current
        event: dict[str, Any] = {"event": "deal", "dealer": body.dealer if body.dealer is not None else
                                 (cur.match.hand.dealer if cur else 0), "hands": body.hands}
        if cur is not None:
            key = cur.match.hand.extra_key()
            if key is not None:
                event[key] = getattr(body, key)
        return submit(request, role, event)

    @app.post("/api/deal/machine", response_model=Accepted, responses=ERRORS | {503: {"model": ErrorBody}},
              tags=["table"])
    def deal_with_machine(request: Request, role: TableRole) -> Accepted:
        """The dealing machine deals the hand and reads every card; its deal is posted as the table's."""
        bridge = request.app.state.dealer_bridge
        if bridge is None:
            raise HTTPException(409, "no dealing machine at this table: deal by hand (POST /api/deal, hands null)")
        seq = bridge.deal("dealer", "machine")
        return Accepted(seq=seq, state=view(role))

    def machine_or_hand(request: Request, what: str) -> Any:
        bridge = request.app.state.dealer_bridge
        if bridge is None:
            raise HTTPException(409, f"no dealing machine at this table: post the {what}'s cards (null for each card "
                                     "not seen)")
        return bridge

    @app.post("/api/pitch/refill", response_model=Accepted, responses=ERRORS | {503: {"model": ErrorBody}},
              tags=["table"])
    def pitch_refill(body: RefillRequest, request: Request, role: TableRole) -> Accepted:
        """Pitch: a seat asks for its refill. Without ``cards``, the dealing machine deals them to the seat's pocket
        (the 6 - k due, or ``count``) and a ``draw`` is recorded with the cards it read; with ``cards``, the refill
        was dealt by hand."""
        if body.cards is not None:
            if body.count is not None and body.count != len(body.cards):
                raise HTTPException(422, f"count: {body.count} but {len(body.cards)} cards given")
            return submit(request, role, {"event": "draw", "seat": body.seat, "cards": body.cards})
        seq = machine_or_hand(request, "refill").refill(body.seat, body.count)
        return Accepted(seq=seq, state=view(role))

    @app.post("/api/pitch/rob", response_model=Accepted, responses=ERRORS | {503: {"model": ErrorBody}},
              tags=["table"])
    def pitch_rob(body: RobRequest, request: Request, role: TableRole) -> Accepted:
        """Pitch: the declarer robs the pack. Without ``cards``, the dealing machine deals the rest of the pack to
        the seat's pocket and a ``rob`` is recorded with the cards it read; with ``cards``, it was dealt by hand."""
        if body.cards is not None:
            cur = session.current
            seat = body.seat if body.seat is not None else getattr(cur.match.hand, "declarer", None) if cur else None
            if seat is None:
                raise HTTPException(409, "no declarer yet: the rob follows the declaration")
            return submit(request, role, {"event": "rob", "seat": seat, "cards": body.cards})
        seq = machine_or_hand(request, "rob").rob(body.seat)
        return Accepted(seq=seq, state=view(role))

    @app.post("/api/bid", response_model=Accepted, responses=ERRORS, tags=["table"])
    def bid(body: BidRequest, request: Request, role: TableRole) -> Accepted:
        return submit(request, role, {"event": "bid", **body.model_dump()})

    @app.post("/api/declare", response_model=Accepted, responses=ERRORS, tags=["table"])
    def declare(body: DeclareRequest, request: Request, role: TableRole) -> Accepted:
        event = {"event": "declare", **body.model_dump(exclude_unset=True)}
        event.setdefault("trump", None)
        return submit(request, role, event)

    @app.post("/api/setup", response_model=Accepted, responses=ERRORS, tags=["table"])
    def setup(body: SetupRequest, request: Request, role: TableRole) -> Accepted:
        """The game's other events: discard, joker_swap, exchange, fold, draw, rob, burn, retract."""
        if body.event == "retract" and role != "director":
            raise HTTPException(403, "only the director lets a player take a card back")
        return submit(request, role, body.model_dump(exclude_unset=True) | {"event": body.event})

    @app.post("/api/play", response_model=Accepted, responses=ERRORS, tags=["table"])
    def play(body: PlayRequest, request: Request, role: TableRole) -> Accepted:
        """A card played, entered by hand (no camera, or the camera lost)."""
        return submit(request, role, {"event": "play", "seat": body.seat, "card": body.card})

    # ---------------------------------------------------------------- the director

    @app.post("/api/corrections/undo", response_model=Accepted, responses=ERRORS, tags=["director"])
    def undo(body: UndoRequest, role: DirectorRole) -> Accepted:
        row = session.correct("undo", body.target, body.who, body.why)
        return Accepted(seq=row.seq, state=view(role))

    @app.post("/api/corrections/replace", response_model=Accepted, responses=ERRORS, tags=["director"])
    def replace(body: ReplaceRequest, role: DirectorRole) -> Accepted:
        row = session.correct("replace", body.target, body.who, body.why, body.event)
        return Accepted(seq=row.seq, state=view(role))

    @app.post("/api/corrections/fix_card", response_model=Accepted, responses=ERRORS, tags=["director"])
    def fix_card(body: FixCardRequest, role: DirectorRole) -> Accepted:
        row = session.fix_card(body.target, body.card, body.who, body.why)
        return Accepted(seq=row.seq, state=view(role))

    @app.post("/api/rulings", response_model=Accepted, responses=ERRORS, tags=["director"])
    def ruling(body: RulingRequest, role: DirectorRole) -> Accepted:
        """Accept or reject a renege call (or a suspicion): recorded with who and why, shown beside the call."""
        row = session.rule(body.hand, body.seat, body.trick, body.ruling, body.who, body.why)
        return Accepted(seq=row.seq, state=view(role))

    @app.post("/api/status", response_model=Accepted, responses=ERRORS, tags=["director"])
    def status(body: StatusRequest, role: DirectorRole) -> Accepted:
        """A device lost, back or absent (the dealing machine, the camera): shown on every page."""
        row = session.set_device(body.device, body.state, role, role, body.why)
        return Accepted(seq=row.seq, state=view(role))

    # ---------------------------------------------------------------- reading

    @app.get("/api/state", responses=ERRORS, tags=["views"])
    def state(role: AnyRole) -> dict[str, Any]:
        """The table as the token's role may see it."""
        return dict(view(role), role=role)

    @app.get("/api/log", responses=ERRORS, tags=["director"])
    def event_log(role: DirectorRole, after: Annotated[int, Query(ge=0, le=2**62)] = 0,
                  limit: Annotated[int, Query(ge=1, le=10000)] = 1000) -> list[dict[str, Any]]:
        """The rows of the event log, in order (refusals, corrections and rulings included)."""
        out = []
        for row in log.rows(after=after):
            out.append(row.to_json())
            if len(out) >= limit:
                break
        return out

    @app.get("/api/matches", responses=ERRORS, tags=["director"])
    def matches(role: DirectorRole) -> list[dict[str, Any]]:
        return [{"id": m, **(log.get(m).event if log.get(m) else {})} for m in log.matches() if m]

    @app.get("/api/export/record", responses=ERRORS, response_class=PlainTextResponse, tags=["director"])
    def export_record(role: DirectorRole, match: Annotated[int | None, Query(ge=1, le=2**62)] = None) -> str:
        """The table record (CONVENTIONS.md, JSON Lines) of a match: the current one by default."""
        from engine.record import dumps

        return dumps(session.record(match))

    @app.get("/api/export/pbn", responses=ERRORS, response_class=PlainTextResponse, tags=["director"])
    def export_pbn(role: DirectorRole, match: Annotated[int | None, Query(ge=1, le=2**62)] = None) -> str:
        """A PBN-style text of a match, each revoke marked."""
        st = session.match_state(match)
        row = log.get(st.id)
        date = time.strftime("%Y.%m.%d", time.gmtime(row.time)) if row is not None else ""
        return pbn(st.header, st.events, st.match, date)

    @app.get("/api/frames/{seq}", responses=ERRORS | {200: {"content": {"image/jpeg": {}}}},
             response_class=FileResponse, tags=["director"])
    def frame(seq: Annotated[int, Path_(ge=1, le=2**62)], role: DirectorRole) -> FileResponse:
        """The camera frame that showed the card of event ``seq`` (evidence of a call)."""
        path = session.frame_of(seq)
        if path is None:
            raise HTTPException(404, f"no camera frame kept for event {seq}")
        return FileResponse(path, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    # ---------------------------------------------------------------- live

    @app.websocket("/ws")
    async def live(ws: WebSocket, token: str | None = None) -> None:
        header = ws.headers.get("authorization", "")
        given = header[7:].strip() if header.lower().startswith("bearer ") else token
        role = by_token.get(given or "")
        if role is None:
            await ws.close(code=4401, reason="a token is needed: ?token=TOKEN")
            return
        await ws.accept()
        queue: asyncio.Queue[str] = asyncio.Queue()
        hub.join(queue, role)
        try:
            await ws.send_text(json.dumps({"type": "hello", "role": role, "state": view(role)}))
            receiver = asyncio.ensure_future(ws.receive_text())
            while True:
                getter = asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait({getter, receiver}, return_when=asyncio.FIRST_COMPLETED)
                if receiver in done:
                    getter.cancel()
                    receiver.result()  # raises WebSocketDisconnect when the client goes
                    receiver = asyncio.ensure_future(ws.receive_text())  # clients only keep alive; ignored
                    continue
                await ws.send_text(getter.result())
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass  # the client went (closed, network gone, or the service is stopping)
        finally:
            with hub.lock:
                hub.clients.pop(queue, None)

    # ---------------------------------------------------------------- pages

    @app.get("/", include_in_schema=False)
    def home(token: str | None = None) -> RedirectResponse:
        return RedirectResponse("/table" + (f"?token={token}" if token else ""))

    for page in ("table", "director", "scoreboard"):
        app.add_api_route(f"/{page}", page_route(WEB / f"{page}.html"), include_in_schema=False, methods=["GET"])
    app.mount("/static", StaticFiles(directory=WEB), name="static")

    # ---------------------------------------------------------------- /docs, offline

    app.mount("/docs-static", StaticFiles(directory=swagger_ui_dir()), name="docs-static")

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=app.title + " - API",
            swagger_js_url="/docs-static/swagger-ui-bundle.js",
            swagger_css_url="/docs-static/swagger-ui.css",
            swagger_favicon_url="/docs-static/favicon-32x32.png",
            oauth2_redirect_url=app.swagger_ui_oauth2_redirect_url,
        )

    @app.get(app.swagger_ui_oauth2_redirect_url or "/docs/oauth2-redirect", include_in_schema=False)
    def docs_oauth2_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    return app


def page_route(path: Path) -> Any:
    def serve_page() -> FileResponse:
        return FileResponse(path, headers={"Cache-Control": "no-store"})

    return serve_page
