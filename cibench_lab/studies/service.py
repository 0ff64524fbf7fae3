"""The server's studies: consent, the next task of a participant's plan, quit, hand over.

Every call acts for the seat's participant (:mod:`.seat`) and reads only their enrolment;
researchers (the role, :mod:`.roles`) may also read every participant's. A study's
attempts are started one at a time, in plan order, with the protocol's settings locked.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..auth.roles import PARTICIPANT, RESEARCHER, Identity, Roles, identity
from ..benchmarks import benchmark_of
from ..errors import BadInput, Conflict, Forbidden, NotFound
from ..kernels.environment import attempt_environment
from ..lab.play import LabPlay
from ..play.attempt import NewAttempt, StudyAttempt
from ..record.quit import quit_attempt
from ..store.tables import Attempt
from ..tasks.vocabulary import HUMAN
from ..views.attempt import attempt_view
from ..views.classroom import attempt_record
from .comparison import compare, recorded_runs
from .definition import StudyDef
from .enrolment import enrol, enrolment_of, held_by_another, progress, the_enrolment
from .freeplay import check_free_play
from .seat import Seat
from .view import participants_view, study_view, summary


class Studies:
    def __init__(self, defs: dict[str, StudyDef], lab: LabPlay, roles: Roles, hub: bool, key_hash: str = ""):
        """``hub``: the server runs under JupyterHub (its user is the participant: no codes);
        ``key_hash``: the researcher key's SHA-256 (:mod:`.seat`)."""
        self.defs = defs
        self.lab = lab
        self.roles = roles
        self.hub = hub
        shared = any(self.codes(study) for study in defs.values())
        self.seat = Seat(lab.config, shared, key_hash)
        self.locks: dict[tuple[str, str], asyncio.Lock] = {}

    @property
    def attempts(self):
        return self.lab.attempts

    def study(self, study_id: str) -> StudyDef:
        found = self.defs.get(study_id)
        if found is None:
            raise NotFound(f"unknown study {study_id!r}")
        return found

    def codes(self, study: StudyDef) -> bool:
        """Participants of ``study`` sign in with a code on this server."""
        return study.participant_code and not self.hub

    def _who(self, study: StudyDef) -> str | None:
        """The participant of ``study`` now: None while its codes ask for one."""
        if self.codes(study) and self.seat.code is None:
            return None
        return self.seat.name

    def _playing(self, study: StudyDef) -> str:
        who = self._who(study)
        if who is None:
            raise Conflict(f"study {study.id!r}: enter your participant code at its consent first")
        return who

    async def view(self, study_id: str, who: Identity) -> dict[str, Any]:
        """The study as ``who`` (the caller, ``handlers/base.py: identity``) sees it."""
        study = self.study(study_id)
        researcher = self.is_researcher(who)
        a = self.attempts
        return await self.lab.call(
            study_view, a.store, a.library, study, self._who(study), self.codes(study), researcher
        )

    async def summaries(self, who: Identity) -> list[dict[str, Any]]:
        return [summary(await self.view(study_id, who)) for study_id in self.defs]

    async def consent(
        self, study_id: str, who: Identity, accept: bool, code: str | None, answers: Any
    ) -> dict[str, Any]:
        """Accept the consent (with the questionnaire's answers): enrol, or sign a returning
        participant's code in again (their first consent and answers stay)."""
        study = self.study(study_id)
        problems: list[str] = []  # every field's, in the form's order: code, answers, accept
        consenting = self._consenting(study, code, problems)
        if (
            consenting is not None
            and self.codes(study)
            and consenting != self.seat.code
            and not await self._free(consenting)
        ):
            problems.append(
                "code: that is the name of someone this server already knows; choose another code"
            )
            consenting = None
        enrolled = consenting is not None and await self.lab.call(self._consented, study.id, consenting)
        checked: dict[str, Any] = {}
        if not enrolled:
            try:
                checked = study.check_answers(answers if answers is not None else {})
            except BadInput as err:
                problems.append(str(err))
        if accept is not True:
            problems.append("accept: the consent must be accepted to take part")
        if problems or consenting is None:
            raise BadInput("; ".join(problems))
        if not enrolled:
            a = self.attempts
            await self.lab.call(enrol, a.store, a.library, study, consenting, checked)
        if self.codes(study):
            self.seat.sign_in(consenting)
            who = identity(consenting)  # the code signed in: a participant, no role of the seat's
        return await self.view(study_id, who)

    def _consenting(self, study: StudyDef, code: str | None, problems: list[str]) -> str | None:
        """Who consents: the participant code entered (on a shared machine), else who plays now;
        None, with the code's problem added to ``problems``, when the code is not one."""
        if not (self.codes(study) and (code or self.seat.code is None)):
            return self.seat.name
        try:
            return self.seat.check(code)
        except BadInput as err:
            problems.append(str(err))
            return None

    async def _free(self, code: str) -> bool:
        """``code`` may be a participant code: no role beyond a participant's, and no records in the
        database but those made under a code of this server's studies (on a database shared with a
        hub's users, a code equal to a user's name would read that user's attempts)."""
        if (await self.roles.of(code)).roles != (PARTICIPANT,):
            return False
        coded = [d.id for d in self.defs.values() if self.codes(d)]
        return not await self.lab.call(held_by_another, self.attempts.store, code, coded)

    async def check_free_play(self, task_id: str, participant: str) -> None:
        """Conflict while ``task_id`` is pending in a study ``participant`` enrolled in: a free
        attempt first would spoil the study's first attempt (:mod:`.freeplay`)."""
        studies = list(self.defs.values())
        await self.lab.call(check_free_play, self.attempts.store, studies, participant, task_id)

    def _consented(self, study_id: str, participant: str) -> bool:
        with self.attempts.store.session() as s:
            found = enrolment_of(s, study_id, participant)
            return found is not None and found.consent_at is not None

    async def start_next(self, study_id: str, caller: Identity) -> dict[str, Any]:
        """Start the plan's next task; the study view and the new attempt's view."""
        study = self.study(study_id)
        who = self._playing(study)
        async with self.locks.setdefault((study.id, who), asyncio.Lock()):
            item = await self.lab.call(self._next_item, study.id, who)
            try:
                task = self.attempts.library.get(item["task_id"])
            except KeyError:
                raise NotFound(f"task {item['task_id']!r} of the plan is no longer available") from None
            play = StudyAttempt(study.id, study.protocol, study.settings)
            environment = attempt_environment(task, benchmark_of(task).profile_versions())
            new = NewAttempt(task, item["mode"], HUMAN, who, play.settings, environment, study=play)
            attempt_id = await self.lab.create(new)
        attempt = await self.lab.call(attempt_view, self.attempts, attempt_id, who)
        return {"study": await self.view(study_id, caller), "attempt": attempt}

    def _next_item(self, study_id: str, participant: str) -> dict[str, Any]:
        with self.attempts.store.session() as s:
            p = progress(s, self.attempts.library, study_id, the_enrolment(s, study_id, participant))
        if p.current is not None:
            raise Conflict(f"task {p.current + 1} of the study is in progress: finish or quit it first")
        if p.next is None:
            raise Conflict("every task of the study is done")
        return p.items[p.next]

    async def quit(self, study_id: str, caller: Identity) -> dict[str, Any]:
        """Quit the attempt in progress (left unfinished); its kernel is stopped."""
        study = self.study(study_id)
        who = self._playing(study)
        async with self.locks.setdefault((study.id, who), asyncio.Lock()):
            attempt_id = await self.lab.call(self._current, study.id, who)
            kernel_id = await self.lab.call(quit_attempt, self.attempts, attempt_id, who)
        self.lab.culler.after(attempt_id, kernel_id, {"do": "done"})
        return await self.view(study_id, caller)

    def _current(self, study_id: str, participant: str) -> str:
        with self.attempts.store.session() as s:
            p = progress(s, self.attempts.library, study_id, the_enrolment(s, study_id, participant))
        if p.current is None:
            raise Conflict("no task of the study is in progress")
        attempt_id = p.items[p.current]["attempt_id"]
        assert attempt_id is not None, "an item in progress has its attempt"
        return attempt_id

    async def hand_over(self, study_id: str, caller: Identity) -> dict[str, Any]:
        """The participant code signs out: the next person enters theirs at the consent; the seat
        holds the participant role only (a shared seat, :mod:`.seat`)."""
        study = self.study(study_id)
        if not self.codes(study):
            raise BadInput(f"study {study.id!r} does not sign participants in with codes on this server")
        self.seat.hand_over()
        return await self.view(study_id, identity(self.seat.name))

    async def participants(self, study_id: str, who: Identity) -> list[dict[str, Any]]:
        """Every participant's record of the study: researchers only."""
        study = self.for_researchers(study_id, who, "read every participant's record of")
        a = self.attempts
        return await self.lab.call(participants_view, a.store, a.library, study)

    async def compare(
        self, study_id: str, who: Identity, runs: list[str], profile: str, allow: bool
    ) -> dict[str, Any]:
        """The study's people beside the runs (``comparison.py``, as `report --compare`): researchers only."""
        study = self.for_researchers(study_id, who, "compare the people of")
        a = self.attempts
        return await self.lab.call(compare, a.store, study.id, runs, profile, allow, lambda: a.library)

    async def attempt(self, study_id: str, attempt_id: str, who: Identity) -> dict[str, Any]:
        """A participant's attempt of the study, as the class view shows one (no reference
        material): researchers only (``classview.attempt_record``)."""
        study = self.for_researchers(study_id, who, "read the attempts of")

        def of_study(row: Attempt, _name: str) -> bool:
            return row.study_id == study.id

        missing = f"unknown attempt {attempt_id!r} of study {study.id!r}"
        return await self.lab.call(attempt_record, self.attempts, attempt_id, of_study, missing)

    async def runs(self, study_id: str, who: Identity) -> list[dict[str, Any]]:
        """The recorded runs a comparison can name: researchers only."""
        self.for_researchers(study_id, who, "list the runs to compare with")
        return await self.lab.call(recorded_runs, self.attempts.store)

    # ---- who may read everyone's ------------------------------------------------------------
    def is_researcher(self, who: Identity) -> bool:
        """The one researcher check: ``who`` (the caller's identity, which the seat already
        narrowed: :mod:`.seat`) holds the role (:mod:`.roles`) and is the server's own user —
        never a participant code signed in in its place. The routes require the role first."""
        return who.has(RESEARCHER) and self.seat.code is None and who.name == self.seat.name

    def for_researchers(self, study_id: str, who: Identity, what: str) -> StudyDef:
        """The study, or Forbidden naming what only its researchers may do."""
        study = self.study(study_id)
        if not self.is_researcher(who):
            raise Forbidden(f"only the study's researchers {what} {study.id!r}")
        return study
