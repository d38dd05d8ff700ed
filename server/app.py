"""The judge server: ``server.app:app`` for uvicorn, ``create_app(settings)`` for tests."""

import logging
from contextlib import asynccontextmanager

from fastapi import APIRouter, FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from server.core.config import Settings, load_settings
from server.core.http import BodyLimit, SecurityHeaders
from server.core.ratelimit import RateLimiter
from server.db import make_engine, make_sessionmaker, migrate
from server.grading.service import start_grading
from server.routes import docs, exercises, frontend, health, submissions

log = logging.getLogger("kael.server")

DESCRIPTION = """The judge behind the kael playground: exercises, and submissions graded in a
sandbox on public and hidden tests. A client is known by an opaque token: the `kael_client`
cookie the server sets, or an `X-Client-Token` header that an API client chooses (16 to 128
characters of `A-Z a-z 0-9 _ -`); it sees only its own submissions."""


def _configure_logging(level: str) -> None:
    if not log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        log.addHandler(handler)
        log.propagate = False
    log.setLevel(level)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or load_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        _configure_logging(settings.log_level)
        if not settings.database_url:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
        engine = make_engine(settings.sqlalchemy_url)
        version = migrate(engine)
        log.info("database %s (schema version %d)", engine.url.render_as_string(hide_password=True), version)
        app.state.sessions = make_sessionmaker(engine)
        app.state.grading = start_grading(settings, app.state.sessions)
        try:
            yield
        finally:
            app.state.grading.stop()
            engine.dispose()

    app = FastAPI(title="kael judge", version="0.1.0", description=DESCRIPTION,
                  docs_url=None, redoc_url=None, lifespan=lifespan)
    app.state.settings = settings
    app.state.limiter = RateLimiter(settings.rate_limit, settings.rate_window_s)

    api = APIRouter(prefix="/api")
    api.include_router(health.router)
    api.include_router(exercises.router)
    api.include_router(submissions.router)
    app.include_router(api)
    app.include_router(docs.router)
    app.include_router(frontend.router)
    app.router.routes.append(frontend.FrontendRoute(settings))  # last: everything else

    @app.exception_handler(StarletteHTTPException)
    async def name_unknown_api_routes(request: Request, exc: StarletteHTTPException):
        """A 404 from routing itself names what was asked for; other errors pass through."""
        if exc.status_code == 404 and exc.detail == "Not Found":
            return JSONResponse({"detail": f"no such route: {request.method} {request.url.path}"},
                                status_code=404)
        return await http_exception_handler(request, exc)

    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    app.add_middleware(SecurityHeaders)  # added last, so outermost: on every response
    return app


app = create_app()
