"""Hostile clients at the HTTP layer, through a real server (``python -m server``, as ``make
serve``) over raw sockets where the attack needs bytes no HTTP library sends: request smuggling
and oversized chunked bodies, slow and numerous connections, foreign Host headers, malformed
input that used to be a 500, identities the client chooses, cookies planted by a sibling origin,
and log flooding. Grading itself is not under test here (``KAEL_SANDBOX=off``: only the
adder exercise's own correct solution is ever graded)."""

import json
import random
import re
import socket
import threading
import time
import urllib.parse
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from _support import ADMIN_TOKEN, CORRECT, Server, new_client_token, wait_for, write_exercise

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
MAX_CODE = 1000  # KAEL_MAX_CODE_BYTES of the test server: request bodies up to 6 * 1000 + 4096
MAX_BODY = 6 * MAX_CODE + 4096
READ_TIMEOUT = 2  # KAEL_READ_TIMEOUT of the test server


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile-http")
    write_exercise(root / "exercises", 1, "adder")
    return root


def start(root, name, **env) -> Server:
    base = {"KAEL_DATA_DIR": str(root / f"data-{name}"), "KAEL_EXERCISES_DIR": str(root / "exercises"),
            "KAEL_WEB_DIST": str(root / "no-dist"), "KAEL_ADMIN_TOKEN": ADMIN_TOKEN,
            "KAEL_SANDBOX": "off", "KAEL_GRADING_WORKERS": "1", "KAEL_LOG_LEVEL": "INFO"}
    base.update({k: str(v) for k, v in env.items()})
    return Server(base, root / f"{name}.log").start()


@pytest.fixture(scope="module")
def server(root):
    server = start(root, "edge", KAEL_MAX_CODE_BYTES=MAX_CODE, KAEL_READ_TIMEOUT=READ_TIMEOUT,
                   KAEL_RATE_LIMIT="2/600", KAEL_ADDRESS_RATE_LIMIT="3/600", KAEL_MINT_LIMIT="50/600")
    yield server
    server.stop()


@pytest.fixture
def http(server):
    with httpx.Client(base_url=server.url, timeout=30) as client:
        yield client


