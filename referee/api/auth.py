"""Roles by token: ``public`` (the scoreboard), ``table`` (enters events), ``director`` (sees and corrects
everything). Tokens live in the private data directory, so a restart keeps every tablet working."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Annotated

from fastapi import Depends, Query, Request
from starlette.exceptions import HTTPException

ROLES = ("public", "table", "director")


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
