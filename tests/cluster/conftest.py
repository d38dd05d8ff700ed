"""Fixtures of the scaled-mode tests: a real Postgres started from Debian's binaries (skipped,
saying why, only where they are not installed), grading workers and API servers as processes.

Grading uses the real sandbox when it works here (root, bubblewrap, its self-test), else
``KAEL_SANDBOX=off``, said in the output. Every test here is marked ``cluster``."""

import itertools
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "server"))

from _support import ADMIN_TOKEN, uid_base, write_exercise  # noqa: E402
from server.cluster.postgres import LocalPostgres, PostgresUnavailable, find_bindir  # noqa: E402

SECRET = "cluster-tests-secret-0123456789abcdef"


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/cluster" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.cluster)


@pytest.fixture(scope="session")
def pg_bindir():
    try:
        return find_bindir()
    except PostgresUnavailable as exc:
        pytest.skip(f"scaled-mode tests need a Postgres server: {exc}")


@pytest.fixture(scope="session")
def postgres(pg_bindir):
    """One Postgres server for the session (a test may restart it); each test its own database."""
    pg = LocalPostgres(pg_bindir).start()
    yield pg
    pg.stop()


DATABASES = itertools.count()


@pytest.fixture
def database_url(postgres) -> str:
    return postgres.create_database(f"test{next(DATABASES)}")


@pytest.fixture(scope="session")
def cluster_exercises(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("cluster-exercises")
    write_exercise(root, 1, "adder")
    return root


@pytest.fixture(scope="session")
def sandbox_setting(cluster_exercises, tmp_path_factory) -> str:
    """``on`` when a worker's sandbox self-test passes here, else ``off`` (said loudly)."""
    probe = ("import sys\nfrom server.core.config import load_settings\n"
             "from server.grading.service import check_grading\n"
             "sys.exit(1 if check_grading(load_settings()) is None else 0)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("KAEL_")}
    env.update(KAEL_GRADING_WORKERS="1", KAEL_SANDBOX_UID_BASE=str(uid_base()),
               KAEL_DATA_DIR=str(tmp_path_factory.mktemp("probe")), KAEL_LOG_LEVEL="ERROR",
               KAEL_EXERCISES_DIR=str(cluster_exercises))
    result = subprocess.run([sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True,
                            text=True, timeout=120)
    if result.returncode == 0:
        return "on"
    sys.stderr.write("\n[cluster] the grading sandbox does not work here; workers run with "
                     f"KAEL_SANDBOX=off\n{result.stderr[-1500:]}\n")
    return "off"


@pytest.fixture
def cluster_env(database_url, cluster_exercises, sandbox_setting, tmp_path) -> dict:
    """Settings shared by every API server and worker of one test's cluster."""
    return {
        "KAEL_DATABASE_URL": database_url,
        "KAEL_EXERCISES_DIR": str(cluster_exercises),
        "KAEL_DATA_DIR": str(tmp_path / "data"),
        "KAEL_SECRET": SECRET,  # tokens issued by one API server are good at the others
        "KAEL_ADMIN_TOKEN": ADMIN_TOKEN,
        "KAEL_SANDBOX": sandbox_setting,
        "KAEL_SANDBOX_UID_BASE": str(uid_base()),
        "KAEL_GRADING_WORKERS": "1",
        "KAEL_WORKER_LEASE_S": "6",
        "KAEL_RATE_LIMIT": "0/60",
        "KAEL_ADDRESS_RATE_LIMIT": "0/60",
        "KAEL_MINT_LIMIT": "0/60",
        "KAEL_CLIENT_PENDING": "0",
        "KAEL_QUEUE_SIZE": "10000",
        "KAEL_LOG_LEVEL": "INFO",
    }


def wait_until(condition, timeout: float, what: str):
    """Poll ``condition()`` until it returns something true (the timeout only guards a hang)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"still waiting after {timeout} s for {what}"
        time.sleep(0.1)
