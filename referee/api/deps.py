"""What every route needs: the table's session (on ``app.state``), the view a role may see, and how an event is
submitted so that a refusal names only the cards its asker may know."""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request

from referee.api.models import Accepted
from referee.api.privacy import CARD_RE
from referee.public_twin import used_fields
from referee.table import TableSession


def session_of(request: Request) -> TableSession:
    """The table's session, made by ``create_app``."""
    session: TableSession = request.app.state.session
    return session


def view(session: TableSession, role: str) -> dict[str, Any]:
    """The table as ``role`` may see it."""
    return session.director_state() if role == "director" else session.public_state()


def face_up(session: TableSession) -> set[str]:
    """Every card that lies face up in the current match (anyone may see those)."""
    cur = session.current
    if cur is None:
        return set()
    out: set[str] = set()
    for h in cur.match.hands:
        out |= session.face_up(h)
    return out


def submit(request: Request, role: str, event: dict[str, Any]) -> Accepted:
    """Log and apply ``event`` for ``role``; the answer carries the state that role may see."""
    session = session_of(request)
    # Only the fields the event is read for go on: a card named in an ignored field is neither logged nor
    # repeated back.
    event = used_fields(event)
    # The cards the asker named may be repeated back in a refusal that rests on public knowledge only; any other
    # card is masked for them. (A refusal that may rest on hidden cards carries the public twin's answer instead.)
    request.state.named = {m.group(0).upper().replace("10", "T") for m in CARD_RE.finditer(json.dumps(event))}
    request.state.named |= face_up(session)
    row = session.submit(event, role, role)
    return Accepted(seq=row.seq, state=view(session, role))
