"""`inspect eval cibench_lab/cibench --model PROVIDER/MODEL`: CIBench as an Inspect AI task.

Registered through Inspect's entry point (``[project.entry-points.inspect_ai]`` names
:mod:`._registry`).  One sample per task of our library that the arguments choose; the solver plays
it in our sandboxed kernel through the step driver with the sample's model (:mod:`.play`); one
scorer per CIBench metric (:mod:`.scorers`).  Arguments (``-T name=value``; docs/inspect.md)::

    split=cibench_template  library=pandas  tasks=ID|PATTERN[,…]  mode=e2e|oracle
    protocol=react|tools  merge_roles=false  profile=cibench|fair  max_turn=3  timeout=120
    run=NAME  db=URL  task_dir=DIR[,…]  sandbox=true
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig

from ..grading.profile import PROFILES
from ..kernels.interpreter import check_kernel_python
from ..kernels.sandbox import SandboxSetting, configure, prepare
from ..play.attempt import Attempts
from ..store import Store, configured_url
from ..tasks.library import TaskLibrary, default_task_dirs
from ..tasks.model import Task as CITask
from ..tasks.vocabulary import MODES, Mode
from .client import PROTOCOLS
from .play import Options, Shared, play_task
from .scorers import metric_scorers

#: CIBench's agent: greedy, at most 512 new tokens (`cibench-lab run`'s defaults); `inspect eval
#: --temperature/--max-tokens` override them.
GENERATE = GenerateConfig(temperature=0.0, max_tokens=512)


def _listed(value: str | list[str] | None) -> list[str] | None:
    if value is None or isinstance(value, list):
        return value
    return [v.strip() for v in str(value).split(",") if v.strip()]


def chosen(lib: TaskLibrary, split: str | None, library: str | None, tasks: list[str] | None) -> list[CITask]:
    """The library's tasks matching every filter given (ValueError: none does)."""
    found = [
        t
        for t in lib.select(tasks)
        if (split is None or t.split == split) and (library is None or t.lib == library)
    ]
    if not found:
        given = ", ".join(
            f"{k}={v}" for k, v in (("split", split), ("library", library), ("tasks", tasks)) if v
        )
        raise ValueError(f"cibench: no task matches {given or 'the library'}")
    return found


def dataset(tasks: list[CITask]) -> MemoryDataset:
    """A sample per task: id the task's id, input its first instruction, target its reference code."""
    samples = [
        Sample(
            id=t.id,
            input=t.steps[0].instruction if t.steps else t.title,
            target=[s.code for s in t.steps],
            metadata={
                "task_id": t.id,
                "split": t.split,
                "lib": t.lib,
                "title": t.title,
                "steps": len(t.steps),
            },
        )
        for t in tasks
    ]
    return MemoryDataset(samples, name="cibench")


def start_kernels(sandbox: bool) -> None:
    """Check the kernel Python and configure the kernel sandbox (ValueError: one line why not)."""
    problem = check_kernel_python() or (prepare() if sandbox else None)
    if problem:
        raise ValueError(f"cibench: {problem}")
    configure(SandboxSetting(enabled=sandbox))


def check(options: Options) -> None:
    for value, allowed, name in (
        (options.mode, MODES, "mode"),
        (options.protocol, tuple(PROTOCOLS), "protocol"),
        (options.profile, PROFILES, "profile"),
    ):
        if value not in allowed:
            raise ValueError(f"cibench: {name}={value!r}: one of {', '.join(allowed)}")


@task
def cibench(
    split: str | None = None,
    library: str | None = None,
    tasks: str | list[str] | None = None,
    mode: Mode = "e2e",
    protocol: str = "react",
    merge_roles: bool = False,
    profile: str = "cibench",
    max_turn: int = 3,
    timeout: float = 120.0,
    run: str | None = None,
    db: str | None = None,
    task_dir: str | list[str] | None = None,
    sandbox: bool = True,
) -> Task:
    """CIBench's tasks played in cibench-lab's sandboxed kernels, scored by its grading profiles."""
    options = Options(mode, protocol, merge_roles, profile, float(timeout), int(max_turn), run)
    check(options)
    dirs = [Path(d) for d in _listed(task_dir) or []] or default_task_dirs()
    lib = TaskLibrary.load(dirs)
    picked = chosen(lib, split, library, _listed(tasks))
    start_kernels(bool(sandbox))
    store = Store(configured_url(db))
    store.check_writable()
    shared = Shared(Attempts(store, lib), options)
    return Task(
        dataset=dataset(picked),
        solver=play_task(shared),
        scorer=metric_scorers(),
        config=GENERATE,
        metadata={"profile": profile, "mode": mode, "protocol": protocol},
    )