def exchange(server, data: bytes, guard_s: float = 30.0) -> bytes:
    """Send raw bytes on one connection and read until the server closes it (``guard_s`` only
    guards against a server that never does: the test then fails on the missing close)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=guard_s) as s:
        s.sendall(data)
        return read_to_close(s)


def read_to_close(s) -> bytes:
    out = b""
    while True:
        try:
            chunk = s.recv(65536)
        except TimeoutError:
            return out + b"<still open>"
        except ConnectionResetError:
            return out + b"<reset>"
        if not chunk:
            return out
        out += chunk


def responses(raw: bytes) -> list[int]:
    """The status codes of every HTTP response in a raw byte stream."""
    return [int(line.split()[1]) for line in raw.split(b"\r\n") if line.startswith(b"HTTP/1.1 ")]


def body_of(raw: bytes) -> dict:
    return json.loads(raw.split(b"\r\n\r\n", 1)[1].split(b"<")[0])


# -- request smuggling and body size (17.5) -------------------------------------------------------


def test_content_length_with_transfer_encoding_is_400_and_nothing_after_it_is_read(server):
    smuggled = b"POST /api/clients HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n"
    body = b"5\r\nhello\r\n0\r\n\r\n"
    raw = exchange(server, b"POST /api/submissions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                           b"Content-Type: application/json\r\nContent-Length: 5\r\n"
                           b"Transfer-Encoding: chunked\r\n\r\n" + body + smuggled)
    assert responses(raw) == [400], raw  # one answer, then the connection closed
    assert "both Content-Length and Transfer-Encoding" in body_of(raw)["detail"]


def test_a_chunked_body_over_the_limit_is_413_while_it_streams(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        s.sendall(b"POST /api/submissions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"x" * 4096
        sent = 0
        try:
            while sent < 64 * MAX_BODY:  # far more than the limit; the server stops reading
                s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused and closed while we were still sending: what we want
        raw = read_to_close(s)
    assert responses(raw) == [413], raw[:300]
    assert f"at most {MAX_BODY} bytes" in body_of(raw)["detail"]


def test_a_pipelined_request_after_a_413_is_not_answered(server):
    big = b'{"exercise_id": "adder", "code": "' + b"#" * (MAX_BODY + 10) + b'"}'
    raw = exchange(server, b"POST /api/submissions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                           b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                           + b"%x\r\n%s\r\n0\r\n\r\n" % (len(big), big)
                           + b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert responses(raw) == [413], raw[:300]


# -- slow and numerous clients (17.6) -------------------------------------------------------------


def test_a_client_that_never_finishes_its_headers_is_cut_off(server, http):
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        s.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        for _ in range(4 * READ_TIMEOUT):  # trickling bytes does not extend the deadline
            try:
                s.sendall(b"X-Slow: 1\r\n")
            except (BrokenPipeError, ConnectionResetError):
                break
            time.sleep(0.5)
        raw = read_to_close(s)
    assert responses(raw) == [408], raw
    assert "no whole request within 2 s" in body_of(raw)["detail"]
    assert http.get("/api/health").status_code == 200


def test_an_idle_connection_that_sends_nothing_is_cut_off(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        assert responses(read_to_close(s)) == [408]


def test_connections_per_address_are_capped_and_the_api_stays_up(root):
    cap = 6
    server = start(root, "conn-cap", KAEL_CONNECTIONS_PER_ADDRESS=cap, KAEL_READ_TIMEOUT=300,
                   KAEL_KEEPALIVE_TIMEOUT=300)
    held, refused = [], []
    try:
        # Each connection asks once and stays open (keep-alive) until the server refuses one.
        for _ in range(cap + 4):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=30)
            s.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            status = responses(s.recv(65536))
            (held if status == [200] else refused).append((s, status))
        assert cap - 1 <= len(held) <= cap  # the start-up health check may still be counted
        assert [status for _, status in refused] == [[429]] * (len(refused))
        assert "too many open connections" in server.log_tail()
    finally:
        for s, _ in held + refused:
            s.close()
    deadline = time.monotonic() + 30  # closed connections are released; the API answers again
    while server.fetch_health() is None:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    server.stop()


def test_the_log_keeps_a_few_lines_of_the_same_warning(server):
    before = server.log_path.read_text()
    for _ in range(40):
        raw = exchange(server, b"NOT HTTP AT ALL\r\n\r\n")
        assert responses(raw) == [400]
        assert body_of(raw)["detail"].startswith("invalid HTTP request")
    # one more exchange, so the server has logged everything before we read the log
    assert responses(exchange(server, b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                      b"Connection: close\r\n\r\n")) == [200]
    added = server.log_path.read_text()[len(before):]
    assert 1 <= added.count("Invalid HTTP request") <= 5, added[-2000:]


# -- Host header (17.7) ---------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example",
                                  "localhost.evil.example", "[::2]:80", "127.0.0.2", ""])
def test_a_foreign_host_header_is_400(server, host):
    raw = exchange(server, b"GET /api/health HTTP/1.1\r\nHost: %s\r\n\r\n" % host.encode())
    assert responses(raw) == [400], raw[:300]
    assert "KAEL_ALLOWED_HOSTS" in body_of(raw)["detail"]


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost:1234", "LOCALHOST", "[::1]:8000"])
def test_the_configured_hosts_are_served_on_any_port(server, host):
    raw = exchange(server, b"GET /api/health HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n"
                           % host.encode())
    assert responses(raw) == [200], raw[:300]


# -- malformed input is a 4xx, never a 500 (11.4) -----------------------------------------------


@pytest.mark.parametrize("exercise_id", ["\u00b2", "\u0661", "\U0001d7d9", "1\u00b2", " 1", "01"*60])
def test_odd_exercise_ids_are_404_or_422(http, exercise_id):
    r = http.get("/api/exercises/" + urllib.parse.quote(exercise_id))
    assert r.status_code == 404, r.text
    token = new_client_token(http)
    r = http.post("/api/submissions", json={"exercise_id": exercise_id, "code": CORRECT}, headers=token)
    assert r.status_code in (404, 422), r.text


def test_a_percent_encoded_superscript_two_is_404(server):
    raw = exchange(server, b"GET /api/exercises/%C2%B2 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                           b"Connection: close\r\n\r\n")
    assert responses(raw) == [404], raw[:300]


@pytest.mark.parametrize("body", [
    '{"exercise_id": "adder", "code": "x = \\ud800"}',
    '{"exercise_id": "adder", "code": "\\udfff\\ud800"}',
    '{"exercise_id": "add\\ud800er", "code": "x = 1"}',
    '{"exercise_id": "adder", "code": "x = 1", "\\ud800": "\\udc00"}',
    '{"exercise_id": "adder", "code": ["\\ud800"]}',
])
def test_lone_surrogates_are_422(http, body):
    r = http.post("/api/submissions", content=body.encode(), headers={
        **new_client_token(http), "Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["detail"]
    assert http.get("/api/health").status_code == 200


# -- identity: server-issued, limited per address (11.5) ----------------------------------------


def test_fresh_tokens_and_forged_forwarding_headers_do_not_lift_the_address_limit(server, http):
    """The red team's attack: a new identity (and a made-up X-Forwarded-For) for every post."""
    rng = random.Random(11_5)
    statuses, ids = [], []
    for _ in range(8):
        headers = {**new_client_token(http),
                   "X-Forwarded-For": ".".join(str(rng.randrange(1, 255)) for _ in range(4))}
        r = http.post("/api/submissions", json={"exercise_id": "adder", "code": CORRECT}, headers=headers)
        statuses.append(r.status_code)
        if r.status_code == 202:
            ids.append(r.json()["id"])
    assert statuses == [202] * 3 + [429] * 5
    for sid in ids:
        wait_for(http, sid, headers=ADMIN)


