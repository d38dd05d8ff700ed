"""Fixtures of the server tests: a tiny exercise, settings in a temporary folder, an in-process
client (TestClient) and a real uvicorn server in a subprocess."""

import sys
import warnings
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
warnings.filterwarnings("ignore", message=".*httpx.*starlette.testclient.*")

from fastapi.testclient import TestClient  # noqa: E402

from _support import ADMIN_TOKEN, TEST_SECRET, Server, uid_base, write_exercise  # noqa: E402
from server.app import create_app  # noqa: E402
from server.core.config import Settings  # noqa: E402


@pytest.fixture(scope="session")
def exercises_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("exercises")
    write_exercise(root, 1, "adder")
    return root


@pytest.fixture
def make_settings(tmp_path, exercises_root):
    def make(**overrides) -> Settings:
        base = Settings(data_dir=tmp_path / "data", exercises_dir=exercises_root,
                        web_dist=tmp_path / "no-dist", admin_token=ADMIN_TOKEN,
                        grading_workers=2, log_level="WARNING",
                        sandbox_uid_base=uid_base(), secret=TEST_SECRET,
                        allowed_hosts=Settings.allowed_hosts + ("testserver",))
        return replace(base, **overrides)

    return make


@pytest.fixture
def make_client(make_settings):
    clients = []

    def make(**overrides) -> TestClient:
        client = TestClient(create_app(make_settings(**overrides)))
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client) -> TestClient:
    return make_client()


@pytest.fixture
def make_server(tmp_path, exercises_root):
    """Servers of one test share a data folder and sandbox uids (their own, so that test runs
    side by side do not share RLIMIT_NPROC budgets)."""
    servers = []
    uids = uid_base()

    def make(**env) -> Server:
        base = {"KAEL_DATA_DIR": str(tmp_path / "data"), "KAEL_EXERCISES_DIR": str(exercises_root),
                "KAEL_WEB_DIST": str(tmp_path / "no-dist"), "KAEL_ADMIN_TOKEN": ADMIN_TOKEN,
                "KAEL_LOG_LEVEL": "INFO", "KAEL_SANDBOX_UID_BASE": str(uids)}
        base.update({k: str(v) for k, v in env.items()})
        server = Server(base, tmp_path / f"server-{len(servers)}.log")
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()
