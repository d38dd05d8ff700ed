"""Run the judge server: ``python -m server --host 127.0.0.1 --port 8000`` (what ``make serve``
and the tests run). It is uvicorn with the connection bounds of ``server.core.protocol``, the
keep-alive timeout, X-Forwarded-For believed only from ``KAEL_TRUSTED_PROXIES``, and a log that
cannot be flooded; the settings are the ``KAEL_*`` variables (README, "Server settings")."""

from __future__ import annotations

import argparse
import logging
import os
import resource
import sys

import uvicorn

from server.core.config import Settings, load_settings
from server.core.logs import install_flood_guard
from server.core.protocol import ConnectionGuard, protocol_class

MAX_HEADER_BYTES = 16 * 1024  # request line and headers: h11 answers 400 beyond this


def _configure_logging(level: str) -> None:
    """One handler on the root logger, flood-guarded; uvicorn's and asyncio's loggers propagate
    to it (uvicorn's own logging configuration is not used)."""
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
    root.setLevel(logging.WARNING)
    install_flood_guard(root)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).setLevel(level.upper())


def _allow_the_address_served(host: str) -> None:
    """``--host 192.168.1.5`` is answered under that address too, unless KAEL_ALLOWED_HOSTS says
    otherwise (a wildcard address names no host: set KAEL_ALLOWED_HOSTS for it)."""
    if host in ("0.0.0.0", "::", "") or os.environ.get("KAEL_ALLOWED_HOSTS", "").strip():
        return
    name = f"[{host}]" if ":" in host else host.lower()
    if name not in Settings.allowed_hosts:
        os.environ["KAEL_ALLOWED_HOSTS"] = ",".join(Settings.allowed_hosts + (name,))


def _raise_open_file_limit(wanted: int) -> int:
    """Room for ``wanted`` sockets plus the server's own files, as far as the hard limit allows."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        return target
    return soft


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["teacher"]:  # python -m server teacher create|list|revoke
        from server.classroom.cli import main as teacher_main

        raise SystemExit(teacher_main(argv[1:]))
    parser = argparse.ArgumentParser(prog="python -m server", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--log-level", default="info",
                        choices=["critical", "error", "warning", "info", "debug"])
    args = parser.parse_args(argv)
    _allow_the_address_served(args.host)  # before the app (in this process) reads the settings
    settings = load_settings()
    _configure_logging(args.log_level)
    files = _raise_open_file_limit(settings.max_connections + 256)
    if files < settings.max_connections + 64:
        logging.getLogger("kael.server").warning(
            "KAEL_MAX_CONNECTIONS=%d but only %d files may be open: lower it or raise the limit",
            settings.max_connections, files)
    guard = ConnectionGuard(per_address=settings.connections_per_address,
                            total=settings.max_connections,
                            read_timeout_s=settings.read_timeout_s,
                            exempt=settings.trusted_proxies)
    config = uvicorn.Config(
        "server.app:app", host=args.host, port=args.port, log_config=None, log_level=args.log_level,
        http=protocol_class(guard), ws="none", lifespan="on",
        proxy_headers=bool(settings.trusted_proxies),
        forwarded_allow_ips=",".join(settings.trusted_proxies) or None,
        timeout_keep_alive=settings.keepalive_timeout_s,
        limit_concurrency=settings.max_connections + 1,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        server_header=False,
    )
    uvicorn.Server(config).run()


if __name__ == "__main__":
    main()