@pytest.mark.parametrize("token", ["hostile-client-0123456789", "k1.AAAAAAAAAAAAAAAAAAAAAA." + "A" * 43])
def test_a_client_chosen_token_is_refused(http, token):
    r = http.post("/api/submissions", json={"exercise_id": "adder", "code": CORRECT},
                  headers={"X-Client-Token": token})
    assert r.status_code == 401
    assert http.get("/api/submissions", headers={"X-Client-Token": token}).status_code == 401


def test_a_token_stays_valid_across_a_restart(root):
    first = start(root, "restart")
    try:
        with httpx.Client(base_url=first.url) as c:
            token = new_client_token(c)
            assert c.get("/api/submissions", headers=token).json() == {"data": [], "count": 0}
    finally:
        first.stop()
    secret = root / "data-restart" / "secret"
    assert secret.stat().st_mode & 0o777 == 0o600
    second = start(root, "restart")
    try:
        with httpx.Client(base_url=second.url) as c:
            assert c.get("/api/submissions", headers=token).status_code == 200
    finally:
        second.stop()


# -- private responses are not cached (17.9) ------------------------------------------------------


def test_private_responses_say_no_store(http):
    token = new_client_token(http)
    r = http.get("/api/submissions", headers=token)
    assert r.headers["cache-control"] == "no-store"
    assert http.get("/api/submissions/nope", headers=token).headers["cache-control"] == "no-store"
    assert http.post("/api/clients").headers["cache-control"] == "no-store"


# -- cookie tossing (17.8) ------------------------------------------------------------------------

JUDGE_PAGE = """<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="module" src="/assets/main-0001.js"></script></head><body><pre id="out"></pre></body></html>"""

# What web/src/exercises/api.ts does: a token minted once into localStorage (per origin: a sibling
# origin can neither read nor write it), sent in X-Client-Token; and first, what the page did
# before, a request that relies on cookies alone.
JUDGE_MAIN = """
const out = document.getElementById("out");
const submit = (headers) => fetch("/api/submissions", { method: "POST", credentials: "same-origin",
  headers: { "Content-Type": "application/json", ...headers },
  body: JSON.stringify({ exercise_id: "adder", code: "def add(a, b):\\n    return a + b\\n" }) });
(async () => {
  const cookieOnly = await submit({});
  let saved = localStorage.getItem("kael.client");
  if (!saved) {
    saved = JSON.stringify(await (await fetch("/api/clients", { method: "POST" })).json());
    localStorage.setItem("kael.client", saved);
  }
  const { header, token } = JSON.parse(saved);
  const r = await submit({ [header]: token });
  out.textContent = JSON.stringify({ cookieOnly: cookieOnly.status, status: r.status,
                                     body: await r.json(), token });
})();
"""

SIBLING_PAGE = """<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
</head><body><script>
for (const name of ["kael_client", "__Host-kael_client", "__Secure-kael_client"]) {
  const secure = name.startsWith("__") ? "; Secure" : "";
  document.cookie = name + "=" + location.hash.slice(1) + "; Path=/" + secure;
  document.cookie = name + "=" + location.hash.slice(1) + "; Path=/api" + secure;
}
document.title = "planted";
</script></body></html>"""


@pytest.fixture
def sibling_origin(tmp_path):
    """Another origin on the same host: 127.0.0.1 on another port, serving the planting page."""
    (tmp_path / "sibling").mkdir()
    (tmp_path / "sibling" / "index.html").write_text(SIBLING_PAGE)

    class Handler(SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(tmp_path / "sibling"), **kwargs)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_a_cookie_planted_by_a_sibling_origin_does_not_file_the_victims_code(root, page, sibling_origin):
    expect = pytest.importorskip("playwright.sync_api").expect
    dist = root / "dist-cookie"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text(JUDGE_PAGE)
    (dist / "assets" / "main-0001.js").write_text(JUDGE_MAIN)
    judge = start(root, "cookie", KAEL_WEB_DIST=dist)
    try:
        with httpx.Client(base_url=judge.url, timeout=30) as http:
            attacker = new_client_token(http)
            page.goto(f"{sibling_origin}/#{attacker['X-Client-Token']}")
            expect(page).to_have_title("planted")
            planted = {c["name"] for c in page.context.cookies(judge.url)}
            assert "kael_client" in planted, planted  # the attack is set up: the judge gets it

            page.goto(judge.url + "/")
            # (a locator, not wait_for_function: that evaluates a string, which the CSP refuses)
            expect(page.locator("#out")).to_have_text(re.compile(r"^\{"), timeout=60_000)
            outcome = json.loads(page.text_content("#out"))
            assert outcome["cookieOnly"] == 401  # a cookie names nobody
            assert outcome["status"] == 202, outcome
            victim = {"X-Client-Token": outcome["token"]}
            sid = outcome["body"]["id"]
            assert http.get("/api/submissions", headers=attacker).json()["count"] == 0
            assert http.get(f"/api/submissions/{sid}", headers=attacker).status_code == 404
            assert wait_for(http, sid, headers=victim)["verdict"] == "Accepted"
    finally:
        judge.stop()
