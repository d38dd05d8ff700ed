"""Serving the front end, Pyodide and the wheel: headers, caching, fallback, and no way out of
the served folders (raw requests with encoded ``..`` against a real uvicorn)."""

import json
import socket

import pytest
from _support import HIDDEN_MARKER, REFERENCE_MARKER, write_exercise

from server.core.http import CSP

INDEX = "<!doctype html><title>kael playground</title><script type=module src=/assets/app-1a2b3c.js></script>"
SECURITY = {
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-embedder-policy": "require-corp",
    "x-content-type-options": "nosniff",
}


@pytest.fixture
def site(tmp_path):
    """A folder laid out like the repository: web/dist, web/node_modules/pyodide, dist/ (the
    wheel) and exercises/ side by side, with symlinks in web/dist that point out of it."""
    root = tmp_path / "site"
    dist = root / "web" / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text(INDEX)
    (dist / "assets" / "app-1a2b3c.js").write_text("console.log('app')")
    (dist / "assets" / "style-9f8e7d.css").write_text("body{}")
    (dist / "favicon.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    (dist / ".hidden").write_text("dotfile")
    pyodide = root / "web" / "node_modules" / "pyodide"
    pyodide.mkdir(parents=True)
    (pyodide / "package.json").write_text(json.dumps({"name": "pyodide", "version": "9.9.9"}))
    (pyodide / "pyodide.mjs").write_text("export const loadPyodide = 1;")
    (pyodide / "pyodide.asm.wasm").write_bytes(b"\0asm\1\0\0\0")
    (pyodide / "python_stdlib.zip").write_bytes(b"PK\5\6" + b"\0" * 18)
    wheels = root / "dist"
    wheels.mkdir()
    (wheels / "kael-0.1.0-py3-none-any.whl").write_bytes(b"PK\5\6" + b"\0" * 18)
    (wheels / "notes.txt").write_text("not a wheel")
    exercises = root / "exercises"
    write_exercise(exercises, 1, "adder")
    (dist / "exercises").symlink_to(exercises)
    (dist / "leak.py").symlink_to(exercises / "01-adder" / ".meta" / "reference.py")
    (dist / "assets" / "leak.js").symlink_to(exercises / "01-adder" / ".meta" / "hidden_test.py")
    return root


@pytest.fixture
def site_settings(site):
    return dict(web_dist=site / "web" / "dist", pyodide_dir=site / "web" / "node_modules" / "pyodide",
                wheel_dir=site / "dist", exercises_dir=site / "exercises")


def assert_security_headers(response):
    for name, value in SECURITY.items():
        assert response.headers[name] == value, (response.url, name)
    assert response.headers["content-security-policy"] == CSP


def test_csp_allows_only_this_origin():
    directives = dict(d.split(" ", 1) for d in CSP.split("; "))
    for name, sources in directives.items():
        for source in sources.split():
            assert source in ("'self'", "'none'", "'wasm-unsafe-eval'", "'unsafe-inline'", "data:", "blob:"), (name, source)
    assert "'unsafe-eval'" not in CSP
    assert "'unsafe-inline'" not in directives["script-src"]
    assert directives["default-src"] == "'self'"


def test_every_kind_of_response_carries_the_security_headers(make_client, site_settings):
    client = make_client(**site_settings)
    for path in ("/", "/exercises/adder", "/assets/app-1a2b3c.js", "/pyodide/9.9.9/pyodide.mjs",
                 "/wheels/kael-0.1.0-py3-none-any.whl", "/api/health", "/api/exercises",
                 "/api/exercises/nope", "/api/nope", "/docs", "/openapi.json", "/missing.js"):
        assert_security_headers(client.get(path))
    assert_security_headers(client.post("/api/submissions", json={}))
    assert_security_headers(client.post("/api/submissions", content=b"x" * 1_000_000,
                                        headers={"Content-Type": "application/json"}))


def test_front_end_index_and_spa_fallback(make_client, site_settings):
    client = make_client(**site_settings)
    for path in ("/", "/exercises/adder", "/playground/deep/route"):
        r = client.get(path)
        assert r.status_code == 200
        assert r.text == INDEX
        assert r.headers["content-type"].startswith("text/html")
        assert r.headers["cache-control"] == "no-cache"
    assert client.get("/api/health").json()["frontend_built"] is True


def test_hashed_assets_are_immutable_and_other_files_revalidated(make_client, site_settings):
    client = make_client(**site_settings)
    r = client.get("/assets/app-1a2b3c.js")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/javascript")
    assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert client.get("/assets/style-9f8e7d.css").headers["content-type"].startswith("text/css")
    r = client.get("/favicon.svg")
    assert r.headers["content-type"].startswith("image/svg+xml")
    assert r.headers["cache-control"] == "no-cache"


def test_missing_files_are_404_not_the_page(make_client, site_settings):
    client = make_client(**site_settings)
    for path in ("/missing.js", "/assets/missing", "/assets/app.js", "/.hidden", "/pyodide/nope"):
        r = client.get(path)
        assert r.status_code == 404, path
        assert INDEX not in r.text


def test_placeholder_page_when_front_end_is_not_built(client):
    r = client.get("/")
    assert r.status_code == 200
    assert "front end is not built" in r.text
    assert client.get("/some/route").text == r.text
    assert_security_headers(r)


def test_pyodide_is_served_under_its_version_for_a_year(make_client, site_settings):
    client = make_client(**site_settings)
    assert client.get("/api/health").json()["pyodide_url"] == "/pyodide/9.9.9/"
    r = client.get("/pyodide/9.9.9/pyodide.asm.wasm")
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/wasm"
    assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert r.content == b"\0asm\1\0\0\0"
    assert client.get("/pyodide/9.9.9/pyodide.mjs").headers["content-type"].startswith("text/javascript")
    assert client.get("/pyodide/9.9.9/python_stdlib.zip").headers["content-type"] == "application/zip"
    r = client.get("/pyodide/1.0.0/pyodide.mjs")
    assert r.status_code == 404
    assert "9.9.9" in r.json()["detail"]


def test_real_pyodide_package_is_served(client):
    from server.core.config import REPO

    package = REPO / "web" / "node_modules" / "pyodide" / "package.json"
    if not package.exists():
        pytest.skip("web/node_modules is not installed (make setup)")
    version = json.loads(package.read_text())["version"]
    r = client.get(f"/pyodide/{version}/pyodide.asm.wasm")
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/wasm"
    assert r.content[:4] == b"\0asm"


def test_wheel_is_served_and_nothing_else_from_its_folder(make_client, site_settings):
    client = make_client(**site_settings)
    assert client.get("/api/health").json()["wheel_url"] == "/wheels/kael-0.1.0-py3-none-any.whl"
    r = client.get("/wheels/kael-0.1.0-py3-none-any.whl")
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/zip"
    assert client.get("/wheels/notes.txt").status_code == 404
    assert client.get("/wheels/missing-1.0-py3-none-any.whl").status_code == 404


def test_docs_page_loads_swagger_ui_from_this_server(client):
    r = client.get("/docs")
    assert r.status_code == 200
    assert "http" not in r.text.replace("http-equiv", "")  # no other origin
    assert "<script>" not in r.text  # no inline script: the CSP would block it
    for asset in ("/docs/static/swagger-ui-bundle.js", "/docs/static/swagger-ui.css", "/docs/init.js"):
        assert asset in r.text
        assert client.get(asset).status_code == 200
    assert client.get("/openapi.json").json()["paths"]["/api/submissions"]["post"]
    assert client.get("/docs/static/index.html").status_code == 404
    assert client.get("/redoc").text != client.get("/openapi.json").text


# -- no way out of the served folders ---------------------------------------------------------

TRICKS = [
    "/exercises/01-adder/.meta/reference.py",
    "/exercises/01-adder/.meta/hidden_test.py",
    "/leak.py",
    "/assets/leak.js",
    "/../../exercises/01-adder/.meta/reference.py",
    "/%2e%2e/%2e%2e/exercises/01-adder/.meta/reference.py",
    "/%2E%2E%2F%2E%2E%2Fexercises%2F01-adder%2F.meta%2Freference.py",
    "/..%2f..%2fexercises%2f01-adder%2f.meta%2fhidden_test.py",
    "/%252e%252e/%252e%252e/exercises/01-adder/.meta/reference.py",
    "/assets/..%2f..%2f..%2fexercises/01-adder/.meta/reference.py",
    "/assets/%2e%2e/%2e%2e/%2e%2e/exercises/01-adder/.meta/reference.py",
    "/pyodide/9.9.9/../../../../exercises/01-adder/.meta/reference.py",
    "/pyodide/9.9.9/..%2f..%2f..%2f..%2fexercises%2f01-adder%2f.meta%2freference.py",
    "/pyodide/9.9.9/%2e%2e/%2e%2e/%2e%2e/%2e%2e/exercises/01-adder/.meta/hidden_test.py",
    "/pyodide/..%2f..%2f..%2f..%2fexercises/01-adder/.meta/reference.py",
    "/wheels/..%2f..%2fexercises%2f01-adder%2f.meta%2freference.py",
    "/wheels/..%2fexercises%2f01-adder%2f.meta%2freference.py",
    "/docs/static/..%2f..%2f..%2f..%2f..%2fexercises%2f01-adder%2f.meta%2freference.py",
    "/%5c..%5c..%5cexercises%5c01-adder%5c.meta%5creference.py",
    "/.%2e/.%2e/exercises/01-adder/.meta/reference.py",
    "/exercises/01-adder/%2emeta/reference.py",
    "/exercises/01-adder/.meta%00/reference.py",
    "//exercises/01-adder/.meta/reference.py",
    "/api/../exercises/01-adder/.meta/reference.py",
    "/api/exercises/..%2f..%2f..%2fexercises%2f01-adder%2f.meta%2freference.py",
    "/api/exercises/..%2f01-adder%2f.meta",
    "/api/exercises/01-adder%2f.meta%2freference.py",
]


def raw_get(port: int, target: str) -> tuple[int, bytes]:
    """One GET with the request target sent exactly as written (no client-side normalising)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def test_nothing_under_meta_is_reachable_by_any_path(make_server, site):
    server = make_server(
        KAEL_WEB_DIST=site / "web" / "dist", KAEL_PYODIDE_DIR=site / "web" / "node_modules" / "pyodide",
        KAEL_WHEEL_DIR=site / "dist", KAEL_EXERCISES_DIR=site / "exercises", KAEL_SANDBOX="off",
    ).start()
    secrets = [REFERENCE_MARKER.encode(), HIDDEN_MARKER.encode(), b"def add(a, b):\n    return a + b"]
    for target in TRICKS:
        status, body = raw_get(server.port, target)
        for secret in secrets:
            assert secret not in body, (target, status)
        assert status in (200, 400, 404), (target, status)
        if status == 200:
            assert body.decode() == INDEX or target.startswith("/api/"), target
