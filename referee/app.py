"""The table service: FastAPI over one ``TableSession``, its routes split by role (``referee.api``).

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
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from referee.api import director_routes, join, live, public_routes, table_routes
from referee.api.auth import load_tokens
from referee.api.privacy import masked
from referee.eventlog import EventLog, EventLogError, private_dir, recover_hint
from referee.table import EngineFault, Refused, TableSession


def create_app(
    data_dir: Path | str,
    game: str = "bid_whist",
    dealer: str = "none",
    camera: str = "none",
) -> FastAPI:
    """The service of one table; its log and tokens live in ``data_dir`` (made private). Everything a route needs
    is on ``app.state``: ``session``, ``tokens``, ``hub``, ``game`` (the served game) and
    ``dealer_bridge`` (a ``referee.dealer.DealerBridge`` when a dealing machine is joined)."""
    data = private_dir(Path(data_dir))
    # Tokens made means the table has been used: from then on its log must be there and whole.
    established = (data / "tokens.json").exists()
    tokens = load_tokens(data)
    log = EventLog(data / "events.sqlite", established=established)
    try:
        session = TableSession(log, dealer=dealer, camera=camera, frames_dir=data / "frames")
    except Exception as exc:  # noqa: BLE001 - a log the referee cannot replay: said in one line, never a traceback
        log.db.close()
        raise EventLogError(f"{log.path}: the event log cannot be replayed ({type(exc).__name__}: {exc}); "
                            f"{recover_hint(data)}") from None
    hub = live.Hub(session)

    async def checkpoints() -> None:
        # The WAL folded into the database file on a schedule, so a copy of the file alone is at most this old.
        while True:
            await asyncio.sleep(CHECKPOINT_EVERY)
            await asyncio.to_thread(_checkpoint, session)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        hub.loop = asyncio.get_running_loop()
        task = asyncio.create_task(checkpoints())
        try:
            yield
        finally:
            task.cancel()
            # Every row is already on the disk (synchronous=FULL); the checkpoint makes the database file alone
            # the whole log after a clean stop. The log stays open: an app may be started again.
            _checkpoint(session)
            hub.loop = None

    app = FastAPI(
        title="cardref table service",
        description="The referee of one card table: commands, live events per role, exports.",
        version="1",
        lifespan=lifespan,
        docs_url=None,  # served by public_routes from the service's own copy of Swagger UI, not from a CDN
        redoc_url=None,  # ReDoc would load its script from a CDN; /docs is enough
    )
    app.state.session = session
    app.state.tokens = tokens
    app.state.hub = hub
    app.state.game = game
    app.state.dealer_bridge = None
    app.state.join_url = None  # the address tablets can reach, when `cardref serve --lan` found one
    _error_handlers(app)
    for module in (table_routes, director_routes, join, public_routes, live):
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=public_routes.WEB), name="static")
    app.mount("/docs-static", StaticFiles(directory=public_routes.swagger_ui_dir()), name="docs-static")
    return app


CHECKPOINT_EVERY = 30.0  # seconds


def _checkpoint(session: TableSession) -> None:
    with session.lock:
        try:
            session.log.checkpoint()
        except EventLogError as exc:
            print(f"cardref: {exc}", file=sys.stderr)


FIELD_WORDS = {"why": "a reason (why)", "who": "who decides (who)"}


def in_words(e: dict[str, Any]) -> str:
    """A validation error in words a person at the table reads: the field by its name (not ``body.why``) and
    what it needs ("give a reason (why)", not "String should have at least 1 character")."""
    loc = [str(x) for x in e.get("loc", ()) if x not in ("body", "query", "path")]
    where = ".".join(loc) or "the request"
    name = FIELD_WORDS.get(where, where)
    kind = e.get("type", "")
    if kind == "missing":
        return f"{name} is missing"
    if kind == "string_too_short" and (e.get("ctx") or {}).get("min_length") == 1:
        return f"give {name}: it is empty" if where in FIELD_WORDS else f"{where}: it is empty"
    return f"{where}: {e.get('msg')}"


def _error_handlers(app: FastAPI) -> None:
    """Always JSON naming what is wrong; never a traceback."""

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = [in_words(e) for e in exc.errors()]
        return JSONResponse({"error": "; ".join(problems) or "bad request", "seq": None}, status_code=422)

    @app.exception_handler(Refused)
    async def refused(request: Request, exc: Refused) -> JSONResponse:
        role = getattr(request.state, "role", "public")
        if role == "director" or exc.public is True:
            reason = exc.reason  # the director's, or a reason that names no hidden card (a deck check)
        elif isinstance(exc.public, str):
            reason = exc.public  # the public twin's answer: rests on the public history only (referee.public_twin)
        else:
            reason = masked(exc.reason, getattr(request.state, "named", set()))
        return JSONResponse({"error": reason, "seq": exc.seq}, status_code=exc.status)

    @app.exception_handler(EngineFault)
    async def engine_fault(request: Request, exc: EngineFault) -> JSONResponse:
        role = getattr(request.state, "role", "public")
        reason = exc.reason if role == "director" else exc.public
        return JSONResponse({"error": reason, "seq": exc.seq}, status_code=500)

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
