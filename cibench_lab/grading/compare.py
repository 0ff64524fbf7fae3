"""Humans beside models: per step, task and library, on one profile, with step difficulty.

Inputs are plain records (``Played``: one respondent's attempt at one task; the results database is
read by ``studies/comparison.py``).  The rules:

* **Which tasks.** Every task of the study (``tasks``: its list, its participants' plans and what they
  played, with each task's steps as far as they are known) has its rows, played or not: a step nobody
  counted there has no figures (``None``) and a run that did not play it ``None``.
* **Which attempts count.** A person's latest *finished* attempt at a task counts, all its steps (a
  step given up is a miss unless its kept grade passed).  A person whose only attempts at a task were
  quit (left unfinished) is counted under ``quit`` for that task — not as a miss, and none of those
  steps count.  A run counts its latest finished attempt per task.
* **Figures** (rates and scores x100, CI bounds, seconds) are kept to one decimal (``bounds.py``).
* **Not graded** (a step whose grade measured nothing: e.g. a figure no judge rated) is
  neither passed nor missed: out of every pass rate and of the difficulty fit, counted as ``not_graded``.
* **Pass rates** are x100: the people's is passed steps / graded steps over the people who count; its 95%
  CI is a percentile bootstrap over participants (a participant's steps stay together), 2,000 resamples,
  seed 0 for each interval (``leaderboard.bootstrap``).
* **Working time** is each step's time net of pauses (seconds); a task's is the sum of its steps; the
  report gives the median and the quartiles (numpy's linear interpolation), over the people who count.
* **Difficulty** is a Rasch fit (``rasch.fit``) with people and runs as respondents and steps as items;
  a step without a response (nobody played it) has no difficulty and no rank.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .bounds import DIGITS, figure
from .comparability import LABELS, SETTLE_NOTE, Mismatch, mismatches
from .leaderboard import B, bootstrap, interval
from .rasch import RIDGE, fit

HUMANS = "humans"
CI_NOTE = (
    f"95% CIs of the people's pass rates: percentile bootstrap over participants ({B:,} resamples, seed 0)"
)
COUNT_NOTE = (
    "counted: each person's latest finished attempt per task; a person who only quit a task is counted "
    "as quit, not as a miss; each run's latest finished attempt per task"
)
TIME_NOTE = "time: working seconds net of pauses; median [q1–q3] over the people counted (linear quartiles)"
NOT_GRADED_NOTE = (
    "not graded: a step whose grade measured nothing (e.g. a figure no judge "
    "rated) is neither passed nor missed: left out of the pass rates and the difficulty fit, counted apart"
)
RASCH_NOTE = (
    "difficulty: Rasch (one-parameter logistic) fit by joint maximum likelihood over people and runs "
    f"together, ridge {RIDGE} on abilities and difficulties (keeps all-pass / all-miss rows finite); "
    "rank 1 = hardest"
)


@dataclass(frozen=True)
class StepResult:
    kind: str
    passed: bool
    score: float | None
    outcome: str | None
    turns: int
    seconds: float | None = None  # working time net of pauses (people)
    graded: bool = True  # False: its grade measured nothing (e.g. a figure no judge rated)


@dataclass
class Played:
    """One respondent's attempt at one task, in the order attempts were created."""

    who: str  # a participant's pseudonym, or the run name
    group: str  # HUMANS, or the run name
    task_id: str
    status: str  # done | quit
    conditions: dict[str, Any]
    steps: list[StepResult] = field(default_factory=list)


@dataclass(frozen=True)
class RunInfo:
    name: str
    player: str
    mode: str


def counted(played: Iterable[Played]) -> tuple[dict[tuple[str, str], Played], dict[str, set[str]]]:
    """The attempts that count, by (who, task); and per task who only quit it."""
    done: dict[tuple[str, str], Played] = {}
    quit_by: dict[str, set[str]] = defaultdict(set)
    for p in played:
        if p.status == "done":
            done[p.who, p.task_id] = p  # later attempts replace earlier ones
        elif p.status == "quit":
            quit_by[p.task_id].add(p.who)
    for task, people in quit_by.items():
        people.difference_update(who for who, t in done if t == task)
    return done, quit_by


