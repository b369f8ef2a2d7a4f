"""A small HTTP client on the standard library for the tools that drive a running service (the web demo, the
crash soak), so they run on a plain install (httpx is a test dependency only)."""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from typing import Any


class TransportError(OSError):
    """The service could not be reached (refused, reset, timed out)."""


class HTTPStatusError(RuntimeError):
    """``raise_for_status`` on an answer that is not a success."""


class Response:
    """The status, headers and body of one answer."""

    def __init__(self, status_code: int, body: bytes) -> None:
        self.status_code = status_code
        self.content = body

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.content)

    def raise_for_status(self) -> Response:
        if not 200 <= self.status_code < 300:
            raise HTTPStatusError(f"{self.status_code}: {self.text[:200]}")
        return self


class Client:
    """``get`` / ``post`` against ``base_url``, with default headers; an HTTP error status is an answer, not an
    exception (as with httpx)."""

    def __init__(self, base_url: str = "", headers: dict[str, str] | None = None, timeout: float = 10.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.headers = dict(headers or {})
        self.timeout = timeout

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Nothing to release: each request has its own connection."""

    def get(self, url: str, headers: dict[str, str] | None = None) -> Response:
        return self._send("GET", url, None, headers)

    def post(self, url: str, json: Any = None, headers: dict[str, str] | None = None) -> Response:
        return self._send("POST", url, json, headers)

    def _send(self, method: str, url: str, body: Any, headers: dict[str, str] | None) -> Response:
        full = url if url.startswith("http") else self.base_url + url
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(full, data=data, method=method, headers={**self.headers, **(headers or {})})
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:  # noqa: S310 - our own service
                return Response(answer.status, answer.read())
        except urllib.error.HTTPError as exc:
            return Response(exc.code, exc.read())
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            # refused, reset, timed out, or an answer cut off by a server that died mid-reply
            raise TransportError(f"{type(exc).__name__}: {exc}") from exc
