"""A schema-driven fuzz of the REST API: every operation of docs/openapi.json (checked to be the
document the server serves) called with schemathesis' generated requests on a real `jupyter lab`
with cibench_lab, its token, a real SQLite database and a real attempt (a sandboxed kernel, one
turn run through the kernel's websocket), a class and two studies. No answer may be a 5xx, and
each conforms to the operation's documented response (or to ``{error, status}``).

The requests: valid ones, valid ones with one string of the body or query 6,000 characters long,
and ones that break the schema. Path parameters (and a report's ``kernel_id``) are drawn from the
live rows in the valid requests, so they reach real attempts, tasks, a class and studies; the
invalid ones break them too. Bounded: EXAMPLES requests per operation at most, derandomized (the
same requests on every run), no shrinking, no example database, and the test's own timeout.
Kernels: the seeded Start starts one, and a study's first start another (its later starts are
409s while it runs); a generated ``task_id`` is a random string, so POST attempts starts none.
"""

from __future__ import annotations

import json
from pathlib import Path

import psutil
import pytest
import schemathesis
from conftest import PROBE_ID, write_probe_task
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from labclient import LabClient
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.specs.openapi.checks import response_schema_conformance
from ui.lab import TOKEN, LabServer, stop_processes

from cibench_lab.tasks.library import builtin_dir

DOC = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"
EXAMPLES = 15  # requests per operation at most
USER = "fuzzer"
STUDY = {
    "title": "Fuzz pilot",
    "protocol": "practice",
    "consent": "We record your code.",
    "questionnaire": [{"name": "years", "label": "Years of Python", "type": "number", "min": 0}],
    "tasks": [{"task": PROBE_ID}],
}
SEAT = {**STUDY, "title": "Fuzz seat", "protocol": "model-parity", "participant_code": True}


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A lab server whose user holds every role, with a class and two studies; killed by PID."""
    tmp = tmp_path_factory.mktemp("fuzz")
    tasks = tmp / "tasks"
    write_probe_task(tasks)
    traits = {
        "participant": USER,
        "instructors": [USER],
        "researchers": [USER],
        "class_members": {"period1": [USER, "student-a"]},
        "studies": {"pilot": STUDY, "seat": SEAT},
        "task_dirs": [str(builtin_dir()), str(tasks)],
        "turn_timeout": 60.0,
    }
    config = tmp / "lab_config.json"
    config.write_text(json.dumps({"CIBenchLabApp": traits}))
    (tmp / "workspace").mkdir()
    server = LabServer(tmp / "workspace", tmp / "results.sqlite", config)
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    try:
        server.start()
        yield server
    finally:
        server.kill()
        # only what this module started: the test process's own helpers (multiprocessing's
        # forkserver, reaped here, would break every later pool of the session) stay
        started = [p for p in psutil.Process().children(recursive=True) if p.pid not in before]
        stop_processes(started)


def seeded(server: LabServer) -> dict[str, list[str]]:
    """A real attempt with one recorded turn; the live value of each path parameter."""
    api = LabClient(server.url, TOKEN)
    code, attempt = api.call("POST", "attempts", {"task_id": PROBE_ID, "mode": "e2e"})
    assert code == 201, attempt
    msg_id = api.run_cell(attempt["kernel_id"], "probe = 'fuzz'")
    body = {"step": 0, "kernel_id": attempt["kernel_id"], "msg_id": msg_id}
    code, turn = api.call("POST", f"attempts/{attempt['id']}/turns", body)
    assert code == 200, turn
    return {
        "attempt_id": [attempt["id"]],
        "task_id": [PROBE_ID, "cibench_template/pandas/tips_ratio_by_group"],
        "class_name": ["period1"],
        "study_id": ["pilot", "seat"],
        "kernel_id": [attempt["kernel_id"]],
    }


def steered(live: dict[str, list[str]]) -> dict:
    """The committed document, each path parameter one of the live values (the invalid requests
    break them too)."""
    doc = json.loads(DOC.read_text())
    for item in doc["paths"].values():
        for op in item.values():
            for param in op.get("parameters", []):
                if param["in"] == "path":
                    param["schema"] = {"type": "string", "enum": live[param["name"]]}
    for name in ("RunReport", "KernelReport"):
        doc["components"]["schemas"][name]["properties"]["kernel_id"] = {"enum": live["kernel_id"]}
    return doc


#: a notebook's path longer than the OS takes (PATH_MAX 4096), a name longer than an error quotes
LONG = "a/" * 3000 + "long.ipynb"


def lengthened(value, k: list[int]):
    """``value`` with its ``k[0]``-th string (depth first) made LONG; ``k`` counts down."""
    if isinstance(value, str):
        k[0] -= 1
        return LONG if k[0] == -1 else value
    if isinstance(value, dict):
        return {key: lengthened(v, k) for key, v in value.items()}
    if isinstance(value, list):
        return [lengthened(v, k) for v in value]
    return value


def strings(value) -> int:
    """How many strings ``value`` holds (not counting keys)."""
    if isinstance(value, str):
        return 1
    if isinstance(value, dict):
        return sum(strings(v) for v in value.values())
    if isinstance(value, list):
        return sum(strings(v) for v in value)
    return 0


def long_string(pair):
    """A valid request with one string of its body or query (the ``k``-th, wrapping) made long."""
    case, k = pair
    box = [k % max(strings(case.body) + strings(case.query), 1)]
    case.body = lengthened(case.body, box) if isinstance(case.body, dict | list) else case.body
    case.query = lengthened(case.query, box) if case.query else case.query
    return case


def strategy(operation):
    """Valid requests, valid ones with a long string (where there is a body or a query) and
    invalid ones (where the schema can be broken)."""
    positive = operation.as_strategy(generation_mode=GenerationMode.POSITIVE)
    modes = [positive]
    if operation.body or operation.query:
        modes.append(st.tuples(positive, st.integers(0, 7)).map(long_string))
    modes.append(operation.as_strategy(generation_mode=GenerationMode.NEGATIVE))
    return st.one_of(*modes)


def fuzz(server: LabServer, operation) -> list[str]:
    """EXAMPLES generated calls of ``operation``; one line per failed check."""
    failures: list[str] = []
    headers = {"Authorization": f"token {TOKEN}"}

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy(operation))
    def one(case):
        response = case.call(base_url=server.url, headers=headers, timeout=60)
        try:
            case.validate_response(
                response, checks=[not_a_server_error, response_schema_conformance], headers=headers
            )
        except (Failure, FailureGroup) as err:  # every failed check is collected, the run goes on
            found = err.exceptions if isinstance(err, FailureGroup) else (err,)
            what = "; ".join(f"{f.title}: {f.message[:200]}" for f in found)
            body = json.dumps(case.body)[:200] if isinstance(case.body, dict | list) else ""
            failures.append(f"{case.method} {case.formatted_path} {body} -> {response.status_code}: {what}")

    one()
    return failures


@pytest.mark.timeout(900)  # a bound on a hung server, not a speed target
def test_no_operation_answers_a_5xx(lab):
    live = seeded(lab)
    code, served = LabClient(lab.url, TOKEN).call("GET", "openapi.json")
    assert (code, served) == (200, json.loads(DOC.read_text())), "the server serves another document"
    schema = schemathesis.openapi.from_dict(steered(live))
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) == sum(len(item) for item in served["paths"].values())
    found = [line for operation in operations for line in fuzz(lab, operation)]
    assert not found, "\n".join(found)
