"""``/docs`` renders at a club with no internet: the page refers to the service's own copy of Swagger UI only."""

import re

from fastapi.testclient import TestClient

from referee.app import create_app


def test_docs_refer_only_to_local_files_and_those_are_served(tmp_path):
    app = create_app(tmp_path / "data")
    with TestClient(app) as client:
        r = client.get("/docs")
        assert r.status_code == 200 and "text/html" in r.headers["content-type"]
        html = r.text
        assert "//" not in re.sub(r"<!--.*?-->", "", html, flags=re.S).replace("://localhost", ""), \
            "no absolute URL (CDN) in /docs"
        urls = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)["']""", html)
        urls += re.findall(r"""url:\s*['"]([^'"]+)['"]""", html)
        assert "/docs-static/swagger-ui-bundle.js" in urls and "/docs-static/swagger-ui.css" in urls
        assert "/openapi.json" in urls
        for url in urls:
            assert url.startswith("/"), url
            got = client.get(url)
            assert got.status_code == 200, url
        assert "SwaggerUIBundle" in client.get("/docs-static/swagger-ui-bundle.js").text
        assert ".swagger-ui" in client.get("/docs-static/swagger-ui.css").text
        assert client.get("/openapi.json").json()["openapi"].startswith("3.1")  # Swagger UI 5 renders 3.1
        assert client.get("/docs/oauth2-redirect").status_code == 200
        assert client.get("/redoc").status_code == 404  # ReDoc would need a CDN: not offered
