"""Static files: the built front end (with the single-page fallback), Pyodide, the kael wheel.

Only three folders are ever served: ``web/dist``, Pyodide's npm package and the wheel folder.
Nothing under ``exercises/`` is reachable, and every path is checked segment by segment (no
empty, ``.``/``..`` or hidden segment, no backslash or NUL) and resolved inside its folder.
"""

import json
import mimetypes
from functools import lru_cache
from pathlib import Path

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse
from starlette.routing import BaseRoute, Match

from server.core.config import Settings

for _ext, _type in ((".mjs", "text/javascript"), (".js", "text/javascript"),
                    (".wasm", "application/wasm"), (".whl", "application/zip"),
                    (".zip", "application/zip"), (".map", "application/json"),
                    (".json", "application/json"), (".svg", "image/svg+xml"),
                    (".woff2", "font/woff2"), (".webmanifest", "application/manifest+json")):
    mimetypes.add_type(_type, _ext)

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"

router = APIRouter(include_in_schema=False)


def safe_file(root: Path, relative: str) -> Path | None:
    """``root/relative`` if it is a regular file inside ``root``, else None."""
    parts = relative.split("/")
    for part in parts:
        if part in ("", ".", "..") or part.startswith(".") or "\\" in part or "\0" in part:
            return None
    try:
        base = root.resolve(strict=True)
        path = base.joinpath(*parts).resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if not path.is_relative_to(base) or not path.is_file():
        return None
    return path


def _file(path: Path, cache: str) -> FileResponse:
    return FileResponse(path, headers={"Cache-Control": cache})


@lru_cache(maxsize=8)
def _read_version(package_json: Path, mtime: float) -> str | None:
    try:
        return json.loads(package_json.read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def pyodide_version(settings: Settings) -> str | None:
    """The version of the pinned npm package (it names the URL prefix), or None if missing."""
    package_json = settings.pyodide_dir / "package.json"
    try:
        mtime = package_json.stat().st_mtime
    except OSError:
        return None
    return _read_version(package_json, mtime)


def wheel_name(settings: Settings) -> str | None:
    """The newest kael wheel in the wheel folder, or None."""
    wheels = sorted(settings.wheel_dir.glob("kael-*-py3-none-any.whl"),
                    key=lambda p: p.stat().st_mtime) if settings.wheel_dir.is_dir() else []
    return wheels[-1].name if wheels else None


@router.get("/pyodide/{version}/{path:path}")
def read_pyodide_file(version: str, path: str, request: Request):
    """Pyodide's files under a versioned prefix: cached for a year, never revalidated."""
    settings = request.app.state.settings
    if version != pyodide_version(settings):
        raise HTTPException(404, detail=f"this server serves Pyodide {pyodide_version(settings)}, "
                                        f"not {version}")
    found = safe_file(settings.pyodide_dir, path)
    if found is None:
        raise HTTPException(404, detail=f"no Pyodide file {path!r}")
    return _file(found, IMMUTABLE)


@router.get("/wheels/{name}")
def read_wheel(name: str, request: Request):
    """A kael wheel from the wheel folder (rebuilt under the same name: revalidated)."""
    settings = request.app.state.settings
    found = safe_file(settings.wheel_dir, name) if name.endswith(".whl") else None
    if found is None:
        raise HTTPException(404, detail=f"no wheel {name!r}")
    return _file(found, REVALIDATE)


PLACEHOLDER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>kael playground: front end not built</title>
<link rel="icon" href="data:,">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem}
code{background:#f2f2f2;padding:.1rem .3rem}</style></head>
<body><h1>The kael playground's front end is not built</h1>
<p>This server found no <code>web/dist/index.html</code>. Build it (<code>make serve</code> does,
or <code>npm run build</code> in <code>web/</code>) and reload this page.</p>
<p>The judge's API works meanwhile: <a href="/docs">API documentation</a>,
<a href="/api/exercises">exercises</a>, <a href="/api/health">health</a>.</p>
</body></html>
"""


class FrontendRoute(BaseRoute):
    """GET/HEAD of any path outside ``/api/``: a file of the built front end, else (for a path
    that does not name a file, like ``/exercises/graph-walk``) the page itself."""

    def __init__(self, settings: Settings):
        self.settings = settings

    def matches(self, scope):
        if (scope["type"] == "http" and scope["method"] in ("GET", "HEAD")
                and scope["path"] != "/api" and not scope["path"].startswith("/api/")):
            return Match.FULL, {}
        return Match.NONE, {}

    async def handle(self, scope, receive, send):
        response = self.respond(scope["path"])
        await response(scope, receive, send)

    def respond(self, path: str):
        dist = self.settings.web_dist
        index = dist / "index.html"
        relative = path.lstrip("/")
        if relative:
            found = safe_file(dist, relative)
            if found is not None and found != index.resolve():
                cache = IMMUTABLE if relative.startswith("assets/") else REVALIDATE
                return _file(found, cache)
            last = relative.rsplit("/", 1)[-1]
            if "." in last or relative.startswith(("assets/", "pyodide/", "wheels/", "docs/")):
                return HTMLResponse("<!doctype html><title>404</title><p>Not found.</p>",
                                    status_code=404, headers={"Cache-Control": REVALIDATE})
        if index.is_file():
            return _file(index, REVALIDATE)
        return HTMLResponse(PLACEHOLDER, headers={"Cache-Control": REVALIDATE})
