"""Distributed runs without a cluster: an attempt's rows applied idempotently, connection rules."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from cibench_lab.errors import BadInput
from cibench_lab.grading import TurnOutput
from cibench_lab.play.attempt import Attempts, NewAttempt
from cibench_lab.play.settings import PlaySettings
from cibench_lab.runs.dask import replica
from cibench_lab.runs.dask.client import ClusterOptions, is_local, scheduler_address, security
from cibench_lab.store import Store
from cibench_lab.store.tables import Attempt, StepRow, Turn
from cibench_lab.tasks.library import TaskLibrary, builtin_dir

TASK = "cibench_template/pandas/penguins_raw_tidy"
pytestmark = pytest.mark.fast


@pytest.fixture(scope="module")
def library():
    return TaskLibrary.load([builtin_dir()])


def new_attempt(attempts: Attempts, library) -> str:
    task = library.get(TASK)
    new = NewAttempt(task, "e2e", "reference", "player:reference", PlaySettings(), {"python": "3"})
    return attempts.create(new)


def reference_turn(attempts: Attempts, attempt_id: str, step: int) -> None:
    _, task = attempts.load(attempt_id)
    ref = task.steps[step]
    attempts.record_turn(attempt_id, step, TurnOutput(ref.code, list(ref.outputs), False, "ok"))


def counts(store: Store, attempt_id: str) -> tuple[int, int, int]:
    with store.session() as s:
        turns = s.scalar(select(func.count()).select_from(Turn).where(Turn.attempt_id == attempt_id))
        steps = s.scalar(select(func.count()).select_from(StepRow).where(StepRow.attempt_id == attempt_id))
        return turns or 0, steps or 0, s.get(Attempt, attempt_id).current_step


def test_a_worker_s_rows_reach_the_results_database_once(tmp_path, library):
    driver = Store(f"sqlite:///{tmp_path / 'driver.sqlite'}")
    worker = Store(f"sqlite:///{tmp_path / 'worker.sqlite'}")
    attempt_id = new_attempt(Attempts(driver, library), library)
    # the worker's replica: the attempt as the driver recorded it, then two turns played there
    replica.load(worker, replica.dump(driver, attempt_id), replica.owners(driver, attempt_id))
    on_worker = Attempts(worker, library)
    reference_turn(on_worker, attempt_id, 0)
    first = replica.dump(worker, attempt_id)
    reference_turn(on_worker, attempt_id, 1)
    second = replica.dump(worker, attempt_id)
    for rows in (first, second, second, first, second):  # repeats, and an older copy in between
        replica.apply(driver, rows)
    assert counts(driver, attempt_id) == counts(worker, attempt_id) == (2, 3, 2)
    assert replica.dump(driver, attempt_id) == second

    # a second worker takes over from what the driver recorded: nothing doubles
    other = Store(f"sqlite:///{tmp_path / 'other.sqlite'}")
    replica.load(other, replica.dump(driver, attempt_id), replica.owners(driver, attempt_id))
    reference_turn(Attempts(other, library), attempt_id, 2)
    replica.apply(driver, replica.dump(other, attempt_id))
    replica.apply(driver, second)
    with driver.session() as s:
        keys = s.execute(select(Turn.step, Turn.number).where(Turn.attempt_id == attempt_id)).all()
    assert sorted(keys) == [(0, 0), (1, 0), (2, 0)]


def test_a_worker_s_deltas_carry_each_row_once_and_add_up_to_its_rows(tmp_path, library):
    driver = Store(f"sqlite:///{tmp_path / 'driver.sqlite'}")
    worker = Store(f"sqlite:///{tmp_path / 'worker.sqlite'}")
    attempt_id = new_attempt(Attempts(driver, library), library)
    start = replica.dump(driver, attempt_id)
    replica.load(worker, start, replica.owners(driver, attempt_id))
    sent = replica.keys(start)
    on_worker = Attempts(worker, library)
    deltas = []
    for step in range(3):
        reference_turn(on_worker, attempt_id, step)
        deltas.append(replica.changed(replica.dump(worker, attempt_id), sent))
    # each delta holds the turn just recorded, never an earlier one
    assert [[(t["step"], t["number"]) for t in d["turns"]] for d in deltas] == [[(0, 0)], [(1, 0)], [(2, 0)]]
    assert replica.changed(replica.dump(worker, attempt_id), sent)["turns"] == []  # nothing new
    for delta in deltas:
        replica.apply(driver, delta)
    assert replica.dump(driver, attempt_id) == replica.dump(worker, attempt_id)


@pytest.mark.parametrize(
    ("address", "local"),
    [("tcp://127.0.0.1:8786", True), ("tcp://localhost:1", True), ("tcp://[::1]:1", True),
     ("tcp://10.0.0.5:8786", False), ("tls://scheduler.example:8786", False), ("127.0.0.2:9", True)],
)  # fmt: skip
def test_which_schedulers_are_local(address, local):
    assert is_local(address) is local


def test_a_remote_scheduler_without_tls_is_refused_unless_insecure():
    with pytest.raises(BadInput, match="needs TLS.*--insecure"):
        security(ClusterOptions(), "tcp://10.0.0.5:8786")
    security(ClusterOptions(insecure=True), "tcp://10.0.0.5:8786")
    security(ClusterOptions(), "tcp://127.0.0.1:8786")
    with pytest.raises(BadInput, match="tls:// address needs --tls-ca-file"):
        security(ClusterOptions(), "tls://10.0.0.5:8786")


def test_tls_files_are_required_for_every_connection(tmp_path):
    pem = tmp_path / "x.pem"
    pem.write_text("")
    files = {"tls_ca_file": str(pem), "tls_cert": str(pem), "tls_key": str(pem)}
    sec = security(ClusterOptions(**files), "tls://10.0.0.5:8786")
    assert sec.require_encryption and sec.tls_ca_file == str(pem) and sec.tls_client_cert == str(pem)


def test_a_scheduler_file_names_the_address(tmp_path):
    f = tmp_path / "scheduler.json"
    f.write_text('{"type": "Scheduler", "address": "tcp://127.0.0.1:4242"}')
    assert scheduler_address(ClusterOptions(scheduler_file=str(f))) == "tcp://127.0.0.1:4242"
    f.write_text("{}")
    with pytest.raises(BadInput, match="no scheduler address"):
        scheduler_address(ClusterOptions(scheduler_file=str(f)))


def test_a_job_names_the_key_s_variable_never_its_value(monkeypatch):
    import pickle

    from cibench_lab.cli import build_parser
    from cibench_lab.cli.run import _remote

    monkeypatch.setenv("CLUSTER_TEST_KEY", "sk-cluster-secret-1234")
    args = build_parser().parse_args(
        ["run", "--player", "openai:m", "--base-url", "http://127.0.0.1:9/v1", "--api-key-env",
         "CLUSTER_TEST_KEY", "--cluster", "tcp://127.0.0.1:8786"]
    )  # fmt: skip
    cluster, jobs = _remote(args, ("CLUSTER_TEST_KEY", ""))
    assert cluster.address == "tcp://127.0.0.1:8786"
    assert jobs.model_options["api_key_env"] == "CLUSTER_TEST_KEY" and jobs.hide_env == ("CLUSTER_TEST_KEY",)
    assert b"sk-cluster-secret-1234" not in pickle.dumps(jobs)
    with pytest.raises(BadInput, match="--jobs applies to local runs"):
        _remote(build_parser().parse_args(["run", "--cluster", "tcp://127.0.0.1:1", "--jobs", "2"]), ())


@pytest.mark.parametrize(
    ("extra", "said"),
    [(["--jobs", "2"], "--jobs applies to local runs"),
     (["--player", "replay:run.jsonl"], "replay players and --model-config"),
     (["--player", "openai:m", "--model-config", "models.toml"], "replay players and --model-config"),
     (["--kernel-pool", "1"], "--kernel-pool and --kernel-pool-memory apply to local runs"),
     (["--kernel-pool-memory", "512"], "--kernel-pool and --kernel-pool-memory apply to local runs"),
     (["--scheduler-file", "s.json"], "--cluster and --scheduler-file: give one")],
)  # fmt: skip
def test_a_cluster_run_refuses_what_only_a_local_run_does(extra, said):
    from cibench_lab.cli import build_parser
    from cibench_lab.cli.run import _remote

    args = build_parser().parse_args(["run", "--cluster", "tcp://127.0.0.1:1", *extra])
    with pytest.raises(BadInput, match=said):
        _remote(args, ())


def test_the_cli_names_the_refused_option_and_accepts_a_transcript(tmp_path, capsys):
    from cibench_lab.cli import build_parser, main
    from cibench_lab.cli.run import _remote

    db = f"sqlite:///{tmp_path / 'r.sqlite'}"
    argv = ["--db", db, "run", "--cluster", "tcp://127.0.0.1:1", "--kernel-pool", "2"]
    assert main(argv) == 2
    assert "error: --kernel-pool and --kernel-pool-memory apply to local runs" in capsys.readouterr().err
    # the transcript is written from the driver's database, where the workers' rows are recorded
    args = build_parser().parse_args(
        ["run", "--cluster", "tcp://127.0.0.1:1", "--export-transcript", str(tmp_path / "t.jsonl")]
    )
    assert _remote(args, ()) is not None


class _Observer:
    def __init__(self) -> None:
        self.settled: list[int] = []

    def step_settled(self, task, step: int, outcome: str) -> None:
        self.settled.append(step)


class _Context:  # what ClusterDriver.apply reads of a PlayContext
    def __init__(self, attempts: Attempts) -> None:
        self.attempts, self.observer = attempts, _Observer()

    async def db(self, fn, *args, **kwargs):
        return fn(*args, **kwargs)


async def test_the_driver_takes_deltas_only_from_the_latest_worker_and_each_once(tmp_path, library):
    from cibench_lab.runs.dask.driver import ClusterDriver, Tracked

    store = Store(f"sqlite:///{tmp_path / 'driver.sqlite'}")
    attempts = Attempts(store, library)
    attempt_id = new_attempt(attempts, library)
    start = replica.dump(store, attempt_id)
    played = {}
    for name, code in (("stale", "print('a worker given up on')"), ("latest", None)):
        worker = Store(f"sqlite:///{tmp_path / f'{name}.sqlite'}")
        replica.load(worker, start, replica.owners(store, attempt_id))
        on_worker, sent, deltas = Attempts(worker, library), replica.keys(start), []
        for step in range(2):
            if code is None:
                reference_turn(on_worker, attempt_id, step)
            else:
                on_worker.record_turn(attempt_id, step, TurnOutput(code, [], False, "ok"))
            if on_worker.load(attempt_id)[0].current_step == step:  # not settled by its grade
                on_worker.settle(attempt_id, step, "next")
            deltas.append(replica.changed(replica.dump(worker, attempt_id), sent))
        played[name] = (worker, [{**d, "nonce": name, "seq": i + 1} for i, d in enumerate(deltas)])
    ctx = _Context(attempts)
    driver = ClusterDriver(ctx, None, "r", "s", None)  # type: ignore[arg-type]
    driver.tracked[attempt_id] = Tracked(library.get(TASK), None, nonce="latest")  # its hello answered
    stale, latest = played["stale"][1], played["latest"][1]
    for delta in (stale[0], latest[0], stale[1], latest[0], latest[1], latest[1], latest[0]):
        await driver.apply(delta)
    assert replica.dump(store, attempt_id) == replica.dump(played["latest"][0], attempt_id)
    assert "a worker given up on" not in str(replica.dump(store, attempt_id)["turns"])
    assert ctx.observer.settled == [0, 1]  # each step reported once
    assert driver.tracked[attempt_id].seq == 2
