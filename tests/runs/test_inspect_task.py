"""The Inspect AI task `cibench_lab/cibench`: a built-in task played through Inspect's model API (its
mock model, scripted) in our sandboxed kernel, scored by our profiles — the same scores as `cibench-lab
run` replaying the same turns, and as `report` of the run it recorded; and Inspect finds the task
through our entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import inspect_ai
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelOutput, ModelUsage, get_model

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from cibench_lab.cli import main
from cibench_lab.grading.summary import METRICS
from cibench_lab.store import Store
from cibench_lab.store.tables import Attempt, Turn
from cibench_lab.tasks.library import TaskLibrary, builtin_dir

ROOT = Path(__file__).parent.parent.parent
TASK = "cibench_template/pandas/penguins_raw_tidy"
WRONG = "print(totl)"


def scripted(prompts: dict[str, str]):
    """Inspect's mock model as a script: each step's first reply runs an error on odd steps, then the
    step's reference code, in CIBench's ReAct format (usage given: the mock would count tokens online)."""

    def reply(messages, tools, tool_choice, config) -> ModelOutput:
        after: list = []
        for m in reversed(messages):
            if m.role == "user" and m.text in prompts:
                step, code = prompts[m.text].split(":", 1)
                break
            after.append(m)
        first = not any(m.role == "assistant" for m in after)
        if first and int(step) % 2:
            code = WRONG
        text = f"Thought: I run it.\nAction: IPythonInterpreter\nAction Input: ```python\n{code}\n```"
        out = ModelOutput.from_content("mockllm/model", text)
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return out

    return reply


def play(tmp_path: Path) -> EvalLog:
    import cibench_lab.inspectai._registry  # noqa: F401  (what the entry point loads)

    task = TaskLibrary.load([builtin_dir()]).get(TASK)
    prompts = {s.prompt: f"{s.index}:{s.code}" for s in task.steps}
    model = get_model("mockllm/model", custom_outputs=scripted(prompts))
    args = {"tasks": TASK, "db": f"sqlite:///{tmp_path / 'r.sqlite'}", "task_dir": str(builtin_dir())}
    (log,) = inspect_ai.eval(
        "cibench_lab/cibench", model=model, task_args=args, log_dir=str(tmp_path / "logs"), display="none"
    )
    return log


def report(tmp_path: Path, capsys, run: str) -> dict:
    capsys.readouterr()
    db = f"sqlite:///{tmp_path / 'r.sqlite'}"
    assert main(["--db", db, "--task-dir", str(builtin_dir()), "report", run, "--format", "json"]) == 0
    (found,) = json.loads(capsys.readouterr().out)["runs"]
    return found["splits"]["cibench_template"]["libs"]["pandas"]


def test_inspect_eval_plays_a_task_scored_as_cibench_lab_run(tmp_path, capsys):
    log = play(tmp_path)
    assert log.status == "success", log.error
    (sample,) = log.samples or []
    assert sample.error is None, sample.error
    scores = {k: s.value for k, s in (sample.scores or {}).items()}
    assert sample.model_usage["mockllm/model"].total_tokens > 0
    assert sample.messages and sample.messages[-1].role == "assistant"
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    with store.session() as s:
        attempt = s.get(Attempt, sample.metadata["attempt_id"])
        assert attempt is not None and attempt.status == "done" and attempt.player == "inspect:mockllm/model"
        codes = [t.code.strip() for t in s.query(Turn).filter(Turn.attempt_id == attempt.id)]
        n, attempt_id = attempt.n_steps, attempt.id
    assert codes.count(WRONG) == n // 2 and len(codes) == n + n // 2  # an error first on odd steps
    ours = report(tmp_path, capsys, sample.metadata["run"])
    assert scores == {m: ours[m] for m in METRICS if ours[m] is not None}
    assert {s.name: s.metrics["micro"].value for s in log.results.scores} == scores  # type: ignore[union-attr]
    # no --tasks: the recorded attempt's own task, and only it
    replay = [
        "--db", f"sqlite:///{tmp_path / 'r.sqlite'}", "--task-dir", str(builtin_dir()), "run",
        "--player", f"replay:attempt:{attempt_id}", "--run", "replayed", "--no-progress",
    ]  # fmt: skip
    assert main(replay) == 0
    assert report(tmp_path, capsys, "replayed") == ours


def test_inspect_finds_the_task_through_our_entry_point(tmp_path):
    """pyproject's entry point resolves `cibench_lab/cibench` in a fresh process (its metadata put on
    the path when this checkout is not the installed one)."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["inspect_ai"]
    assert declared == {"cibench_lab": "cibench_lab.inspectai._registry"}
    dist = tmp_path / "cibench_lab_entry-0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: cibench-lab-entry\nVersion: 0\n")
    (dist / "entry_points.txt").write_text(f"[inspect_ai]\ncibench_lab = {declared['cibench_lab']}\n")
    code = (
        "from importlib.metadata import entry_points\n"
        "from inspect_ai._util.registry import registry_lookup\n"
        "eps = [e for e in entry_points(group='inspect_ai') if e.name == 'cibench_lab']\n"
        "assert eps, 'no entry point'\n"
        "print(registry_lookup('task', 'cibench_lab/cibench').__name__)\n"
    )
    installed = subprocess.run(
        [sys.executable, "-c", "from importlib.metadata import entry_points as e;"
         "print(any(x.name == 'cibench_lab' for x in e(group='inspect_ai')))"],
        capture_output=True, text=True, check=True,
    ).stdout.strip() == "True"  # fmt: skip
    path = [str(ROOT)] + ([] if installed else [str(tmp_path)])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path + [os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("cibench")
