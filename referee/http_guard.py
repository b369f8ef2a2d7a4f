"""The HTTP server's guard against idle and slow clients: a request must arrive whole within a time limit, and the
connections open at once are capped, so a few hundred idle sockets cannot use up the service's file descriptors.

uvicorn closes an idle keep-alive connection (``timeout_keep_alive``) but not one that never finishes its first
request (a client that connects and sends nothing, or dribbles its headers). This protocol, given to uvicorn as
its ``http`` class, closes those too. A WebSocket, once upgraded, is the WebSocket protocol's and is left alone.
"""

from __future__ import annotations

import asyncio

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

REQUEST_TIMEOUT = 10.0  # seconds for a whole request to arrive, from the connection or the previous response
KEEP_ALIVE = 5  # seconds an idle keep-alive connection stays open
MAX_CONNECTIONS = 100  # open at once; one more is closed at once
MAX_HEADER_BYTES = 16 * 1024  # h11: the most a request's head may take before it is refused


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a request deadline and a cap on open connections."""

    request_timeout: float = REQUEST_TIMEOUT
    max_connections: int = MAX_CONNECTIONS
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.max_connections:
            transport.close()  # over the cap: refused before it holds anything
            return
        self._arm()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.request_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
            self._disarm()  # the request is whole (or the connection is done): the app has it now

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request on this connection has its own deadline

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._disarm()
        super().handle_websocket_upgrade(event)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


def uvicorn_config(app: object, *, request_timeout: float = REQUEST_TIMEOUT, max_connections: int = MAX_CONNECTIONS,
                   **kwargs: object) -> uvicorn.Config:
    """The service's uvicorn settings: the guard, the keep-alive limit, the connection cap, the head size; no
    access log (a page's address carries its token). ``kwargs`` go to ``uvicorn.Config`` (the TLS files...)."""
    guard = type("Guard", (GuardedH11,), {"request_timeout": request_timeout, "max_connections": max_connections})
    options: dict[str, object] = {"log_level": "warning", "access_log": False, "ws": "websockets-sansio",
                                  "timeout_keep_alive": KEEP_ALIVE, "limit_concurrency": max_connections,
                                  "h11_max_incomplete_event_size": MAX_HEADER_BYTES, "timeout_graceful_shutdown": 5}
    options.update(kwargs)
    return uvicorn.Config(app, http=guard, **options)  # type: ignore[arg-type]
