"""Joining a table: each page's link with its token, as text and as a QR code (``segno``), for the director's
console (``GET /api/join``, the director's only: the links carry the tokens) and for ``cardref serve --lan``.

The links use the address the tablets can reach: the one ``cardref serve`` found on the club's network
(``app.state.join_url``), else the address the director's own browser used.
"""

from __future__ import annotations

import io
from typing import Any

import segno
from fastapi import APIRouter, Request

from referee.api.auth import DirectorRole
from referee.api.models import ERRORS

router = APIRouter(tags=["director"])

# page, the role whose token it carries, what it is for
PAGES: tuple[tuple[str, str, str], ...] = (
    ("table", "table", "the table's tablet: bids, declarations, plays entered by touch"),
    ("scoreboard", "public", "the scoreboard, for players and spectators: no hidden card"),
    ("director", "director", "the director's console: keep it to yourself, it sees every card"),
)


def join_links(base_url: str, tokens: dict[str, str]) -> list[dict[str, str]]:
    """One entry per page: ``page``, ``role``, ``what``, ``url`` (with its token)."""
    base = base_url.rstrip("/")
    return [{"page": page, "role": role, "what": what, "url": f"{base}/{page}?token={tokens[role]}"}
            for page, role, what in PAGES]


def qr_svg(url: str) -> str:
    """The QR code of ``url`` as an SVG document (scales to any size; a phone camera reads it off a screen)."""
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=4, border=2, xmldecl=False)
    return out.getvalue().decode()


def qr_text(url: str) -> str:
    """The QR code of ``url`` drawn with block characters, for a terminal (dark modules on a light ground)."""
    out = io.StringIO()
    segno.make(url, error="l").terminal(out=out, compact=True, border=2)
    return out.getvalue()


@router.get("/api/join", responses=ERRORS)
def join(request: Request, role: DirectorRole) -> dict[str, Any]:
    """Each page's link with its token and its QR code (SVG), to open the pages on the tablets of the table."""
    base = getattr(request.app.state, "join_url", None) or str(request.base_url)
    links = join_links(base, request.app.state.tokens)
    # Over HTTPS (referee/tls.py) the certificate's fingerprint, to check on a tablet that it is this table's.
    return {"base_url": base.rstrip("/"), "pages": [dict(link, qr_svg=qr_svg(link["url"])) for link in links],
            "tls_fingerprint": getattr(request.app.state, "tls_fingerprint", None)}
