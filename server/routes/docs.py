"""OpenAPI docs at /docs with Swagger UI served from this server (the pinned PyPI package
swagger-ui-bundle-v2), and started by a script file rather than an inline one, so that the
page works under the strict Content-Security-Policy and without any CDN."""

from pathlib import Path

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse, HTMLResponse, Response

from server.routes.frontend import IMMUTABLE, REVALIDATE, safe_file

try:
    from swagger_ui_bundle import swagger_ui_path
    SWAGGER_DIR: Path | None = Path(swagger_ui_path)
except ImportError:  # the server extra is not installed: /openapi.json still works
    SWAGGER_DIR = None

ASSETS = {"swagger-ui.css", "swagger-ui-bundle.js", "favicon-32x32.png", "favicon-16x16.png"}

router = APIRouter(include_in_schema=False)

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>kael judge API</title>
<link rel="stylesheet" href="/docs/static/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/static/favicon-32x32.png">
</head><body><div id="swagger-ui"></div>
<script src="/docs/static/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body></html>
"""

INIT = """window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
"""

NOT_INSTALLED = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>kael judge API</title></head><body>
<p>Swagger UI is not installed on this server (pip install -e '.[server]').
The OpenAPI document is at <a href="/openapi.json">/openapi.json</a>.</p></body></html>
"""


@router.get("/docs")
def read_docs():
    if SWAGGER_DIR is None:
        return HTMLResponse(NOT_INSTALLED)
    return HTMLResponse(PAGE, headers={"Cache-Control": REVALIDATE})


@router.get("/docs/init.js")
def read_docs_init():
    return Response(INIT, media_type="text/javascript", headers={"Cache-Control": REVALIDATE})


@router.get("/docs/static/{name}")
def read_docs_asset(name: str):
    found = safe_file(SWAGGER_DIR, name) if SWAGGER_DIR is not None and name in ASSETS else None
    if found is None:
        raise HTTPException(404, detail=f"no docs asset {name!r}")
    return FileResponse(found, headers={"Cache-Control": IMMUTABLE})
