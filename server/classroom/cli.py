"""``python -m server teacher create --name NAME | list | revoke ID``: teacher credentials from
the command line, on the server's own database and secret (the same KAEL_* settings)."""

from __future__ import annotations

import argparse
import sys

from server.classroom.store import create_teacher, list_teachers, revoke_teacher, utc
from server.classroom.tokens import TeacherTokens
from server.core.config import load_settings
from server.core.identity import load_secret
from server.db import make_engine, make_sessionmaker, migrate


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m server teacher",
                                     description="teacher credentials (README, \"Classes\")")
    commands = parser.add_subparsers(dest="command", required=True)
    create = commands.add_parser("create", help="issue a credential; prints it once")
    create.add_argument("--name", required=True, help="the teacher's name, as classes show it")
    commands.add_parser("list", help="every teacher: id, name, created, revoked")
    revoke = commands.add_parser("revoke", help="refuse a credential from its next request on")
    revoke.add_argument("id")
    return parser


def main(argv: list[str], out=sys.stdout) -> int:
    args = _parser().parse_args(argv)
    settings = load_settings()
    if not settings.database_url:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    engine = make_engine(settings.sqlalchemy_url)
    try:
        migrate(engine)
        with make_sessionmaker(engine)() as session:
            return _run(args, session, settings, out)
    finally:
        engine.dispose()


def _run(args, session, settings, out) -> int:
    if args.command == "create":
        name = args.name.strip()
        if not name or len(name) > 100 or not name.isprintable():
            print("python -m server teacher: --name must be 1-100 printable characters", file=sys.stderr)
            return 2
        teacher, token = create_teacher(session, TeacherTokens(load_secret(settings)), name)
        print(f"teacher {teacher.id} ({teacher.name})", file=out)
        print(f"credential (shown once; send it as X-Teacher-Token): {token}", file=out)
        return 0
    if args.command == "list":
        for t in list_teachers(session):
            revoked = f"revoked {utc(t.revoked_at).isoformat()}" if t.revoked_at else "active"
            print(f"{t.id}  {utc(t.created_at).isoformat()}  {revoked}  {t.name}", file=out)
        return 0
    if revoke_teacher(session, args.id) is None:
        print(f"python -m server teacher: no teacher {args.id!r}", file=sys.stderr)
        return 1
    print(f"teacher {args.id} revoked", file=out)
    return 0
