"""ASGI middleware: security headers on every response (``no-store`` on the API's), the Host
header checked against the configured names, and a cap on request bodies enforced while they
stream in. Every refusal here is a small JSON error that closes the connection."""

import json
import re

# What the playground needs and nothing from other origins: its own scripts (module workers
# included), WebAssembly compilation for Pyodide ('wasm-unsafe-eval', not 'unsafe-eval'),
# fetches of its own files, inline styles (CodeMirror and Swagger UI set them), and data: images
# (Swagger UI's icons).
CSP = "; ".join([
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "worker-src 'self'",
    "connect-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'",
])

SECURITY_HEADERS = [
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-embedder-policy", b"require-corp"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"SAMEORIGIN"),
]


NO_STORE = (b"cache-control", b"no-store")


class SecurityHeaders:
    """Adds the headers above to every HTTP response (replacing any the app set), and
    ``Cache-Control: no-store`` to every response under ``private_prefix`` that sets no
    Cache-Control of its own: API answers carry private data (a client's submissions and code)
    that no browser or proxy cache may keep."""

    def __init__(self, app, private_prefix: str = "/api/"):
        self.app = app
        self.names = {name for name, _ in SECURITY_HEADERS}
        self.private_prefix = private_prefix

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        private = scope["path"].startswith(self.private_prefix)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in self.names]
                if private and not any(k.lower() == b"cache-control" for k, _ in headers):
                    headers.append(NO_STORE)
                message = {**message, "headers": headers + SECURITY_HEADERS}
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def send_error(send, status: int, detail: str, headers=()) -> None:
    """A JSON error (ASCII, so any detail encodes) that also closes the connection: whatever the
    client sent after the refused request on the same connection is never read as a request."""
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"), NO_STORE, *headers]})
    await send({"type": "http.response.body", "body": body})


# host, or [v6 address], then an optional :port
HOST_HEADER = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[^:\[\]]+)(?::[0-9]{1,5})?")


class AllowedHosts:
    """400 unless the Host header names one of ``hosts`` (any port): a page of another site
    that rebinds its own DNS name to this machine's address cannot reach the API. ``*`` among
    the hosts accepts any."""

    def __init__(self, app, hosts):
        self.app = app
        self.hosts = frozenset(h.lower() for h in hosts)
        self.any = "*" in self.hosts

    def allowed(self, value: bytes | None) -> bool:
        if value is None:
            return False
        match = HOST_HEADER.fullmatch(value.decode("latin-1").strip())
        return match is not None and match[1].lower().rstrip(".") in self.hosts

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or self.any:
            return await self.app(scope, receive, send)
        hosts = [v for k, v in scope.get("headers", []) if k == b"host"]
        if len(hosts) != 1 or not self.allowed(hosts[0]):
            shown = hosts[0].decode("latin-1")[:100] if hosts else "(none)"
            return await send_error(send, 400, f"this server does not answer to Host {shown!r}; "
                                               "it answers to the names in KAEL_ALLOWED_HOSTS")
        await self.app(scope, receive, send)


class BodyLimit:
    """Reads the whole request body before the app does, counting bytes as they stream in,
    whatever Content-Length says: 413 as soon as there are more than ``limit`` bytes (or
    Content-Length announces more), 400 for a request that carries both Content-Length and
    Transfer-Encoding (the two framings a proxy and this server could disagree on). The body
    that was read is then replayed to the app."""

    def __init__(self, app, limit: int):
        self.app = app
        self.limit = limit

    def _too_large(self, send):
        return send_error(send, 413, f"request body too large: at most {self.limit} bytes")

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        names = [k for k, _ in scope.get("headers", [])]
        if b"transfer-encoding" in names and b"content-length" in names:
            return await send_error(send, 400, "a request may not carry both Content-Length and "
                                               "Transfer-Encoding")
        length = dict(scope.get("headers", [])).get(b"content-length")
        if length is not None and length.strip().isdigit() and int(length) > self.limit:
            return await self._too_large(send)
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.limit:
                return await self._too_large(send)
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
