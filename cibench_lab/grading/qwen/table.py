"""The original's result table (``gather_eval_result``), as text or as a JSON-ready dict."""

from __future__ import annotations

from .score import Accuracy, ModelScore

EXEC_COLUMNS = ("math", "visualization", "general")
CORRECT_COLUMNS = ("math", "visualization-hard", "visualization-easy")


def cell(value: float | None) -> str:
    """The original's cell: ``str(v)`` for None or 0, else rounded to 2 places."""
    return str(value) if not value else str(round(value, 2))


def correctness(score: ModelScore) -> dict[str, Accuracy | None]:
    return {
        "math": score.math,
        "visualization-hard": score.vis.get("hard"),
        "visualization-easy": score.vis.get("easy"),
    }


def acc_cell(acc: Accuracy | None) -> str:
    if acc is not None and not acc.graded:
        return "not graded"
    return cell(acc.percent if acc is not None else None)


def grid(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    line = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    fmt = lambda r: "|" + "|".join(f" {c:^{w}} " for c, w in zip(r, widths, strict=True)) + "|"  # noqa: E731
    return "\n".join([line, fmt(header), line, *(fmt(r) for r in rows), line])


def render_text(scores: list[ModelScore]) -> str:
    """The two tables of the original and the items counted in each cell."""
    exec_rows = [[s.model, *(cell(rate_of(s, c)) for c in EXEC_COLUMNS)] for s in scores]
    acc_rows = [[s.model, *(acc_cell(a) for a in correctness(s).values())] for s in scores]
    count_rows = [[s.model, *counts(s)] for s in scores]
    parts = [
        "code_executability",
        grid(["model", *EXEC_COLUMNS], exec_rows),
        "code_correctness",
        grid(["model", *CORRECT_COLUMNS], acc_rows),
        "items (executable/all and missing code; right/all)",
        grid(["model", *(f"exec {c}" for c in EXEC_COLUMNS), *CORRECT_COLUMNS], count_rows),
    ]
    return "\n".join(parts)


def rate_of(score: ModelScore, column: str) -> float | None:
    rate = score.executable.get(column)
    return rate.percent if rate is not None else None


def counts(score: ModelScore) -> list[str]:
    out = []
    for column in EXEC_COLUMNS:
        rate = score.executable.get(column)
        out.append(f"{rate.executable}/{rate.total}, {rate.missing} missing" if rate else "-")
    for acc in correctness(score).values():
        out.append(f"{acc.right}/{acc.count}" + _unanswered(acc) if acc else "-")
    return out


def _unanswered(acc: Accuracy) -> str:
    return f", {acc.unanswered} without a reply" if acc.unanswered else ""


def as_dict(scores: list[ModelScore], profile: str) -> dict:
    """The JSON form: the table's numbers, the counts behind them and each item's detail."""
    return {"profile": profile, "models": [_model_dict(s) for s in scores]}


def _model_dict(score: ModelScore) -> dict:
    execd = {
        c: None
        if r is None
        else {"percent": r.percent, "executable": r.executable, "total": r.total, "missing": r.missing}
        for c in EXEC_COLUMNS
        for r in [score.executable.get(c)]
    }
    correct = {
        c: None
        if a is None
        else {
            "percent": a.percent,
            "right": a.right,
            "count": a.count,
            "graded": a.graded,
            "unanswered": a.unanswered,
        }
        for c, a in correctness(score).items()
    }
    return {
        "model": score.model,
        "code_executability": execd,
        "code_correctness": correct,
        "skipped_lines": score.skipped_lines,
        "items": score.items,
    }