def check(humans: list[Played], played: dict[str, list[Played]]) -> dict[tuple[str, str], list[Mismatch]]:
    """(run, task) -> the conditions where the people counted at the task differ from the run's attempt."""
    people, _ = counted(humans)
    found: dict[tuple[str, str], list[Mismatch]] = {}
    for run, attempts in played.items():
        for (_, task), attempt in counted(attempts)[0].items():
            at_task = [p.conditions for (_, t), p in people.items() if t == task]
            if at_task and (differ := mismatches(at_task, attempt.conditions)):
                found[run, task] = differ
    return found


def refusal(study: str, mismatched: dict[tuple[str, str], list[Mismatch]]) -> list[str]:
    """One line per run and differing field, naming both values and the tasks."""
    grouped: dict[tuple[str, str], list[str]] = defaultdict(list)
    for (run, task), found in sorted(mismatched.items()):
        for m in found:
            grouped[run, m.reason()].append(task)
    return [
        f"humans:{study} and run {run} are not comparable: {reason} "
        f"({len(tasks)} task{'s' if len(tasks) > 1 else ''}: {', '.join(tasks)})"
        for (run, reason), tasks in grouped.items()
    ]


def rate_with_ci(passed: list[int], steps: list[int]) -> dict[str, Any]:
    """Pass rate x100 of these participants (one entry each), with its bootstrap CI."""
    if not steps or sum(steps) == 0:
        return {"n": len(steps), "passed": 0, "steps": 0, "rate": None, "ci": [None, None]}
    sums = np.array(passed, dtype=float)[:, None]
    counts = np.array(steps, dtype=float)[:, None]
    (ci,) = interval(bootstrap(sums, counts), DIGITS)
    rate = figure(100 * sum(passed) / sum(steps))
    return {"n": len(steps), "passed": sum(passed), "steps": sum(steps), "rate": rate, "ci": ci}


def spread(values: Iterable[float | None]) -> dict[str, Any]:
    """Median and quartiles of the values present."""
    xs = [v for v in values if v is not None]
    if not xs:
        return {"n": 0, "median": None, "q1": None, "q3": None}
    q1, median, q3 = (figure(np.percentile(xs, q)) for q in (25, 50, 75))
    return {"n": len(xs), "median": median, "q1": q1, "q3": q3}


def _mean_score(results: list[StepResult]) -> float | None:
    scores = [r.score for r in results if r.score is not None]
    return figure(100 * sum(scores) / len(scores)) if scores else None


def lib_of(task_id: str) -> str:
    """``split/lib`` of a task id: what the library rows group by."""
    return "/".join(task_id.split("/")[:2])


def lib_split(lib: str) -> str:
    """The split of a ``split/lib``."""
    return lib.split("/", 1)[0]


def lib_labels(tasks: Iterable[str]) -> dict[str, str]:
    """``split/lib`` -> the library's label in the report: its name (``pandas``), or ``split/lib``
    where two splits hold a library of that name."""
    keys = {lib_of(t) for t in tasks}
    names = Counter(key.rsplit("/", 1)[-1] for key in keys)
    return {key: key if names[key.rsplit("/", 1)[-1]] > 1 else key.rsplit("/", 1)[-1] for key in keys}


