"""What any token may open: the table as its role may see it, the pages, and the API's own documentation (served
from the service's copy of Swagger UI, so ``/docs`` works with no internet)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse

from engine.options import SPECS
from referee.api.auth import AnyRole, role_for
from referee.api.deps import session_of, view
from referee.api.models import ERRORS

WEB = Path(__file__).resolve().parent.parent / "web"
PAGES = ("table", "director", "scoreboard")

router = APIRouter()


def swagger_ui_dir() -> Path:
    """Swagger UI's own files, shipped by the ``swagger-ui-py`` package (``/docs`` works with no internet).

    The package is located, not imported (its import pulls in its web framework handlers, which are not used).
    """
    spec = importlib.util.find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the swagger-ui-py package is missing: pip install swagger-ui-py")
    return Path(next(iter(spec.submodule_search_locations))) / "static"


@router.get("/api/state", responses=ERRORS, tags=["views"])
def state(request: Request, role: AnyRole) -> dict[str, Any]:
    """The table as the token's role may see it."""
    return dict(view(session_of(request), role), role=role)


@router.get("/api/options", responses=ERRORS, tags=["views"])
def options(request: Request, role: AnyRole) -> dict[str, Any]:
    """The games and every option of RULINGS.md (``engine.options``) with its type, default and allowed values,
    for the pages' new-match form; ``game``: the game this service was started for (the form's default)."""
    games = {}
    for game, specs in SPECS.items():
        games[game] = [
            {"name": o.name, "default": o.default,
             "type": "bool" if isinstance(o.default, bool) else "int" if isinstance(o.default, int) else "str",
             "choices": list(o.choices) if o.choices is not None else None, "low": o.low, "high": o.high}
            for o in specs
        ]
    return {"game": request.app.state.game, "games": games}


@router.get("/", include_in_schema=False)
def home(token: str | None = None) -> RedirectResponse:
    return RedirectResponse("/table" + (f"?token={token}" if token else ""))


def _page_route(path: Path) -> Any:
    def serve_page(request: Request, token: str | None = None) -> FileResponse:
        # Without its token a page could only sit on "reconnecting": it explains how to join instead.
        if role_for(request.app.state.tokens, token) is None:
            return FileResponse(WEB / "join.html", status_code=401, headers={"Cache-Control": "no-store"})
        return FileResponse(path, headers={"Cache-Control": "no-store"})

    return serve_page


for _page in PAGES:
    router.add_api_route(f"/{_page}", _page_route(WEB / f"{_page}.html"), include_in_schema=False, methods=["GET"])


@router.get("/docs", include_in_schema=False)
def docs(request: Request) -> HTMLResponse:
    app = request.app
    return get_swagger_ui_html(
        openapi_url=app.openapi_url or "/openapi.json",
        title=app.title + " - API",
        swagger_js_url="/docs-static/swagger-ui-bundle.js",
        swagger_css_url="/docs-static/swagger-ui.css",
        swagger_favicon_url="/docs-static/favicon-32x32.png",
        oauth2_redirect_url=app.swagger_ui_oauth2_redirect_url,
    )


@router.get("/docs/oauth2-redirect", include_in_schema=False)
def docs_oauth2_redirect() -> HTMLResponse:
    return get_swagger_ui_oauth2_redirect_html()
