"""A property-based fuzz of the whole API from its own OpenAPI document (schemathesis): every
operation gets requests that fit the schema and requests that break it (wrong types, missing
and extra fields, odd strings, bad headers), with and without a valid client token, against a
real server. No request may get a 5xx; every refusal must be a JSON error with a detail.

Deterministic: Hypothesis is derandomized and keeps no example database, so every run sends the
same requests. It prints how many it sent, by operation and by status."""

from collections import Counter

import httpx
import pytest
import requests
import schemathesis
from _support import ADMIN_TOKEN, Server, needs_sandbox, new_client_token, write_exercise
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode

EXAMPLES_PER_OPERATION = 25  # per generation mode (positive, negative): the run stays well under a minute


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    needs_sandbox()
    root = tmp_path_factory.mktemp("fuzz")
    write_exercise(root / "exercises", 1, "adder")
    env = {"KAEL_DATA_DIR": str(root / "data"), "KAEL_EXERCISES_DIR": str(root / "exercises"),
           "KAEL_WEB_DIST": str(root / "no-dist"), "KAEL_ADMIN_TOKEN": ADMIN_TOKEN,
           "KAEL_MINT_LIMIT": "100000/60", "KAEL_LOG_LEVEL": "INFO"}
    server = Server(env, root / "server.log").start()
    yield server
    server.stop()


def test_no_request_from_the_openapi_document_gets_a_5xx(server):
    schema = schemathesis.openapi.from_url(server.url + "/openapi.json")
    with httpx.Client(base_url=server.url) as http:
        token = new_client_token(http)
        credentials = _classroom(http, token)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert {op.label for op in operations} >= {
        "GET /api/health", "POST /api/clients", "GET /api/exercises", "GET /api/exercises/{exercise_id}",
        "POST /api/submissions", "GET /api/submissions", "GET /api/submissions/{submission_id}",
        "POST /api/teachers", "POST /api/classes", "POST /api/classes/join",
        "GET /api/classes/{class_id}/dashboard", "GET /api/classes/{class_id}/export.csv",
        "GET /api/classes/{class_id}/learners/{learner_id}/submissions",
        "GET /api/progress", "POST /api/progress"}
    seen: Counter = Counter()
    failures: list[str] = []
    with requests.Session() as session:
        for operation in operations:
            cases = st.one_of(operation.as_strategy(GenerationMode.POSITIVE),
                              operation.as_strategy(GenerationMode.NEGATIVE))
            if operation.label == "POST /api/submissions":  # also submissions that get graded
                cases |= st.tuples(st.sampled_from(["adder", "1", "01-adder"]), st.text(max_size=300)).flatmap(
                    lambda pair, op=operation: op.as_strategy(body={"exercise_id": pair[0], "code": pair[1]}))
            if "{class_id}" in operation.path:  # also the class that exists, and its learner
                cases |= operation.as_strategy(path_parameters=credentials["path"])

            @settings(max_examples=2 * EXAMPLES_PER_OPERATION, derandomize=True, database=None,
                      deadline=None, suppress_health_check=list(HealthCheck))
            @given(case=cases, who=st.sampled_from(["none", "client", "teacher", "admin"]))
            def run(case, who):
                headers = credentials["headers"][who]
                response = case.call(base_url=server.url, session=session, headers=headers, timeout=60)
                seen[(operation.label, response.status_code)] += 1
                if response.status_code >= 500:
                    failures.append(f"{response.status_code} {case.as_curl_command()}\n{response.text[:300]}")
                elif response.status_code >= 400 and "json" in response.headers.get("content-type", ""):
                    assert "detail" in response.json(), response.text

            run()
    total = sum(seen.values())
    print(f"\nAPI fuzz: {total} requests, "
          f"{sum(n for (_, status), n in seen.items() if status >= 500)} with a 5xx")
    for (label, status), n in sorted(seen.items()):
        print(f"  {label:40} {status}: {n}")
    assert not failures, "\n\n".join(failures[:10])
    assert total >= len(operations) * EXAMPLES_PER_OPERATION


def _classroom(http, token) -> dict:
    """A teacher, its class and one learner in it: the fuzz reaches past the 401s and 404s."""
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    made = http.post("/api/teachers", json={"name": "fuzz"}, headers=admin).json()
    teacher = {"X-Teacher-Token": made["token"]}
    klass = http.post("/api/classes", json={"name": "fuzz", "exercises": ["adder"]},
                      headers=teacher).json()
    http.post("/api/classes/join", json={"code": klass["join_code"], "display_name": "Ada"},
              headers=token).raise_for_status()
    board = http.get(f"/api/classes/{klass['id']}/dashboard", headers=teacher).json()
    return {"headers": {"none": None, "client": dict(token), "teacher": {**token, **teacher},
                        "admin": admin},
            "path": {"class_id": klass["id"], "learner_id": board["learners"][0]["id"]}}
