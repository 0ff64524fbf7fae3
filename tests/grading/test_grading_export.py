"""Export to OpenCompass's prediction format, and re-score it identically.

The golden corpus becomes two tasks (typed steps; a generation-split task for the
``general`` cases), played as a run through the engine.  The export must hold,
per step, exactly the lagent action dicts OpenCompass's interpreter produced for
those turns (expected.json), and re-scoring it with CIBenchEvaluator's rules must
give the golden scores.  (The same export was scored by OpenCompass's own
``CIBenchEvaluator.score`` in the throwaway environment: docs/grading.md.)
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from test_grading_golden import CORPUS, EXPECTED, turns_of

from cibench_lab.cli import main
from cibench_lab.grading import opencompass as oc
from cibench_lab.play.attempt import Attempts, NewAttempt
from cibench_lab.play.settings import PlaySettings
from cibench_lab.runs.local import ensure_run
from cibench_lab.store import Store
from cibench_lab.tasks.library import TaskLibrary

pytestmark = pytest.mark.fast

RUN = "golden"


def _reference(case: dict) -> list:
    target = case["target"]
    if target is None:
        return []
    if case["kind"] == "vis":
        return [new_output("display_data", data={"image/png": target, "text/plain": "<Figure>"})]
    return [new_output("stream", name="stdout", text=target)]


def write_task(root: Path, split: str, stem: str, cases: list[dict], typed: bool) -> None:
    cells = []
    for case in cases:
        cells.append(new_markdown_cell(f"Case {case['id']}: {case['note']}."))
        cells.append(new_code_cell("# reference", outputs=_reference(case)))
    nb = new_notebook(cells=cells)
    if typed:
        nb.metadata["step_types"] = [c["kind"] for c in cases]
    nb.metadata["cibench_lab"] = {"schema_version": 1, "title": stem, "language": "en"}
    path = root / split / "pandas" / f"{stem}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))


def golden_tasks(root: Path) -> dict[str, list[dict]]:
    groups = {
        "cibench_template/pandas/golden": [c for c in CORPUS if c["kind"] != "general"],
        "cibench_generation/pandas/golden_general": [c for c in CORPUS if c["kind"] == "general"],
    }
    for task_id, cases in groups.items():
        split, _, stem = task_id.split("/")
        write_task(root, split, stem, cases, typed=split == "cibench_template")
    (root / "datasources" / "data").mkdir(parents=True, exist_ok=True)
    return groups


def play_golden_run(
    store: Store,
    lib: TaskLibrary,
    groups: dict[str, list[dict]],
    mode: str = "e2e",
    rule: str = "settling",
    run: str = RUN,
) -> None:
    """``rule``: settling (default), as the recorded model runs are graded (the export re-scores
    the last turns)."""
    attempts = Attempts(store, lib)
    run_id = ensure_run(attempts, run if mode == "e2e" else f"{run}-{mode}", "golden", mode)
    for task_id, cases in groups.items():
        task = lib.get(task_id)
        new = NewAttempt(task, mode, "human", "golden", PlaySettings(grade_rule=rule), {}, run_id=run_id)
        attempt_id = attempts.create(new)
        for step, case in zip(task.steps, cases, strict=True):
            for turn in turns_of(case):
                attempts.record_turn(attempt_id, step.index, turn)
            row, _ = attempts.load(attempt_id)
            if row.current_step == step.index and row.status == "open":
                attempts.settle(attempt_id, step.index, "next")


@pytest.fixture(scope="module")
def golden_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("golden-tasks")
    groups = golden_tasks(root)
    lib = TaskLibrary.load([root])
    assert not lib.problems, lib.problems
    db = f"sqlite:///{root / 'g.sqlite'}"
    store = Store(db)
    play_golden_run(store, lib, groups)
    return root, db, lib, groups


def test_loader_targets_are_the_corpus_targets(golden_run):
    _, _, lib, groups = golden_run
    for task_id, cases in groups.items():
        for step, case in zip(lib.get(task_id).steps, cases, strict=True):
            assert step.kind == case["kind"], case["id"]
            assert step.reference.value == case["target"], case["id"]


def test_export_rescores_identically(golden_run, tmp_path):
    root, db, _, groups = golden_run
    assert (
        main(["--db", db, "--task-dir", str(root), "export", "--format", "opencompass", RUN, str(tmp_path)])
        == 0
    )
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["grade_rules"] == {"settling": len(groups)}  # the rule OpenCompass re-scores by
    assert set(manifest["datasets"]) == {"cibench_template/pandas", "cibench_generation/pandas"}
    for task_id, cases in groups.items():
        abbr = "/".join(task_id.split("/")[:2])
        preds = json.loads((tmp_path / "predictions" / RUN / f"{abbr}.json").read_text())
        assert list(preds) == ["0"]
        entry = preds["0"]
        assert len(entry["steps"]) == len(entry["gold"]) == len(entry["origin_prompt"]) == len(cases)
        for actions, case in zip(entry["steps"], cases, strict=True):
            expected = EXPECTED[case["id"]]
            _same_actions(actions, expected["actions"], case["id"])
            got = oc.rescore_step(actions, case["kind"], case["target"])
            assert (got["tool"], got["exec"]) == (expected["tool"], expected["exec"]), case["id"]
            if case["kind"] == "vis":
                assert got["score"] == pytest.approx(expected["score"], abs=1e-9), case["id"]
            else:
                assert got["score"] == expected["score"], case["id"]
    assert (tmp_path / "datasets" / "cibench_template" / "pandas" / "golden.ipynb").exists()


def _same_actions(actions: list[dict], expected: list[dict], cid: str) -> None:
    assert len(actions) == len(expected), cid
    for a, e in zip(actions, expected, strict=True):
        assert (a["result"]["text"] if a["result"] else None) == e["text"], cid
        assert a["errmsg"] == e["errmsg"], cid
        n = a["result"]["image_path"].count("![fig-") if a["result"] else 0
        assert n == e["n_images"], cid
        for path in oc._FIG.findall(a["result"]["image_path"] if a["result"] else ""):
            assert Path(path).is_absolute() and Path(path).exists()


def test_dataset_abbrs_are_opencompass():
    assert oc.dataset_abbr("cibench_template", "nltk", "e2e") == "cibench_template/nltk"
    assert oc.dataset_abbr("cibench_template", "nltk", "oracle") == "cibench_template_oracle/nltk"
    assert (
        oc.dataset_abbr("cibench_template_chinese", "nltk", "oracle")
        == "cibench_template_oracle_chinese/nltk"
    )
    assert oc.dataset_abbr("cibench_generation", "scipy", "oracle") == "cibench_generation_oracle/scipy"


def test_export_of_an_unknown_run_is_refused(golden_run, tmp_path, capsys):
    root, db, _, _ = golden_run
    assert main(["--db", db, "--task-dir", str(root), "export", "nope", str(tmp_path)]) == 2
    assert "no run named" in capsys.readouterr().err


def test_report_matches_the_official_evaluator_on_the_export(golden_run, capsys):
    """Per dataset, our report equals what OpenCompass's CIBenchEvaluator.score returned on the export."""
    root, db, _, _ = golden_run
    official = json.loads((Path(__file__).parent.parent / "fixtures/golden/export_scores.json").read_text())[
        "scores"
    ]
    assert main(["--db", db, "report", RUN, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    names = {"tool": "tool_rate", "exec": "executable", "text": "text_score", "vis": "vis_sim"}
    for split, data in report["runs"][0]["splits"].items():
        expected = official[f"{RUN}/{split}/pandas"]
        ours = data["libs"]["pandas"]
        names["num"] = "general_correct" if split == "cibench_generation" else "numeric_correct"
        for metric, key in names.items():
            value = expected.get(key, -1)
            assert ours[metric] == (None if value == -1 else round(value, 2)), (split, metric)


def test_a_run_that_kept_best_runs_says_so(golden_run, tmp_path, capsys):
    root, shared, lib, groups = golden_run
    copy = tmp_path / "copy.sqlite"  # the module's database stays as the other tests read it
    with sqlite3.connect(shared.removeprefix("sqlite:///")) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)
    db = f"sqlite:///{copy}"
    store = Store(db)
    play_golden_run(store, lib, groups, rule="best", run="golden-best")
    store.dispose()
    args = ["--db", db, "--task-dir", str(root), "export", "--format", "opencompass", "golden-best"]
    assert main([*args, str(tmp_path / "export")]) == 0
    out = capsys.readouterr()
    manifest = json.loads((tmp_path / "export" / "manifest.json").read_text())
    assert manifest["grade_rules"] == {"best": len(groups)}
    assert "kept their best run (grade rule best)" in out.err and "grade rule: best (2)" in out.out
    assert main(["--db", db, "report", "golden-best", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["runs"][0]["grade_rule"] == "best" and "grade rule: best" in report["notes"]
    assert main(["--db", db, "report", "golden", "golden-best", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [row["grade_rule"] for row in report["leaderboard"]] == ["best", "settling"]
    best, settling = (row["E-Exec"] for row in report["leaderboard"])
    assert best > settling  # the golden corpus has steps whose last turn failed after one that ran
