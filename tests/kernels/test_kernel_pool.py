"""The warm kernel pool (kernels/pool.py): a kernel goes to one attempt only, and a warm kernel
plays a task exactly as a fresh one does (headless and in the lab)."""

from __future__ import annotations

import asyncio
import functools
import os
import time
from collections import Counter
from pathlib import Path

import nbformat
import pytest
from conftest import PROBE_ID, server_config
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from cibench_lab.kernels.executor import KernelExecutor
from cibench_lab.kernels.memory import tree_rss
from cibench_lab.kernels.pool import KernelPool, PoolSettings, pool_key
from cibench_lab.kernels.preimport import modules, preimport_code, task_imports
from cibench_lab.lab.pool import REFILL_AFTER_BIND
from cibench_lab.play.attempt import Attempts
from cibench_lab.play.workspace import copy_data
from cibench_lab.players import ReferencePlayer
from cibench_lab.runs.local import run_tasks
from cibench_lab.runs.spec import RunSpec
from cibench_lab.store import Store
from cibench_lab.store.tables import Attempt, Turn
from cibench_lab.tasks.library import TaskLibrary, builtin_dir

PANDAS = "cibench_template/pandas/penguins_raw_tidy"
LOOK = (
    "import os, sys\n"
    "print(os.getcwd(), sorted(os.listdir()), 'pandas' in sys.modules,"
    " [n for n in dir() if 'pandas' in n or n == 'importlib'], get_ipython().execution_count, len(In))"
)


@pytest.fixture(scope="module")
def library():
    return TaskLibrary.load([builtin_dir()])


