"""The judge server: ``server.app:app`` for uvicorn, ``create_app(settings)`` for tests."""

import json
import logging
from contextlib import asynccontextmanager

from fastapi import APIRouter, FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from server.catalog import catalog_for
from server.core.config import Settings, load_settings
from server.core.http import AllowedHosts, BodyLimit, SecurityHeaders
from server.core.identity import Identities, load_secret
from server.core.logs import install_flood_guard
from server.core.ratelimit import memory_limits
from server.db import DatabaseUnavailable, database_unavailable, make_engine, make_sessionmaker, migrate
from server.grading.service import start_grading
from server.classroom.limits import join_limits
from server.classroom.tokens import TeacherTokens
from server.routes import classes, clients, docs, exercises, frontend, health, progress, submissions, teachers

log = logging.getLogger("kael.server")

DESCRIPTION = """The judge behind the kael playground: exercises, and submissions graded in a
sandbox on public and hidden tests. A client is known by a token that this server issues
(`POST /api/clients`) and that it sends back in the `X-Client-Token` header; it sees only its
own submissions."""


class AsciiJSONResponse(JSONResponse):
    """Errors echo what the client sent, which may hold lone surrogates (JSON allows
    ``"\\ud800"``) that UTF-8 cannot encode: escaped to ASCII, any of them renders."""

    def render(self, content) -> bytes:
        return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode()


def _configure_logging(level: str) -> None:
    if not log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        log.addHandler(handler)
        log.propagate = False
    log.setLevel(level)
    install_flood_guard(log)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or load_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        _configure_logging(settings.log_level)
        if not settings.database_url:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
        engine = make_engine(settings.sqlalchemy_url)
        version = migrate(engine)
        log.info("database %s (schema revision %s)", engine.url.render_as_string(hide_password=True), version)
        app.state.sessions = make_sessionmaker(engine)
        secret = load_secret(settings)
        app.state.identities = Identities(secret)
        app.state.teacher_tokens = TeacherTokens(secret)
        app.state.join_limits = join_limits(settings, app.state.sessions)
        log.info("exercises: %d in %s", len(catalog_for(settings.exercises_dir).exercises),
                 settings.exercises_dir)
        if settings.scaled:  # several API servers: the limits' events in the shared database
            from server.scaled.ratelimit import db_limits

            app.state.limits = db_limits(settings, app.state.sessions)
        app.state.grading = start_grading(settings, app.state.sessions)
        try:
            yield
        finally:
            app.state.grading.stop()
            engine.dispose()

    app = FastAPI(title="kael judge", version="0.1.0", description=DESCRIPTION,
                  docs_url=None, redoc_url=None, lifespan=lifespan)
    app.state.settings = settings
    app.state.limits = memory_limits(settings)

    api = APIRouter(prefix="/api")
    api.include_router(health.router)
    api.include_router(clients.router)
    api.include_router(exercises.router)
    api.include_router(submissions.router)
    api.include_router(teachers.router)
    api.include_router(classes.router)
    api.include_router(progress.router)
    app.include_router(api)
    app.include_router(docs.router)
    app.include_router(frontend.router)
    app.router.routes.append(frontend.FrontendRoute(settings))  # last: everything else

    @app.exception_handler(StarletteHTTPException)
    async def name_unknown_api_routes(request: Request, exc: StarletteHTTPException):
        """A 404 from routing itself names what was asked for; other errors pass through."""
        if exc.status_code == 404 and exc.detail == "Not Found":
            return AsciiJSONResponse({"detail": f"no such route: {request.method} {request.url.path}"},
                                     status_code=404)
        return AsciiJSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError):
        return AsciiJSONResponse({"detail": jsonable_encoder(exc.errors())}, status_code=422)

    app.add_exception_handler(DatabaseUnavailable, database_unavailable)
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    app.add_middleware(AllowedHosts, hosts=settings.allowed_hosts)
    app.add_middleware(SecurityHeaders)  # added last, so outermost: on every response
    return app


app = create_app()