class Comparison:
    """The report's rows from the study's tasks, the counted attempts (people's and runs') and the
    mismatches found; ``tasks``: the study's task ids with their steps' kinds as far as known."""

    def __init__(
        self,
        humans: list[Played],
        runs: dict[str, list[Played]],
        mismatched: dict[tuple[str, str], list[Mismatch]],
        tasks: dict[str, list[str]] | None = None,
    ):
        self.people, self.quit = counted(humans)
        self.runs = {name: counted(attempts)[0] for name, attempts in runs.items()}
        self.known = dict(tasks or {})
        self.tasks = sorted(set(self.known) | {t for _, t in self.people})
        self.labels = lib_labels(self.tasks)
        self.mismatched = mismatched  # (run, task) -> mismatches

    def marks(self, tasks: Iterable[str]) -> list[str]:
        """``run: field`` for every mismatch of these tasks, once each."""
        seen: list[str] = []
        for task in tasks:
            for run in self.runs:
                for m in self.mismatched.get((run, task), []):
                    mark = f"{run}: {LABELS[m.field]}"
                    if mark not in seen:
                        seen.append(mark)
        return seen

    def people_at(self, task: str) -> list[Played]:
        return [p for (_, t), p in sorted(self.people.items()) if t == task]

    def shape(self, task: str) -> list[str]:
        """The kinds of ``task``'s steps: as its longest counted attempt by a person has them, else as
        the study knows them, else as a run's attempt has them (none: nobody reached a step)."""
        people = [[r.kind for r in p.steps] for p in self.people_at(task)]
        runs = [[r.kind for r in got.steps] for run in self.runs if (got := self.run_at(run, task))]
        return max([*people, self.known.get(task, []), *runs], key=len)

    def run_at(self, run: str, task: str) -> Played | None:
        return self.runs[run].get((run, task))

    # ---- rows -----------------------------------------------------------------------------
    def step_rows(self) -> list[dict[str, Any]]:
        rows = []
        for task in self.tasks:
            people = self.people_at(task)
            for index, kind in enumerate(self.shape(task)):
                results = [p.steps[index] for p in people if index < len(p.steps)]
                graded = [r for r in results if r.graded]
                humans = rate_with_ci([int(r.passed) for r in graded], [1] * len(graded))
                humans["n"] = len(results)
                humans |= {"score": _mean_score(results), "quit": len(self.quit.get(task, ()))}
                humans["not_graded"] = len(results) - len(graded)
                humans["time"] = spread(r.seconds for r in results)
                models = {}
                for run in self.runs:
                    got = self.run_at(run, task)
                    r = got.steps[index] if got and index < len(got.steps) else None
                    models[run] = None if r is None else {
                        "passed": r.passed and r.graded, "graded": r.graded,
                        "score": None if r.score is None else figure(100 * r.score),
                        "outcome": r.outcome, "turns": r.turns,
                    }  # fmt: skip
                row = {"task": task, "lib": self.labels[lib_of(task)], "step": index, "kind": kind}
                rows.append({**row, "humans": humans, "runs": models, "mismatch": self.marks([task])})
        return rows

    def group_rows(self, key: str) -> list[dict[str, Any]]:
        """Per task (``key="task"``) or per library (``"lib"``): the same figures over their steps."""
        groups: dict[str, list[str]] = defaultdict(list)
        for task in self.tasks:
            groups[task if key == "task" else lib_of(task)].append(task)
        rows = []
        for name, tasks in sorted(groups.items()):
            named = {"task": name} if key == "task" else {"lib": self.labels[name], "split": lib_split(name)}
            rows.append({**named, "steps": sum(len(self.shape(t)) for t in tasks),
                         "humans": self._humans_over(tasks), "runs": self._runs_over(tasks),
                         "mismatch": self.marks(tasks)})  # fmt: skip
        return rows

    def _humans_over(self, tasks: list[str]) -> dict[str, Any]:
        by_person: dict[str, list[StepResult]] = defaultdict(list)
        seconds: dict[str, float | None] = {}
        for task in tasks:
            for p in self.people_at(task):
                by_person[p.who].extend(p.steps)
                times = [r.seconds for r in p.steps]
                if None in times:
                    seconds[p.who] = None
                elif seconds.get(p.who, 0.0) is not None:
                    seconds[p.who] = (seconds.get(p.who) or 0.0) + sum(t for t in times if t is not None)
        people = sorted(by_person)
        graded = {w: [r for r in by_person[w] if r.graded] for w in people}
        rated = [w for w in people if graded[w]]  # a person with no graded step has no say in the rate
        out = rate_with_ci([sum(r.passed for r in graded[w]) for w in rated], [len(graded[w]) for w in rated])
        out["n"] = len(people)
        out["score"] = _mean_score([r for w in people for r in by_person[w]])
        out["quit"] = sum(len(self.quit.get(t, ())) for t in tasks)
        out["not_graded"] = sum(len(by_person[w]) - len(graded[w]) for w in people)
        out["time"] = spread(seconds[w] for w in people)
        return out

    def _runs_over(self, tasks: list[str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for run in self.runs:
            results = [r for t in tasks if (got := self.run_at(run, t)) for r in got.steps]
            graded = [r for r in results if r.graded]
            played = sum(1 for t in tasks if self.run_at(run, t))
            passed = sum(r.passed for r in graded)
            rate = figure(100 * passed / len(graded)) if graded else None
            out[run] = {"tasks": played, "steps": len(graded), "passed": passed, "rate": rate,
                        "score": _mean_score(results), "not_graded": len(results) - len(graded)}  # fmt: skip
        return out

    # ---- difficulty -------------------------------------------------------------------------
    def difficulty(self, steps: list[dict[str, Any]]) -> dict[str, Any]:
        """The Rasch fit over the step rows; each row gets its ``difficulty`` and ``rank``."""
        who: list[tuple[str, str]] = [(w, HUMANS) for w in sorted({p.who for p in self.people.values()})]
        who += [(run, run) for run in self.runs]
        matrix = [[_response(self._attempt(w, g, row["task"]), row["step"]) for row in steps] for w, g in who]
        keep = [i for i, answers in enumerate(matrix) if any(v is not None for v in answers)]
        answered = [j for j in range(len(steps)) if any(matrix[i][j] is not None for i in keep)]
        result = fit([[matrix[i][j] for j in answered] for i in keep])
        for row in steps:  # a step nobody played has no difficulty
            row["difficulty"], row["rank"] = None, None
        for j, b, rank in zip(answered, result.difficulty, result.ranks(), strict=True):
            steps[j]["difficulty"], steps[j]["rank"] = round(float(b), 3), rank
        items = sorted((steps[j] for j in answered), key=lambda r: (r["rank"], r["task"], r["step"]))
        abilities = zip([who[i] for i in keep], result.ability, strict=True)
        return {
            "method": "rasch-jml",
            "ridge": result.ridge,
            "converged": result.converged,
            "iterations": result.iterations,
            "items": [{k: r[k] for k in ("task", "step", "kind", "difficulty", "rank")} for r in items],
            "respondents": [{"who": w, "group": g, "ability": round(float(a), 3)} for (w, g), a in abilities],
        }

    def _attempt(self, who: str, group: str, task: str) -> Played | None:
        return self.people.get((who, task)) if group == HUMANS else self.run_at(group, task)


def _response(played: Played | None, step: int) -> float | None:
    if played is None or step >= len(played.steps) or not played.steps[step].graded:
        return None
    return float(played.steps[step].passed)


def build(
    study: str,
    profile: str,
    runs: list[RunInfo],
    humans: list[Played],
    played: dict[str, list[Played]],
    mismatched: dict[tuple[str, str], list[Mismatch]],
    allowed: bool,
    tasks: dict[str, list[str]] | None = None,
) -> dict[str, Any]:
    """The comparison report (JSON-ready); ``mismatched``: (run, task) -> what differs; ``tasks``: the
    study's tasks with their steps' kinds as far as known (each gets its rows, played or not)."""
    comparison = Comparison(humans, played, mismatched, tasks)
    steps = comparison.step_rows()
    difficulty = comparison.difficulty(steps)
    listed = [
        {"run": run, "task": task, "field": m.field, "humans": list(m.humans), "model": m.model,
         "reason": m.reason()}
        for (run, task), found in sorted(mismatched.items()) for m in found
    ]  # fmt: skip
    return {
        "study": study,
        "profile": profile,
        "runs": [{"run": r.name, "player": r.player, "mode": r.mode} for r in runs],
        "people": len({p.who for p in comparison.people.values()}),
        "notes": _notes(comparison, profile, len(listed)),
        "comparability": {"mismatches": listed, "allowed": allowed},
        "steps": steps,
        "tasks": comparison.group_rows("task"),
        "libraries": comparison.group_rows("lib"),
        "difficulty": difficulty,
    }


def _notes(comparison: Comparison, profile: str, mismatches: int) -> list[str]:
    """The counting rule, the CIs, who settles; what nobody finished, what was left out, mismatches."""
    notes = [f"profile: {profile}", COUNT_NOTE, CI_NOTE, TIME_NOTE, RASCH_NOTE, SETTLE_NOTE]
    finished = {t for _, t in comparison.people}
    unfinished = [t for t in comparison.tasks if t not in finished]
    if unfinished:
        notes.append(
            f"{len(unfinished)} task(s) of the study no person finished (no figures for the people): "
            + ", ".join(unfinished)
        )
    study = set(comparison.tasks)
    for run, attempts in comparison.runs.items():
        played = {t for _, t in attempts}
        if not study & played:
            notes.append(f"run {run}: played none of the study's tasks")
        if outside := sorted(played - study):
            notes.append(f"run {run}: {len(outside)} task(s) outside the study, left out")
    if any(not r.graded for p in [*comparison.people.values(), *_all(comparison.runs)] for r in p.steps):
        notes.append(NOT_GRADED_NOTE)
    if mismatches:
        notes.append(f"NOT COMPARABLE on {mismatches} field(s) (--allow-mismatch): marked in every row")
    return notes


def _all(runs: dict[str, dict[tuple[str, str], Played]]) -> list[Played]:
    return [p for attempts in runs.values() for p in attempts.values()]
