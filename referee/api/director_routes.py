"""The director's: corrections (undo, replace, fix a misread card), rulings on calls, device status, the whole
event log, the exports and the evidence frames. Every correction is an event with who and why."""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi import Path as Path_
from fastapi.responses import FileResponse, PlainTextResponse
from starlette.exceptions import HTTPException

from engine.pbn import pbn
from engine.record import dumps
from referee.api.auth import DirectorRole
from referee.api.deps import session_of, view
from referee.api.models import (
    ERRORS,
    Accepted,
    FixCardRequest,
    ReplaceRequest,
    RulingRequest,
    StatusRequest,
    UndoRequest,
)

router = APIRouter(tags=["director"])


@router.post("/api/corrections/undo", response_model=Accepted, responses=ERRORS)
def undo(body: UndoRequest, request: Request, role: DirectorRole) -> Accepted:
    session = session_of(request)
    row = session.correct("undo", body.target, body.who, body.why)
    return Accepted(seq=row.seq, state=view(session, role))


@router.post("/api/corrections/replace", response_model=Accepted, responses=ERRORS)
def replace(body: ReplaceRequest, request: Request, role: DirectorRole) -> Accepted:
    session = session_of(request)
    row = session.correct("replace", body.target, body.who, body.why, body.event)
    return Accepted(seq=row.seq, state=view(session, role))


@router.post("/api/corrections/fix_card", response_model=Accepted, responses=ERRORS)
def fix_card(body: FixCardRequest, request: Request, role: DirectorRole) -> Accepted:
    session = session_of(request)
    row = session.fix_card(body.target, body.card, body.who, body.why)
    return Accepted(seq=row.seq, state=view(session, role))


@router.post("/api/rulings", response_model=Accepted, responses=ERRORS)
def ruling(body: RulingRequest, request: Request, role: DirectorRole) -> Accepted:
    """Accept or reject a renege call (or a suspicion): recorded with who and why, shown beside the call."""
    session = session_of(request)
    row = session.rule(body.hand, body.seat, body.trick, body.ruling, body.who, body.why)
    return Accepted(seq=row.seq, state=view(session, role))


@router.post("/api/status", response_model=Accepted, responses=ERRORS)
def status(body: StatusRequest, request: Request, role: DirectorRole) -> Accepted:
    """A device lost, back or absent (the dealing machine, the camera): shown on every page."""
    session = session_of(request)
    row = session.set_device(body.device, body.state, role, role, body.why)
    return Accepted(seq=row.seq, state=view(session, role))


@router.get("/api/log", responses=ERRORS)
def event_log(request: Request, role: DirectorRole, after: Annotated[int, Query(ge=0, le=2**62)] = 0,
              limit: Annotated[int, Query(ge=1, le=10000)] = 1000) -> list[dict[str, Any]]:
    """The rows of the event log, in order (refusals, corrections and rulings included)."""
    out = []
    for row in session_of(request).log.rows(after=after):
        out.append(row.to_json())
        if len(out) >= limit:
            break
    return out


@router.get("/api/matches", responses=ERRORS)
def matches(request: Request, role: DirectorRole) -> list[dict[str, Any]]:
    """The table's matches in order: ``number`` is what people call them (match 1, 2...), ``id`` what the API
    takes (the seq of the match's row in the log)."""
    log = session_of(request).log
    ids = [m for m in log.matches() if m]
    return [{"id": m, "number": n, **(log.get(m).event if log.get(m) else {})} for n, m in enumerate(ids, 1)]


@router.get("/api/export/record", responses=ERRORS, response_class=PlainTextResponse)
def export_record(request: Request, role: DirectorRole,
                  match: Annotated[int | None, Query(ge=1, le=2**62)] = None) -> str:
    """The table record (CONVENTIONS.md, JSON Lines) of a match: the current one by default."""
    return dumps(session_of(request).record(match))


@router.get("/api/export/pbn", responses=ERRORS, response_class=PlainTextResponse)
def export_pbn(request: Request, role: DirectorRole,
               match: Annotated[int | None, Query(ge=1, le=2**62)] = None) -> str:
    """A PBN-style text of a match, each revoke marked."""
    session = session_of(request)
    st = session.match_state(match)
    row = session.log.get(st.id)
    date = time.strftime("%Y.%m.%d", time.gmtime(row.time)) if row is not None else ""
    return pbn(st.header, st.events, st.match, date)


@router.get("/api/frames/{seq}", responses=ERRORS | {200: {"content": {"image/jpeg": {}}}},
            response_class=FileResponse)
def frame(seq: Annotated[int, Path_(ge=1, le=2**62)], request: Request, role: DirectorRole) -> FileResponse:
    """The camera frame that showed the card of event ``seq`` (evidence of a call)."""
    path = session_of(request).frame_of(seq)
    if path is None:
        raise HTTPException(404, f"no camera frame kept for event {seq}")
    return FileResponse(path, media_type="image/jpeg", headers={"Cache-Control": "no-store"})
