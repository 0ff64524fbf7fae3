"""`cibench-lab qwen score` on the fixture output folder reproduces the numbers the original's
own --eval-only code printed for it (tests/fixtures/qwen/golden.json), item by item; ``fair``
differs only where docs/qwen.md says.  The items' code runs in the sandbox, one process each.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest

from cibench_lab.benchmarks.qwen.exec import QwenExecutor
from cibench_lab.cli import main
from cibench_lab.cli.qwen import RecordedReplies
from cibench_lab.grading.qwen.execrate import ExecItem, prepare
from cibench_lab.grading.qwen.score import ExecResult, score_folder
from cibench_lab.grading.qwen.table import as_dict

FIX = Path(__file__).parent.parent / "fixtures" / "qwen"
GOLDEN = json.loads((FIX / "golden.json").read_text(encoding="utf-8"))
REPLIES = FIX / "judge-replies.jsonl"


def score(capsys, *extra: str) -> dict:
    assert main(["qwen", "score", str(FIX / "outputs"), "--format", "json", *extra]) == 0
    return json.loads(capsys.readouterr().out)["models"][0]


@pytest.fixture(scope="module")
def qwen_run():
    """One scoring of the fixture under ``qwen`` (its items' code runs once for the module)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert (
            main(["qwen", "score", str(FIX / "outputs"), "--format", "json", "--judge-replies", str(REPLIES)])
            == 0
        )
    return json.loads(out.getvalue())["models"][0]


def percents(table: dict) -> dict:
    return {k: (v or {}).get("percent") for k, v in table.items()}


def test_the_originals_numbers(qwen_run):
    want = GOLDEN["global_eval_result"]
    assert qwen_run["model"] == "qwen-14b-chat"
    assert percents(qwen_run["code_executability"]) == pytest.approx(want["code_executability"])
    assert percents(qwen_run["code_correctness"]) == pytest.approx(want["code_correctness"])


def test_the_originals_items(qwen_run):
    for name in ("visualization", "general"):
        failed = GOLDEN["error_files"][f"{name}_qwen-14b-chat_res_exec_error.jsonl"]
        ours = [
            i["line"] for i in qwen_run["items"] if i["family"] == "executable" and i["file"].startswith(name)
        ]
        ours_failed = [
            i["line"]
            for i in qwen_run["items"]
            if i["family"] == "executable" and i["file"].startswith(name) and not i["executable"]
        ]
        assert ours_failed == failed and len(ours) > len(failed)
    vis = [json.loads(line) for line in (FIX / "outputs" / "visualization_qwen-14b-chat_res.jsonl").open()]
    wrong = [
        vis[i["line"]]["query"]
        for i in qwen_run["items"]
        if i["family"].startswith("visualization-") and not i["right"]
    ]
    assert wrong == GOLDEN["error_files"]["visualization_qwen-14b-chat_res_vis_error.jsonl"]
    asked = [i for i in qwen_run["items"] if i.get("judged")]
    assert len(asked) == len(GOLDEN["judge_asked"])


def test_fair_differs_only_in_the_verdict_and_the_math_reading(qwen_run):
    """fair runs the same code as qwen: the qwen run's verdicts are replayed, not run again."""
    ran = {(i["file"], i["line"]): i for i in qwen_run["items"] if i["family"] == "executable"}
    files = {
        "visualization": "visualization_qwen-14b-chat_res.jsonl",
        "general": "general_qwen-14b-chat_res.jsonl",
    }

    def replay(item: ExecItem) -> ExecResult:
        said = ran[(files[item.tags.split(",")[0]], item.index)]
        return ExecResult(said["executable"], said["error"])

    fair = as_dict(score_folder(FIX / "outputs", "fair", replay, RecordedReplies(REPLIES)), "fair")["models"][
        0
    ]
    assert fair["code_executability"] == qwen_run["code_executability"]
    assert percents(fair["code_correctness"]) == pytest.approx(
        {"math": 90.0, "visualization-hard": 200 / 7, "visualization-easy": 50.0}
    )


def test_table_and_no_judge(capsys, monkeypatch, tmp_path):
    """The text table, from a file whose one item has no code (nothing runs)."""
    folder = tmp_path / "outputs"
    folder.mkdir()
    shutil.copy(FIX / "outputs" / "general_qwen-14b-chat_res.jsonl", folder)
    rows = [json.loads(x) for x in (folder / "general_qwen-14b-chat_res.jsonl").open()][3:4]  # missing code
    (folder / "general_qwen-14b-chat_res.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    monkeypatch.delenv("CIBENCH_LAB_JUDGE_MODEL", raising=False)
    assert main(["qwen", "score", str(folder), "--upload-files", str(FIX / "upload_file_clean")]) == 0
    text = capsys.readouterr().out
    flat = " ".join(text.split())
    assert (
        flat.startswith("profile: qwen code_executability")
        and "| qwen-14b-chat | None | None | 0.0 |" in flat
    )
    assert "| 0/1, 1 missing | - | - | - |" in flat


def test_the_sandbox_has_no_network_and_the_limit_runs_in_a_thread():
    run = QwenExecutor(None)
    net = run(
        ExecItem(
            0,
            "general",
            prepare('import socket\nsocket.create_connection(("1.1.1.1", 53), 3)', "q", []),
            None,
        )
    )
    assert not net.executable and net.error.startswith("OSError")
    sig = run(
        ExecItem(
            1, "visualization", prepare("import signal\nsignal.signal(signal.SIGALRM, print)", "q", []), 10.0
        )
    )
    assert not sig.executable and "main thread" in sig.error


def test_an_items_sandbox_has_the_kernels_limits():
    """A Qwen item's process runs under the task kernels' limits (processes, memory, file size) and its
    private /tmp has their size: a fork or memory bomb in an item is bounded as in a kernel."""
    from cibench_lab.kernels.limits import KernelLimits

    want = KernelLimits()
    code = (
        "import resource, os\n"
        f"assert resource.getrlimit(resource.RLIMIT_FSIZE)[0] == {want.file_mb * 1024 * 1024}\n"
        f"assert resource.getrlimit(resource.RLIMIT_AS)[0] == {want.memory_mb * 1024 * 1024}\n"
        f"assert resource.getrlimit(resource.RLIMIT_NPROC)[0] == {want.processes}\n"
        f"assert os.statvfs('/tmp').f_blocks * os.statvfs('/tmp').f_frsize <= {want.tmp_mb * 1024 * 1024}\n"
    )
    done = QwenExecutor(None)(ExecItem(0, "general", prepare(code, "q", []), None))
    assert done.executable, done.error
