"""`inspect eval cibench_lab/cibench` on two built-in tasks with scripted turns — each step's reply is
its reference code, after an error on odd steps, and only errors on every third step — through
Inspect's OpenAI-compatible provider (``openai-api``, a base URL and a key) against our scripted test
server, and through Inspect's mock model; both compared with `cibench-lab run --player openai:…`
played once against the same script: the same requests, message for message (the OpenAI path), the
same turns, and the same scores per task (its Inspect export) and pooled (`report`).
Cost: six sandboxed kernels (two per play), about 2.5 min on two cores."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import inspect_ai
import pytest
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model
from openai_server import ScriptedServer
from sqlalchemy import select

from cibench_lab.cli import main
from cibench_lab.grading.summary import METRICS
from cibench_lab.store import Store
from cibench_lab.store.tables import Attempt, Turn
from cibench_lab.tasks.library import TaskLibrary, builtin_dir

TASKS = ["cibench_template/pandas/penguins_raw_tidy", "cibench_template/pandas/tips_ratio_by_group"]
KEY = "sk-inspect-test-key"
WRONG = "print(totl)"
Prompts = dict[str, tuple[int, str]]


def prompts() -> Prompts:
    lib = TaskLibrary.load([builtin_dir()])
    return {s.prompt: (s.index, s.code) for t in TASKS for s in lib.get(t).steps}


def reply(script: Prompts, said: list[tuple[str, str]]) -> str:
    """The scripted reply to a conversation of (role, text): the latest step prompt's reference code
    in CIBench's ReAct format, an error first on odd steps, only errors on every third step."""
    step, code, replied = None, "", False
    for role, text in reversed(said):
        if role == "user" and text in script:
            step, code = script[text]
            break
        replied = replied or role == "assistant"
    if step is not None and (step % 3 == 2 or (step % 2 and not replied)):
        code = WRONG
    return f"Thought: I run it.\nAction: IPythonInterpreter\nAction Input: ```python\n{code}\n```"


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content or "")


class StepScript(ScriptedServer):
    """The scripted server answering with :func:`reply`.  Each request it answers becomes an exchange
    of its own (messages and reply): ``script()`` is what was asked and answered."""

    def __init__(self, script: Prompts):
        super().__init__([], model="scripted", key=KEY)
        self.script = script

    def answer(self, body: dict[str, Any], auth: str | None) -> tuple[str, Any]:
        messages = body.get("messages") or []
        said = [(m.get("role", ""), _text(m.get("content"))) for m in messages]
        with self._lock:
            self.exchanges.append({"messages": messages, "reply": reply(self.script, said), "served": 0})
            self.exchanges[-1]["done"] = False
        return super().answer(body, auth)

    def asked(self) -> list[str]:
        """The exchanges, each as canonical JSON, sorted (samples play concurrently)."""
        return sorted(json.dumps([e["messages"], e["reply"]], sort_keys=True) for e in self.exchanges)


def task_scores(log: EvalLog) -> dict[str, dict[str, Any]]:
    return {
        s.metadata["task_id"]: {k: v.value for k, v in (s.scores or {}).items()} for s in log.samples or []
    }


def turns(db: str) -> dict[str, list[tuple[int, int, str]]]:
    """Each task's recorded turns: (step, turn, code)."""
    store = Store(db)
    with store.session() as s:
        rows = s.execute(
            select(Attempt.task_id, Turn.step, Turn.number, Turn.code).join(
                Turn, Turn.attempt_id == Attempt.id
            )
        ).all()
    store.dispose()
    return {t: sorted((step, n, code) for task, step, n, code in rows if task == t) for t in TASKS}


@pytest.fixture(scope="module")
def direct(tmp_path_factory) -> dict[str, Any]:
    """`cibench-lab run --player openai:scripted` against the script: what it asked, its turns, its
    export's per-task scores and its `report`."""
    root = tmp_path_factory.mktemp("direct")
    cfg = root / "models.json"
    cfg.write_text(json.dumps({"models": {"scripted": {"backoff": 0.01}}}))
    db = f"sqlite:///{root / 'r.sqlite'}"
    common = ["--db", db, "--task-dir", str(builtin_dir())]
    with pytest.MonkeyPatch.context() as mp, StepScript(prompts()) as server:
        mp.setenv("OPENAI_API_KEY", KEY)
        run = [
            "run",
            "--player",
            "openai:scripted",
            "--model-config",
            str(cfg),
            "--base-url",
            server.base_url,
        ]
        assert main([*common, *run, "--tasks", *TASKS, "--run", "direct", "--no-progress"]) == 0
    server.check()
    assert main([*common, "export", "--format", "inspect", "direct", str(root / "export")]) == 0
    (exported,) = (root / "export").iterdir()
    report = io.StringIO()
    with contextlib.redirect_stdout(report):
        assert main([*common, "report", "direct", "--format", "json"]) == 0
    (found,) = json.loads(report.getvalue())["runs"]
    pooled = found["splits"]["cibench_template"]["libs"]["pandas"]
    scores = task_scores(read_eval_log(str(exported)))
    assert any(v < 100 for task in scores.values() for v in task.values())  # the script tells turns apart
    return {"asked": server.asked(), "turns": turns(db), "scores": scores, "pooled": pooled}


def inspect_eval(tmp_path: Path, model: Any, **options: Any) -> EvalLog:
    import cibench_lab.inspectai._registry  # noqa: F401  (what the entry point loads)

    db = f"sqlite:///{tmp_path / 'i.sqlite'}"
    args = {"tasks": ",".join(TASKS), "db": db, "task_dir": str(builtin_dir())}
    logs = str(tmp_path / "logs")
    (log,) = inspect_ai.eval(
        "cibench_lab/cibench", model=model, task_args=args, log_dir=logs, display="none", **options
    )
    assert log.status == "success", log.error
    return log


def same_as_direct(log: EvalLog, tmp_path: Path, direct: dict[str, Any]) -> None:
    scores = task_scores(log)
    assert sorted(scores) == sorted(TASKS) and scores == direct["scores"]
    micro = {s.name: s.metrics["micro"].value for s in log.results.scores}  # type: ignore[union-attr]
    assert micro == {m: direct["pooled"][m] for m in METRICS if direct["pooled"][m] is not None}
    assert turns(f"sqlite:///{tmp_path / 'i.sqlite'}") == direct["turns"]


def test_inspect_eval_over_an_openai_endpoint_is_cibench_lab_run(tmp_path, monkeypatch, direct):
    monkeypatch.setenv("SCRIPTED_API_KEY", KEY)
    with StepScript(prompts()) as server:
        log = inspect_eval(tmp_path, "openai-api/scripted/scripted", model_base_url=server.base_url)
    server.check()
    assert all(r["authorization_ok"] for r in server.requests)
    assert server.asked() == direct["asked"]  # the same requests, message for message
    same_as_direct(log, tmp_path, direct)


def test_inspect_eval_with_the_mock_model_is_cibench_lab_run(tmp_path, direct):
    script = prompts()

    def outputs(messages: list[ChatMessage], tools, tool_choice, config) -> ModelOutput:
        out = ModelOutput.from_content("mockllm/model", reply(script, [(m.role, m.text) for m in messages]))
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)  # else counted online
        return out

    log = inspect_eval(tmp_path, get_model("mockllm/model", custom_outputs=outputs))
    same_as_direct(log, tmp_path, direct)
