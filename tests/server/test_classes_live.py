"""Classes through the real server and sandbox: a teacher made on the command line, three
learners who submit a correct solution, a known mistake and an unknown wrong one, the
teacher's dashboard counting exactly those; and who can read what, over real HTTP."""

import os
import subprocess
import sys

import httpx
import pytest
from _support import ADMIN_TOKEN, Server, needs_sandbox, new_client_token, wait_for

from server.core.config import REPO

sys.path.insert(0, str(REPO / "exercises"))
from harness.patch import apply_patch  # noqa: E402

EXERCISE = REPO / "exercises" / "03-sum-to"
UNKNOWN_WRONG = '''
import kael


def sum_to(g, shape):
    """Wrong in a way no hand-written mutant is: the gradient comes back scaled by 2."""
    dims = tuple(range(g.ndim - len(shape)))
    out = g.sum(dims) if dims else g
    for i, n in enumerate(shape):
        if n == 1 and out.shape[i] != 1:
            out = out.sum(i, keepdim=True)
    return out * 2
'''


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    needs_sandbox()
    root = tmp_path_factory.mktemp("classes-live")
    env = {"KAEL_DATA_DIR": str(root / "data"), "KAEL_WEB_DIST": str(root / "no-dist"),
           "KAEL_ADMIN_TOKEN": ADMIN_TOKEN, "KAEL_LOG_LEVEL": "INFO"}
    server = Server(env, root / "server.log").start()
    server.cli_env = {**{k: v for k, v in os.environ.items() if not k.startswith("KAEL_")}, **env}
    yield server
    server.stop()


def cli_teacher(server, name) -> dict:
    out = subprocess.run([sys.executable, "-m", "server", "teacher", "create", "--name", name],
                         cwd=REPO, env=server.cli_env, capture_output=True, text=True, check=True)
    token = out.stdout.strip().rsplit(" ", 1)[-1]
    assert token.startswith("t1."), out.stdout
    return {"X-Teacher-Token": token}


def mutant_source() -> tuple[str, str]:
    reference = (EXERCISE / ".meta" / "reference.py").read_text()
    diff = EXERCISE / ".meta" / "mutants" / "mean_not_sum.diff"
    return diff.stem, apply_patch(reference, diff.read_text())


def test_a_class_dashboard_counts_what_its_learners_got_wrong(server):
    with httpx.Client(base_url=server.url, timeout=60) as http:
        teacher = cli_teacher(server, "Ms Rivera")
        other_teacher = cli_teacher(server, "Mr Okafor")
        klass = http.post("/api/classes", json={"name": "Period 3", "exercises": ["sum-to"]},
                          headers=teacher).json()
        mutant, mutant_code = mutant_source()
        codes = {"Ada": (EXERCISE / ".meta" / "reference.py").read_text(), "Ben": mutant_code,
                 "Cy": UNKNOWN_WRONG}
        learners, submissions = {}, {}
        for name, source in codes.items():
            token = new_client_token(http)
            learners[name] = token
            r = http.post("/api/classes/join", json={"code": klass["join_code"], "display_name": name},
                          headers=token)
            assert r.status_code == 200, r.text
            r = http.post("/api/submissions", json={"exercise_id": "sum-to", "code": source}, headers=token)
            assert r.status_code == 202, r.text
            submissions[name] = r.json()["id"]
        verdicts = {name: wait_for(http, sid, headers=learners[name])["verdict"]
                    for name, sid in submissions.items()}
        assert verdicts["Ada"] == "Accepted" and verdicts["Ben"] != "Accepted" != verdicts["Cy"]

        board = http.get(f"/api/classes/{klass['id']}/dashboard", headers=teacher).json()
        best = {row["display_name"]: row["cells"]["sum-to"]["best_verdict"] for row in board["learners"]}
        assert best == verdicts
        mistakes = board["mistakes"]["sum-to"]
        assert mistakes["wrong"] == 2 and mistakes["unknown"] == 1
        assert {m["mutant"]: m["learners"] for m in mistakes["known"]}.get(mutant) == 1

        # Privacy, over real HTTP: a learner reads only its own submission and no class page;
        # the other teacher reads nothing of this class.
        ada, ben = learners["Ada"], learners["Ben"]
        assert http.get(f"/api/submissions/{submissions['Ben']}", headers=ada).status_code == 404
        assert [s["id"] for s in http.get("/api/submissions", headers=ada).json()["data"]] == [
            submissions["Ada"]]
        learner_id = board["learners"][1]["id"]
        for path in ("", "/dashboard", "/export.csv", "/export.json",
                     f"/learners/{learner_id}/submissions"):
            url = f"/api/classes/{klass['id']}{path}"
            assert http.get(url, headers=ben).status_code == 401, url
            r = http.get(url, headers=other_teacher)
            assert r.status_code == 404 and "sum_to" not in r.text, url
        drill = http.get(f"/api/classes/{klass['id']}/learners/{learner_id}/submissions",
                         headers=teacher).json()
        assert drill["display_name"] == "Ben" and drill["data"][0]["mistakes"]
