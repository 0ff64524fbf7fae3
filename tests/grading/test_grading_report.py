"""Summaries, CIBench's weighting, the leaderboard with bootstrap CIs, and `cibench-lab report`."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from test_grading_export import golden_run  # noqa: F401  (the module-scoped fixture)

from cibench_lab.cli import main
from cibench_lab.grading.leaderboard import (
    OFFICIAL_COUNTS,
    Record,
    bootstrap,
    interval,
    leaderboard,
    official_counts,
    run_report,
    weighted,
)
from cibench_lab.grading.summary import summarize

pytestmark = pytest.mark.fast


def g(kind: str, score: float | None, tool: float = 1.0, exe: float = 1.0, **extra) -> dict:
    return {"kind": kind, "tool": tool, "exec": exe, "score": score, **extra}


def test_summarize_counts_general_under_num_and_flags():
    s = summarize([g("num", 1.0), g("general", 0.0), g("exec", None, exe=0.0), g("vis", 0.5, ungradable="x")])
    assert s["num"] == 50.0 and s["counts"]["num"] == 2 and s["counts"]["general"] == 1
    assert s["exec"] == 75.0 and s["vis"] == 50.0 and s["text"] is None and s["ungradable"] == 1
    judged = summarize(
        [g("vis", 1.0, judge={"score": 0.8}), g("vis", 1.0, judge={"score": None, "error": "e"})]
    )
    assert judged["judge"] == 80.0 and judged["judge_failed"] == 1  # a failure is not a 0


def test_split_weighting_is_by_question_counts():
    libs = {
        "pandas": {"num": 50.0, "counts": {"num": 40}},
        "nltk": {"num": 80.0, "counts": {"num": 10}},
        "pytorch": {"num": None, "counts": {"num": 0}},  # weight 0: harmless, as in OpenCompass
    }
    for lib in libs.values():
        lib.update({m: lib.get(m) for m in ("tool", "exec", "text", "vis")})
        lib["counts"].update({m: 0 for m in ("tool", "exec", "text", "vis")})
    assert weighted(libs)["num"] == pytest.approx((50 * 40 + 80 * 10) / 50)
    assert weighted(libs)["text"] is None


def test_official_counts_check():
    libs = {lib: {"counts": {"tool": c[0], "num": c[1], "text": c[2], "vis": c[3]}}
            for lib, c in OFFICIAL_COUNTS["cibench_template"].items()}  # fmt: skip
    assert official_counts("cibench_template", libs) is True
    libs["nltk"]["counts"]["num"] -= 1
    assert official_counts("cibench_template", libs) is False
    assert official_counts("my_split", libs) is None


def records(mode: str, scores: list[float], player: str = "m") -> list[Record]:
    steps = [[g("num", s), g("text", s / 2), g("vis", s), g("exec", None)] for s in scores]
    split, lib = "cibench_template", "pandas"
    return [
        Record(f"{player}-{mode}", player, mode, f"{split}/{lib}/t{i}", split, lib, st)
        for i, st in enumerate(steps)
    ]


def test_leaderboard_columns_avg_and_ci():
    rows = leaderboard(records("e2e", [1, 0, 1, 1]) + records("oracle", [1, 1, 1, 1]))
    (row,) = rows
    assert row["E-Num"] == 75.0 and row["O-Num"] == 100.0 and row["E-Text"] == 37.5 and row["O-Vis"] == 100.0
    assert row["Avg"] == pytest.approx(np.mean([75.0, 37.5, 75.0, 100.0, 50.0, 100.0]), abs=0.01)
    lo, hi = row["ci"]["E-Num"]
    assert lo <= 75.0 <= hi and lo < hi
    assert row["ci"]["O-Num"] == [100.0, 100.0]
    assert list(row)[:3] == ["player", "tasks", "E-Tool"] and "Avg" in row


def test_bootstrap_is_seeded_and_covers_the_mean():
    rng = np.random.default_rng(3)
    sums = rng.integers(0, 2, (40, 1)).astype(float)
    counts = np.ones((40, 1))
    a, b = bootstrap(sums, counts), bootstrap(sums, counts)
    assert np.array_equal(a, b)
    (lo, hi), = interval(a)  # fmt: skip
    assert lo < 100 * sums.mean() < hi and hi - lo < 40


def test_run_report_shapes():
    report = run_report(records("e2e", [1, 0]))
    total = report["splits"]["cibench_template"]["total"]
    assert report["overall"]["num"] == 50.0 and total["weighted"]["num"] == 50.0
    assert report["splits"]["cibench_template"]["libs"]["pandas"]["tasks"] == 2


def test_cli_report_formats_and_plot(golden_run, tmp_path, capsys):  # noqa: F811
    _, db, _, _ = golden_run
    assert main(["--db", db, "report", "--format", "table"]) == 0
    out = capsys.readouterr().out
    assert "leaderboard · profile cibench" in out and "E-Num" in out and "profile: cibench" in out
    assert "general_correct" in out  # the generation split's general is reported under Num, saying so
    assert main(["--db", db, "report", "golden", "--profile", "fair", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert rows and {r["profile"] for r in rows} == {"fair"}
    assert {r["section"] for r in rows} == {"run", "leaderboard"}
    plot = tmp_path / "bars.png"
    assert main(["--db", db, "report", "--format", "json", "--plot", str(plot)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["profile"] == "cibench" and report["leaderboard"][0]["player"] == "human"
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["--db", db, "report", "nope"]) == 2


def test_grade_rules_are_never_pooled():
    """A player whose attempts used both rules gets a leaderboard row per rule; a run split the
    same way; the notes say which rules the report holds."""
    from cibench_lab.cli.report import build, csv_rows

    best = [
        Record(r.run, r.player, r.mode, r.task_id, r.split, r.lib, r.grades, "best")
        for r in records("e2e", [1, 1])
    ]
    settling = records("e2e", [0, 0])
    assert {r.grade_rule for r in settling} == {"settling"}  # a Record's default: as model runs are kept
    rows = leaderboard(best + settling)
    assert [(r["player"], r["grade_rule"], r["E-Num"]) for r in rows] == [
        ("m", "best", 100.0),
        ("m", "settling", 0.0),
    ]
    report = build(best + settling, "fair")
    assert sorted((r["run"], r["grade_rule"], r["overall"]["num"]) for r in report["runs"]) == [
        ("m-e2e", "best", 100.0),
        ("m-e2e", "settling", 0.0),
    ]
    assert (
        "grade rules: best, settling (never pooled: a run or player is reported once per rule)"
        in report["notes"]
    )
    assert "grade rule: settling" in build(settling, "fair")["notes"]
    table = list(csv_rows(report))
    assert table[0][-1] == "grade_rule" and {row[-1] for row in table[1:]} == {"best", "settling"}


def test_cli_report_names_the_grade_rule(golden_run, capsys):  # noqa: F811
    _, db, _, _ = golden_run
    assert main(["--db", db, "report", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {r["grade_rule"] for r in report["runs"]} == {"settling"}
    assert report["leaderboard"][0]["grade_rule"] == "settling" and "grade rule: settling" in report["notes"]
    assert main(["--db", db, "report", "--format", "table"]) == 0
    assert "grade rule settling" in capsys.readouterr().out
