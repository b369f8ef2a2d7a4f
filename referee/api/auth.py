"""Roles by token: ``public`` (the scoreboard), ``table`` (enters events), ``director`` (sees and corrects
everything). Tokens live in the private data directory, so a restart keeps every tablet working."""

from __future__ import annotations

import hmac
import json
import os
import secrets
from pathlib import Path
from typing import Annotated

from fastapi import Depends, Query, Request
from starlette.exceptions import HTTPException

from referee.eventlog import DataFolderError

ROLES = ("public", "table", "director")


MIN_TOKEN = 16  # characters: the tokens made here are 24 (18 random bytes)


class TokenFileError(DataFolderError):
    """``tokens.json`` exists but cannot be trusted: the service refuses to start rather than guess."""


def check_tokens(tokens: object, where: Path) -> dict[str, str]:
    """The roles' tokens as read from ``where``: one per role, each a string of at least ``MIN_TOKEN`` characters,
    all distinct (an empty token would make every tokenless request that role's; two equal ones, two roles one)."""
    if not isinstance(tokens, dict) or set(tokens) != set(ROLES):
        raise TokenFileError(f"{where}: must be a JSON object with one token for each of {', '.join(ROLES)}")
    for role in ROLES:
        value = tokens[role]
        if not isinstance(value, str) or len(value.strip()) < MIN_TOKEN or value != value.strip():
            raise TokenFileError(f"{where}: the {role} token must be a string of at least {MIN_TOKEN} characters "
                                 "without spaces around it")
    if len(set(tokens.values())) != len(ROLES):
        raise TokenFileError(f"{where}: two roles have the same token; each role needs its own")
    return {role: str(tokens[role]) for role in ROLES}


def load_tokens(data_dir: Path) -> dict[str, str]:
    """The roles' tokens: kept in the private data directory so that a restart (a power cut) keeps every tablet
    and page working; made at the first start. A file that is there but wrong is refused (TokenFileError), never
    silently replaced: the tablets hold the old tokens, and a replaced file would hide a tampering."""
    path = data_dir / "tokens.json"
    if path.exists() or path.is_symlink():
        try:
            text = path.read_text(encoding="utf-8")
            found = json.loads(text)
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise TokenFileError(f"{path}: cannot be read as JSON ({type(exc).__name__}: {exc})") from None
        return check_tokens(found, path)
    tokens = {role: secrets.token_urlsafe(18) for role in ROLES}
    tmp = data_dir / "tokens.json.tmp"
    fd = os.open(tmp, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)  # 0600 from the first byte
    with os.fdopen(fd, "w") as f:
        f.write(json.dumps(tokens))
        f.flush()
        os.fsync(f.fileno())
    tmp.replace(path)
    return tokens


def role_for(tokens: dict[str, str], given: str | None) -> str | None:
    """The role whose token is ``given``, compared in constant time against every role's token (no early exit,
    no dict lookup whose timing depends on the token), so the time taken tells nothing about any token."""
    if not given:
        return None
    found = None
    probe = given.encode("utf-8", "surrogatepass")
    for role, token in tokens.items():
        if hmac.compare_digest(probe, token.encode("utf-8")):
            found = role
    return found


def role_of(request: Request, token: str | None) -> str:
    """The role of the request's token (a bearer header, or ``?token=``); 401 without a known one."""
    header = request.headers.get("authorization", "")
    given = header[7:].strip() if header.lower().startswith("bearer ") else token
    role = role_for(request.app.state.tokens, given)
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