async def _until(check, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "the pool did not get its kernels ready"
        await asyncio.sleep(0.1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"


def _tree(pid: int | None) -> set[int]:
    from cibench_lab.kernels.memory import children

    found, todo = set(), [pid] if pid else []
    while todo:
        p = todo.pop()
        found.add(p)
        todo += children(p)
    return found


@pytest.mark.fast
def test_preimport_binds_nothing_and_keys_name_environment_and_libraries(library):
    namespace: dict = {}
    exec(preimport_code(("json", "no_such_module_here")), namespace)
    assert set(namespace) == {"__builtins__"}
    task = library.get(PANDAS)
    assert pool_key(task, "/env/python") == ("/env/python", tuple(sorted(set(task.libraries))))
    assert not PoolSettings().enabled and PoolSettings(size=1).enabled


@pytest.mark.fast
def test_a_kernel_preimports_its_tasks_modules_inside_their_libraries_only(library):
    task = library.get("cibench_template/sklearn/breast_cancer_classifiers")
    named = task_imports(task)
    assert {"sklearn.ensemble", "sklearn.datasets", "matplotlib.pyplot"} <= set(named)
    assert all(m.split(".")[0] in {"sklearn", "matplotlib", "numpy", "pandas"} for m in named)
    torch = library.get("cibench_template/pytorch/auto_mpg_regression")
    # an optimizer imports torch._dynamo on first use: loaded ahead with torch
    assert modules(("pytorch",), task_imports(torch))[:2] == ["torch", "torch._dynamo"]


@pytest.mark.fast
def test_no_kernel_is_started_beyond_the_memory_budget(tmp_path):
    pool = KernelPool(tmp_path, PoolSettings(size=4, memory_mb=100))
    key = ("/env/python", ("pandas",))
    assert not pool._room_for(key)  # the first guess for a key is 300 MB
    pool.sizes[key] = 50 * 2**20
    assert pool._room_for(key)


async def test_a_refill_after_a_take_shuts_down_the_longest_waiting_other_kernel_for_room(library, tmp_path):
    task = library.get(PANDAS)
    used = pool_key(task)
    other = (used[0], ("json",))
    # 400 MB: room for one waiting kernel (the first of a key is guessed at 300 MB, one holds ~190)
    pool = KernelPool(tmp_path, PoolSettings(size=1, memory_mb=400))
    try:
        pool.expect(other)  # the server's prefill: a guess
        await _until(lambda: pool.waiting() == 1)
        pool.expect(used)  # another guess: no room, so none is started
        await _until(lambda: not pool.wanted and pool.starting is None)
        assert list(pool.ready) == [other] and pool.waiting() == 1
        waiting = _tree(pool.ready[other][0].executor.pid())
        pool.expect(used, soon=True)  # one of `used` was just taken: it gets the room
        await _until(lambda: bool(pool.ready.get(used)))
        assert pool.waiting() == 1 and not pool.ready[other]
        await _until(lambda: not any(_alive(p) for p in waiting), 30)
    finally:
        await pool.close()


async def _fresh_look(task, folder: Path) -> str:
    copy_data(task, folder)
    fresh = KernelExecutor(folder, rendering=task.rendering.rendering)
    await fresh.start()
    try:
        return (await fresh.run(LOOK)).outputs[0]["text"]
    finally:
        await fresh.shutdown()


async def test_two_attempts_never_share_a_kernel_and_a_used_one_is_never_handed_out(library, tmp_path):
    task = library.get(PANDAS)
    key, copy = pool_key(task), functools.partial(copy_data, task)
    pool = KernelPool(tmp_path, PoolSettings(size=2))
    taken: list[KernelExecutor] = []
    try:
        pool.expect(key)
        pool.expect(key)
        await _until(lambda: pool.waiting() == 2)
        take = functools.partial(pool.take, rendering=task.rendering.rendering, timeout=60, refill=False)
        for name in ("a", "b"):
            ex = await take(key, tmp_path / name, copy)
            assert ex is not None
            taken.append(ex)
        assert pool.waiting() == 0  # both handed out, none kept
        assert await take(key, tmp_path / "c", copy) is None  # none waits, none is starting
        pool.expect(key)
        await _until(lambda: pool.starting == key)
        third = await take(key, tmp_path / "c", copy)  # waits for the one being started
        assert third is not None
        taken.append(third)
        pids = [ex.pid() for ex in taken]
        files = [ex.km.connection_file for ex in taken if ex.km is not None]
        assert len(set(pids)) == 3 and len(set(files)) == 3
        # each sees its own attempt folder at the fixed path, pandas loaded but not bound, and the
        # execution count and history of a fresh kernel
        marker = tmp_path / "a" / "only-in-a.txt"
        marker.write_text("a")
        looks = [(await ex.run(LOOK)).outputs[0]["text"] for ex in taken]
        assert "only-in-a.txt" in looks[0] and "only-in-a.txt" not in looks[1]
        assert looks[1] == looks[2]
        fresh = await _fresh_look(task, tmp_path / "fresh")
        assert fresh.replace(" False ", " True ") == looks[1]  # fresh: pandas not imported yet
        assert looks[1].startswith("/work/attempt ")
    finally:
        for ex in taken:
            await ex.shutdown()
        await pool.close()
    assert not any(_alive(p) for p in pids if p)


async def test_close_shuts_every_waiting_kernel_down(library, tmp_path):
    task = library.get(PANDAS)
    pool = KernelPool(tmp_path, PoolSettings(size=1, idle_seconds=600))
    pool.expect(pool_key(task))
    await _until(lambda: pool.waiting() == 1)
    warm = pool.ready[pool_key(task)][0]
    pids = _tree(warm.executor.pid())
    assert len(pids) >= 2 and tree_rss(warm.executor.pid()) > 0  # the launcher and the sandbox
    await pool.close()
    await _until(lambda: not any(_alive(p) for p in pids), 30)
    assert not list(tmp_path.iterdir())  # its slot folder is gone


def _turns(store: Store, run_id_of: str) -> dict:
    from sqlalchemy import select

    from cibench_lab.store.tables import Run

    with store.session() as s:
        run = s.scalar(select(Run).where(Run.name == run_id_of))
        rows = s.execute(
            select(Attempt.task_id, Turn.step, Turn.number, Turn.code, Turn.outputs, Turn.error, Turn.grade)
            .join(Attempt, Attempt.id == Turn.attempt_id)
            .where(Attempt.run_id == run.id)
        ).all()
    return {(t, st, n): (code, out, err, grade) for t, st, n, code, out, err, grade in rows}


def _one_per_library(library: TaskLibrary) -> list:
    """The task of each library with the fewest steps (template split): bounded."""
    by_lib: dict = {}
    for task in library.select(["cibench_template/*"]):
        best = by_lib.get(task.lib)
        if best is None or len(task.steps) < len(best.steps):
            by_lib[task.lib] = task
    return [by_lib[k] for k in sorted(by_lib)]


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_reference_replay_gives_identical_turns_warm_and_fresh(library, tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    attempts = Attempts(store, library)
    tasks = _one_per_library(library)
    assert len(tasks) == 10

    def replay(name: str, chosen: list, pool: PoolSettings | None = None) -> dict:
        done = asyncio.run(
            run_tasks(
                attempts, chosen, RunSpec(ReferencePlayer(), "e2e", name, timeout=300, kernel_pool=pool)
            )
        )
        assert len(done) == len(chosen)
        return _turns(store, name)

    fresh, warm = replay("fresh", tasks), replay("warm", tasks, PoolSettings(size=1))
    assert fresh.keys() == warm.keys() and len(fresh) >= sum(len(t.steps) for t in tasks)
    for key in fresh:  # code, error and grade always; outputs below
        (code, _, error, grade), other = fresh[key], warm[key]
        assert (code, error, grade) == (other[0], other[2], other[3]), key
    # outputs byte for byte, but for a turn whose outputs differ between two fresh kernels too
    # (a PCA's last digits: its LAPACK sums depend on where the arrays lie in memory)
    differ = sorted({k for k in fresh if fresh[k][1] != warm[k][1]})
    if differ:
        again = replay("fresh-again", [t for t in tasks if t.id in {k[0] for k in differ}])
        assert [k for k in differ if again[k][1] == fresh[k][1]] == []


LOADED = "import sys\nprint([m for m in ('pandas', 'pandas.plotting', 'this') if m in sys.modules])"


def _modules_task(root: Path, stem: str) -> None:
    """A pandas task whose first step prints which of its modules the kernel holds already."""
    steps = [LOADED, "import pandas.plotting", "import this"]
    cells = [
        c for i, code in enumerate(steps) for c in (new_markdown_cell(f"Step {i}."), new_code_cell(code))
    ]
    nb = new_notebook(cells=cells)
    nb.metadata["step_types"] = ["text"] * len(steps)
    nb.metadata["cibench_lab"] = {"schema_version": 1, "title": stem, "language": "en"}
    path = root / "cibench_template" / "pandas" / f"{stem}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))


def test_a_run_warms_the_next_tasks_kernel_with_its_imports_once_the_current_holds_its_own(tmp_path):
    for stem in ("modules_a", "modules_b"):  # one pool key
        _modules_task(tmp_path / "tasks", stem)
    (tmp_path / "tasks" / "datasources").mkdir()
    library = TaskLibrary.load([tmp_path / "tasks"])
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    tasks = [library.get(f"cibench_template/pandas/modules_{x}") for x in "ab"]
    done = asyncio.run(
        run_tasks(
            Attempts(store, library),
            tasks,
            RunSpec(ReferencePlayer(), "e2e", "r", 120, kernel_pool=PoolSettings(1)),
        )
    )
    assert len(done) == 2
    turns = _turns(store, "r")
    printed = [turns[(t.id, 0, 0)][1][0]["text"] for t in tasks]
    # the first played on a fresh kernel (it did not take the one started for the second); the
    # second on the warm one, its task's own import loaded too; `this` (no library's) was not
    assert printed == ["[]\n", "['pandas', 'pandas.plotting']\n"]
    zen = [turns[(t.id, 2, 0)][1] for t in tasks]
    assert zen[0] == zen[1] and "Beautiful is better than ugly" in zen[0][0]["text"]
    store.dispose()


@pytest.fixture
def jp_server_config(tmp_path, task_root):
    # 400 MB: room for one waiting kernel (the first of a key is guessed at 300 MB, one holds ~190)
    return server_config(
        tmp_path, [builtin_dir(), task_root], turn_timeout=60.0, kernel_pool_size=1, kernel_pool_memory=400
    )


async def test_a_server_started_with_the_pool_on_has_a_warm_kernel_before_the_first_start(
    jp_serverapp, start_attempt
):
    services = jp_serverapp.web_app.settings["cibench_lab"]
    pool = services.lab.kernels.pool
    began = time.monotonic()
    await jp_serverapp.extension_manager.start_extension("cibench_lab")  # the server's start
    assert time.monotonic() - began < 1.0 and pool.waiting() == 0  # it starts in the background
    await _until(lambda: pool.waiting() == 1)
    [(key, [warm])] = pool.ready.items()
    warm_file = warm.executor.km.connection_file
    counts = Counter(pool_key(t) for t in services.library.tasks.values())
    assert counts[key] == max(counts.values())  # the key most tasks share comes first
    task = min(t.id for t in services.library.tasks.values() if pool_key(t) == key)
    first = await start_attempt(task)
    kernel = jp_serverapp.kernel_manager.get_kernel(first.kernel_id)
    assert kernel.connection_file == warm_file  # the first Start took the prefilled kernel
    await jp_serverapp.extension_manager.stop_all_extensions()


async def test_lab_start_takes_a_warm_kernel_and_server_stop_ends_the_pool(jp_serverapp, start_attempt):
    lab = jp_serverapp.web_app.settings["cibench_lab"].lab
    pool = lab.kernels.pool
    first = await start_attempt(PROBE_ID)  # cold: nothing waits yet; one is started for the next ...
    aid = first.attempt["id"]
    assert aid in lab.kernels.later and pool.starting is None and not pool.wanted  # ... not yet:
    await asyncio.sleep(0.5)  # the lab's part of the Start (opening the notebook) comes first
    assert pool.starting is None and not pool.wanted
    code, _ = await first.api("POST", f"attempts/{aid}/kernel", {"kernel_id": first.kernel_id})
    assert code == 200 and aid in lab.kernels.bound  # the notebook bound it: the refill follows
    await _until(lambda: pool.starting is not None or pool.waiting() == 1, REFILL_AFTER_BIND + 2)
    await _until(lambda: pool.waiting() == 1)
    warm = next(iter(pool.ready.values()))[0]
    warm_file = warm.executor.km.connection_file
    second = await start_attempt(PROBE_ID)
    km = jp_serverapp.kernel_manager
    assert first.kernel_id != second.kernel_id
    assert km.get_kernel(second.kernel_id).connection_file == warm_file  # the warm one
    assert km.get_kernel(first.kernel_id).connection_file != warm_file
    looks = []
    for b in (first, second):
        msg_id = await b.execute(LOOK)
        looks.append(await _stdout(b, msg_id))
    # the same but for pandas: loaded in the warm one before its first run (and the notebook's name: the
    # second attempt's carries its number)
    looks[1] = looks[1].replace("leak_probe-2.", "leak_probe.")
    assert looks[0].replace(" False ", " True ") == looks[1] and looks[1].startswith("/work/attempt ")
    await _until(lambda: pool.waiting() == 1)  # refilled for the next Start
    waiting = _tree(next(iter(pool.ready.values()))[0].executor.pid())
    await jp_serverapp.extension_manager.stop_all_extensions()
    await _until(lambda: not any(_alive(p) for p in waiting), 30)


async def _stdout(browser, msg_id: str) -> str:
    text = ""
    while True:
        msg = await browser.kc.get_iopub_msg(timeout=30)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "stream":
            text += msg["content"]["text"]
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return text
