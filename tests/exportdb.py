"""A results database for the export tests, recorded through the engine's Attempts (no kernel: turns
are recorded TurnOutputs, graded by the real graders) on the rules task (text, num, vis, exec steps).

- alice, study ``pilot`` (model-parity settings): finished; step 1 given up; step times set by hand;
- bob, study ``pilot``: quit on step 1, with a note, a pause and resume, an exploration run;
- carol, outside any study: an open attempt;
- a headless run ``r1`` of the reference player (participant ``player:reference``).

The study rows, enrolments and the events of pausing, notes and quitting are written as the study
and participant-record code records them (docs/exports.md lists the event kinds).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from rules_task import EN, attempts_for, figure, png, stdout
from sqlalchemy import select, update

from cibench_lab.grading import TurnOutput
from cibench_lab.play.attempt import Attempts, NewAttempt
from cibench_lab.play.settings import PlaySettings
from cibench_lab.play.turns import TurnRecord
from cibench_lab.runs.local import ensure_run
from cibench_lab.store.pseudonym import new_salt
from cibench_lab.store.tables import Attempt, Enrolment, Event, Participant, StepRow, Study, Turn, utcnow

STUDY = "pilot"
T0 = dt.datetime(2025, 3, 1, 9, 0, 0)
PARITY = PlaySettings(show_grades=False, turn_cap=3, reveal="never", grade_rule="settling")
QUESTIONNAIRE = [
    {"name": "expertise", "label": "Your expertise", "type": "choice", "choices": ["novice", "expert"]},
    {"name": "python_years", "label": "Years of Python", "type": "number"},
]
PLOT_PNG = png((200, 30, 30))
RUN_ENV = {
    "python": "3.11.2",
    "kernel": {"constraints_sha256": "c0ffee" * 10 + "abcd"},
    "sandbox": {"enabled": True, "network": False, "tool": "bubblewrap"},
    "server": {"python": "3.11.2", "cibench-lab": "0.1.0"},
}
NOTE = "I was unsure which column to use."
EXPLORATION = "df.describe()  # looking around"


@dataclass
class Built:
    root: Path
    db: str
    attempts: Attempts
    ids: dict[str, str]  # alice, bob, carol, run -> attempt id
    salt: str

    def participant_id(self, name: str) -> int:
        with self.attempts.store.session() as s:
            found = s.scalar(select(Participant.id).where(Participant.name == name))
            assert found is not None
            return found


def at(seconds: float) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


def error_turn(code: str = "print(totl)") -> TurnOutput:
    out = {
        "output_type": "error",
        "ename": "NameError",
        "evalue": "name 'totl' is not defined",
        "traceback": [],
    }
    return TurnOutput(code, [out], True, "error")


def build(root: Path, url: str | None = None) -> Built:
    """The database under ``root`` (or at ``url``), with the tasks it was played on."""
    attempts = attempts_for(root, url=url)
    salt = new_salt()
    with attempts.store.session() as s:
        s.add(Study(id=STUDY, title="Pilot", config={"questionnaire": QUESTIONNAIRE}, salt=salt))
    ids = {"alice": alice(attempts), "bob": bob(attempts), "carol": carol(attempts), "run": run(attempts)}
    built = Built(root, attempts.store.url, attempts, ids, salt)
    enrol(built, "alice", {"expertise": "expert", "python_years": 6}, at(-60))
    enrol(built, "bob", {"expertise": "novice", "python_years": 1}, at(-30))
    return built


def _start(attempts: Attempts, who: str, settings: PlaySettings, study: str | None) -> str:
    task = attempts.library.get(EN)
    attempt_id = attempts.create(NewAttempt(task, "e2e", "human", who, settings, {}))
    if study is not None:
        with attempts.store.session() as s:
            s.execute(
                update(Attempt)
                .where(Attempt.id == attempt_id)
                .values(study_id=study, protocol="model-parity")
            )
    return attempt_id


def alice(attempts: Attempts) -> str:
    """Finished: step 0 an error then the words; step 1 a wrong number, given up; step 2 a plot
    (with a figure structure for the grader); step 3 runs."""
    a = _start(attempts, "alice", PARITY, STUDY)
    attempts.record_turn(a, 0, error_turn())
    attempts.record_turn(a, 0, TurnOutput("print('alpha beta gamma')", [stdout("alpha beta gamma")]))
    attempts.settle(a, 0, "next")
    attempts.record_turn(a, 1, TurnOutput("print(41)", [stdout("41")]))
    attempts.settle(a, 1, "gave_up")
    plot = figure(PLOT_PNG)
    plot["data"]["application/vnd.cibench-lab.figure+json"] = {"axes": []}
    attempts.record_turn(a, 2, TurnOutput("plt.plot([1, 2])", [plot]))
    attempts.settle(a, 2, "next")
    result = {
        "output_type": "execute_result",
        "data": {"text/plain": "1"},
        "metadata": {},
        "execution_count": 7,
    }
    attempts.record_turn(a, 3, TurnOutput("x = 1\nx", [result]))
    attempts.settle(a, 3, "next")
    # times: step 0 opened at 0, runs 5-6 and 30-31, settled 40 (40 s); step 1 opened 40, a run
    # 50-51, given up at 1000 (10 + 1 + at most pause_after=300: 311 s); steps 2, 3: 10 s each
    retime(attempts, a, [(0, [(5, 6), (30, 31)], 40), (40, [(50, 51)], 1000), (1000, [(1002, 1003)], 1010)])
    retime(attempts, a, [(1010, [(1012, 1013)], 1020)], first=3)
    with attempts.store.session() as s:
        s.execute(update(Attempt).where(Attempt.id == a).values(created_at=at(0), finished_at=at(1020)))
    return a


def retime(attempts: Attempts, attempt_id: str, steps: list, first: int = 0) -> None:
    """Set steps' opened/settled and their turns' times (seconds after T0)."""
    with attempts.store.session() as s:
        for index, (opened, runs, settled) in enumerate(steps, start=first):
            q = select(StepRow).where(StepRow.attempt_id == attempt_id, StepRow.index == index)
            row = s.scalar(q)
            assert row is not None
            row.opened_at, row.settled_at = at(opened), at(settled)
            turns = s.scalars(select(Turn).where(Turn.attempt_id == attempt_id, Turn.step == index))
            for turn, (start, end) in zip(sorted(turns, key=lambda t: t.number), runs, strict=True):
                turn.started_at, turn.finished_at = at(start), at(end)


def bob(attempts: Attempts) -> str:
    """Quit on step 1 after one run, a pause and an exploration run; a note on step 0."""
    b = _start(attempts, "bob", PARITY, STUDY)
    attempts.record_turn(b, 0, TurnOutput("print('alpha beta')", [stdout("alpha beta")]))
    attempts.settle(b, 0, "next")
    attempts.record_turn(b, 1, TurnRecord(TurnOutput("print(6 * 7)", [stdout("42")]), msg_id="m-turn"))
    # as the capture records runs: whether one was graded is joined from the turns when read
    times = {"started_at": "2025-03-01T09:10:00Z", "finished_at": "2025-03-01T09:10:01Z", "error": False}
    run = {"cell_id": "c-9", "msg_id": "m-explore", "code": EXPLORATION, **times}
    graded = {"cell_id": "c-1", "msg_id": "m-turn", "code": "print(6 * 7)", **times}
    trace = [
        ("note", {"step": 0, "text": NOTE}),
        ("pause", {"step": 1, "cause": "button"}),
        ("resume", {"step": 1, "cause": "edit"}),
        ("cell_run", {"step": 1, **graded}),
        ("cell_run", {"step": 1, **run}),
        ("cell_edits", {"step": 1, "cell_id": "c-9", "count": 4}),
        ("quit", {"step": 1}),
    ]
    with attempts.store.session() as s:
        for kind, detail in trace:
            s.add(Event(attempt_id=b, kind=kind, detail=detail))
        s.execute(update(StepRow).where(StepRow.attempt_id == b, StepRow.index == 0).values(note=NOTE))
        s.execute(update(Attempt).where(Attempt.id == b).values(status="quit", finished_at=utcnow()))
    return b


def carol(attempts: Attempts) -> str:
    """Outside any study, still open after one run."""
    c = _start(attempts, "carol", PlaySettings(), None)
    attempts.record_turn(c, 0, TurnOutput("print('alpha')", [stdout("alpha")]))
    return c


def run(attempts: Attempts) -> str:
    """A headless run's attempt: the reference player's turns, each step settled by the rule."""
    run_id = ensure_run(attempts, "r1", "reference", "e2e")
    task = attempts.library.get(EN)
    new = NewAttempt(task, "e2e", "reference", "player:reference", PlaySettings(), RUN_ENV, run_id=run_id)
    r = attempts.create(new)
    for step in task.steps:
        attempts.record_turn(r, step.index, TurnOutput(step.code, list(step.outputs)))
    return r


def enrol(built: Built, name: str, answers: dict, consent: dt.datetime) -> None:
    with built.attempts.store.session() as s:
        row = Enrolment(study_id=STUDY, participant_id=built.participant_id(name), consent_at=consent)
        row.answers, row.seed, row.plan = answers, 7, [{"task_id": EN, "mode": "e2e"}]
        s.add(row)
