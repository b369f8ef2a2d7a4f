"""Live events per role: the WebSocket hub and its route (``/ws``)."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from referee.api.auth import role_for
from referee.api.privacy import public_event
from referee.table import TableSession

router = APIRouter()


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


@router.websocket("/ws")
async def live(ws: WebSocket, token: str | None = None) -> None:
    """Every event as the token's role may see it, pushed as it happens (after a ``hello`` with the state)."""
    header = ws.headers.get("authorization", "")
    given = header[7:].strip() if header.lower().startswith("bearer ") else token
    role = role_for(ws.app.state.tokens, given)
    if role is None:
        await ws.close(code=4401, reason="a token is needed: ?token=TOKEN")
        return
    hub: Hub = ws.app.state.hub
    session: TableSession = ws.app.state.session
    await ws.accept()
    queue: asyncio.Queue[str] = asyncio.Queue()
    hub.join(queue, role)
    try:
        state = session.director_state() if role == "director" else session.public_state()
        await ws.send_text(json.dumps({"type": "hello", "role": role, "state": state}))
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
