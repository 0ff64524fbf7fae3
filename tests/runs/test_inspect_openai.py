"""`inspect eval cibench_lab/cibench` through Inspect's OpenAI-compatible provider (``openai-api``, a
base URL and a key) against our scripted test server, on two built-in tasks: each step's reply is its
reference code, after an error on odd steps, and only errors on every third step.  `cibench-lab run
--player openai:…` then sends the very same requests (the server asserts them, message for message) and
scores the same, per task (its Inspect export) and pooled (`report`).  Cost: four sandboxed kernels
(two per path), about 90 s on two cores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import inspect_ai
from inspect_ai.log import EvalLog, read_eval_log
from openai_server import ScriptedServer

from cibench_lab.cli import main
from cibench_lab.grading.summary import METRICS
from cibench_lab.tasks.library import TaskLibrary, builtin_dir

TASKS = ["cibench_template/pandas/penguins_raw_tidy", "cibench_template/pandas/tips_ratio_by_group"]
KEY = "sk-inspect-test-key"
WRONG = "print(totl)"


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content or "")


class StepScript(ScriptedServer):
    """The scripted server answering from the conversation: the latest step prompt's reference code
    in CIBench's ReAct format, an error first on odd steps, only errors on every third step.  Each
    request it answers becomes an exchange of its own (messages and reply), so ``exchanges`` ends as
    the script the other path must follow."""

    def __init__(self, prompts: dict[str, tuple[int, str]]):
        super().__init__([], model="scripted", key=KEY)
        self.prompts = prompts

    def answer(self, body: dict[str, Any], auth: str | None) -> tuple[str, Any]:
        messages = body.get("messages") or []
        step, code, replied = None, "", False
        for m in reversed(messages):
            if m.get("role") == "user" and _text(m.get("content")) in self.prompts:
                step, code = self.prompts[_text(m.get("content"))]
                break
            replied = replied or m.get("role") == "assistant"
        if step is not None and (step % 3 == 2 or (step % 2 and not replied)):
            code = WRONG
        reply = f"Thought: I run it.\nAction: IPythonInterpreter\nAction Input: ```python\n{code}\n```"
        with self._lock:
            self.exchanges.append({"messages": messages, "reply": reply, "served": 0, "done": False})
        return super().answer(body, auth)


def inspect_path(tmp_path: Path, server: ScriptedServer, monkeypatch) -> EvalLog:
    import cibench_lab.inspectai._registry  # noqa: F401  (what the entry point loads)

    monkeypatch.setenv("SCRIPTED_API_KEY", KEY)
    args = {
        "tasks": ",".join(TASKS),
        "db": f"sqlite:///{tmp_path / 'i.sqlite'}",
        "task_dir": str(builtin_dir()),
    }
    (log,) = inspect_ai.eval(
        "cibench_lab/cibench",
        model="openai-api/scripted/scripted",
        model_base_url=server.base_url,
        task_args=args,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    return log


def run_path(tmp_path: Path, server: ScriptedServer, monkeypatch, capsys) -> dict[str, Any]:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    cfg = tmp_path / "models.json"
    cfg.write_text(json.dumps({"models": {"scripted": {"backoff": 0.01}}}))
    db = ["--db", f"sqlite:///{tmp_path / 'r.sqlite'}", "--task-dir", str(builtin_dir())]
    run = [
        "run", "--player", "openai:scripted", "--model-config", str(cfg), "--base-url", server.base_url,
        "--tasks", *TASKS, "--run", "direct", "--no-progress",
    ]  # fmt: skip
    assert main([*db, *run]) == 0
    assert main([*db, "export", "--format", "inspect", "direct", str(tmp_path / "export")]) == 0
    capsys.readouterr()
    assert main([*db, "report", "direct", "--format", "json"]) == 0
    (found,) = json.loads(capsys.readouterr().out)["runs"]
    return found["splits"]["cibench_template"]["libs"]["pandas"]


def sample_scores(log: EvalLog, key) -> dict[str, dict[str, Any]]:
    return {key(s): {k: v.value for k, v in (s.scores or {}).items()} for s in log.samples or []}


def test_inspect_eval_over_an_openai_endpoint_scores_as_cibench_lab_run(tmp_path, monkeypatch, capsys):
    lib = TaskLibrary.load([builtin_dir()])
    prompts = {s.prompt: (s.index, s.code) for t in TASKS for s in lib.get(t).steps}
    with StepScript(prompts) as server:
        log = inspect_path(tmp_path, server, monkeypatch)
    server.check()
    assert log.status == "success", log.error
    assert all(r["authorization_ok"] for r in server.requests)
    script = [{"messages": e["messages"], "reply": e["reply"]} for e in server.exchanges]
    assert sum(WRONG in e["reply"] for e in script) > len(prompts) // 2  # errors, retried and not
    with ScriptedServer(script, model="scripted", key=KEY) as again:
        ours = run_path(tmp_path, again, monkeypatch, capsys)
    again.check()  # every request of `cibench-lab run` was one of Inspect's, and all of them were sent
    scores = sample_scores(log, lambda s: s.id)
    assert sorted(scores) == sorted(TASKS)
    assert any(v < 100 for task in scores.values() for v in task.values())
    (exported,) = (tmp_path / "export").rglob("*.eval")
    assert sample_scores(read_eval_log(str(exported)), lambda s: s.metadata["task_id"]) == scores
    micro = {s.name: s.metrics["micro"].value for s in log.results.scores}  # type: ignore[union-attr]
    assert micro == {m: ours[m] for m in METRICS if ours[m] is not None}
