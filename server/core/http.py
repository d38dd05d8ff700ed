"""ASGI middleware: security headers on every response, and a cap on request bodies."""

import json

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


class SecurityHeaders:
    """Adds the headers above to every HTTP response (replacing any the app set)."""

    def __init__(self, app):
        self.app = app
        self.names = {name for name, _ in SECURITY_HEADERS}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in self.names]
                message = {**message, "headers": headers + SECURITY_HEADERS}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class BodyLimit:
    """Answers 413 to a request whose body is larger than ``limit`` bytes, before the app reads
    it (by Content-Length, or by counting a streamed body, which is then replayed)."""

    def __init__(self, app, limit: int):
        self.app = app
        self.limit = limit

    async def _reject(self, send):
        body = json.dumps({"detail": f"request body too large: at most {self.limit} bytes"}).encode()
        await send({"type": "http.response.start", "status": 413, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers", []))
        length = headers.get(b"content-length")
        if length is not None:
            try:
                too_big = int(length) > self.limit
            except ValueError:
                too_big = False
            if too_big:
                return await self._reject(send)
            return await self.app(scope, receive, send)
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.limit:
                return await self._reject(send)
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
