"""A study: what an organiser configures for people to play (docs/studies.md).

A study has an id and a title, a consent text accepted before the first task, an optional
questionnaire, a plan (a fixed task list, or ``draw``: N tasks drawn per participant, balanced
across libraries: :mod:`.plan`), a protocol preset (:data:`PRESETS`) and whether the proctored
server preset is required. Definitions come from files (``CIBenchLabApp.study_files``, JSON or
TOML, one study each) and from ``CIBenchLabApp.studies`` (``{id: definition}``); every error names
its source and field: ``studies/pilot.toml: draw.n: must be ≥ 1``.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from ..errors import BadInput
from ..lab.cull import check_cull
from ..models.config import ConfigError, read_document
from ..play.settings import PlaySettings
from ..tasks.library import TaskLibrary
from ..tasks.vocabulary import Mode

Protocol = Literal["model-parity", "practice"]
STUDY_ID = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$"
NAME = r"^[A-Za-z_][A-Za-z0-9_]{0,63}$"
TEXT_MAX = 2000  # characters of a text answer

#: The play settings each protocol locks for its attempts (the study's idle threshold sets
#: ``pause_after``). model-parity plays as a model does: end-to-end, no grade shown before the
#: attempt ends, no reference shown, each step graded as it settles, at most 3 runs a step.
PRESETS: dict[str, PlaySettings] = {
    "model-parity": PlaySettings(
        show_grades=False, turn_cap=3, reveal="never", max_turn=3, grade_rule="settling"
    ),
    "practice": PlaySettings(show_grades=True, turn_cap=0, reveal="after-step", grade_rule="best"),
}

#: Said to every model-parity participant, at the end of the consent text (added when the
#: organiser's text does not hold it), and in reports that set people beside models.
SETTLE_NOTE = (
    "In this study a step ends when you choose Next step or Give up, or at your third run of it; "
    "a model's step ends at its first run without an error, so you decide when you are done where a "
    "model does not."
)


class StudyError(ValueError):
    """A study definition that cannot be used, said with its source and field."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Question(_Strict):
    """One questionnaire field."""

    name: Annotated[str, Field(pattern=NAME)]
    label: Annotated[str, Field(min_length=1, max_length=300)]
    type: Literal["choice", "number", "text"]
    choices: list[Annotated[str, Field(min_length=1)]] = []
    required: bool = False
    min: float | None = None  # number: the smallest answer
    max: float | None = None  # number: the largest answer

    @model_validator(mode="after")
    def _choices(self) -> Question:
        if self.type == "choice" and not self.choices:
            raise ValueError("choices: a choice question needs at least one choice")
        if self.type != "choice" and self.choices:
            raise ValueError(f"choices: only a choice question has choices (this one is {self.type})")
        if self.type != "number" and (self.min is not None or self.max is not None):
            raise ValueError("min/max: only a number question has bounds")
        return self


class TaskEntry(_Strict):
    task: Annotated[str, Field(min_length=1)]
    mode: Mode = "e2e"


class Draw(_Strict):
    """N tasks drawn per participant, balanced across libraries, from the library's tasks of
    ``split`` (any when empty) and ``libs`` (any when empty)."""

    n: Annotated[int, Field(ge=1)]
    mode: Mode = "e2e"
    split: str = ""
    libs: list[str] = []


class StudyDef(_Strict):
    """A study as configured (the ``study`` row keeps this, as first enrolled)."""

    id: Annotated[str, Field(pattern=STUDY_ID)]
    title: Annotated[str, Field(min_length=1, max_length=300)]
    consent: Annotated[str, Field(min_length=1)]
    protocol: Protocol
    questionnaire: list[Question] = []
    tasks: list[TaskEntry] | None = None
    draw: Draw | None = None
    proctored: bool = False
    idle_threshold: Annotated[int, Field(ge=1)] = 300
    participant_code: bool = False
    _source: str = PrivateAttr(default="")

    @model_validator(mode="after")
    def _plan(self) -> StudyDef:
        if (self.tasks is None) == (self.draw is None):
            raise ValueError("tasks/draw: give exactly one: a task list or a draw")
        if self.tasks is not None and not self.tasks:
            raise ValueError("tasks: the list is empty")
        names = [q.name for q in self.questionnaire]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"questionnaire: the name {dupes[0]!r} is used twice")
        if self.protocol == "model-parity":
            modes = [(f"tasks[{i}].mode", e.mode) for i, e in enumerate(self.tasks or [])]
            modes += [("draw.mode", self.draw.mode)] if self.draw else []
            for where, mode in modes:
                if mode != "e2e":
                    raise ValueError(f"{where}: model-parity plays end-to-end (e2e) only")
        return self

    @property
    def source(self) -> str:
        """Where the study is defined: its file, or ``CIBenchLabApp.studies[ID]``."""
        return self._source or f"study {self.id!r}"

    @property
    def settings(self) -> PlaySettings:
        """The play settings every attempt of the study is locked to."""
        return replace(PRESETS[self.protocol], pause_after=self.idle_threshold)

    def consent_text(self) -> str:
        """What a participant accepts: the organiser's text, and for model-parity the settle note."""
        if self.protocol != "model-parity" or _squash(SETTLE_NOTE) in _squash(self.consent):
            return self.consent
        return f"{self.consent.rstrip()}\n\n{SETTLE_NOTE}"

    def record(self) -> dict[str, Any]:
        """The definition as the ``study`` row keeps it, with the consent text as shown."""
        return {**self.model_dump(mode="json"), "consent_shown": self.consent_text()}

    def check_answers(self, answers: Any) -> dict[str, Any]:
        """The questionnaire's answers, checked: ``answers.NAME: ...`` for each field that fails."""
        if not isinstance(answers, dict):
            raise BadInput("answers: must be an object {name: answer}")
        known = {q.name: q for q in self.questionnaire}
        problems = [f"answers.{k}: not a question of this study" for k in answers if k not in known]
        out: dict[str, Any] = {}
        for q in self.questionnaire:
            problem, value = _answer(q, answers.get(q.name))
            if problem:
                problems.append(f"answers.{q.name}: {problem}")
            elif value is not None:
                out[q.name] = value
        if problems:
            raise BadInput("; ".join(problems))
        return out


def _squash(text: str) -> str:
    return " ".join(text.split()).lower()


def _answer(q: Question, value: Any) -> tuple[str | None, Any]:
    """(what is wrong with ``value`` as an answer to ``q``, or None; the answer kept)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return ("required" if q.required else None), None
    if q.type == "choice":
        if value not in q.choices:
            return f"must be one of {', '.join(q.choices)}", None
        return None, value
    if q.type == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            return "must be a number", None
        if q.min is not None and value < q.min:
            return f"must be ≥ {q.min:g}", None
        if q.max is not None and value > q.max:
            return f"must be ≤ {q.max:g}", None
        return None, value
    if not isinstance(value, str):
        return "must be text", None
    if len(value) > TEXT_MAX:
        return f"must be at most {TEXT_MAX} characters", None
    return None, value.strip()


# ---- loading ----------------------------------------------------------------------------------

_MESSAGES = {
    "missing": "required",
    "extra_forbidden": "unknown field",
    "string_type": "must be a string",
    "bool_type": "must be true or false",
    "int_type": "must be a whole number",
    "float_type": "must be a number",
    "list_type": "must be a list",
    "model_type": "must be a table (an object)",
    "dict_type": "must be a table (an object)",
}


def _message(err: Any) -> str:
    ctx, kind = err.get("ctx") or {}, err["type"]
    if kind in _MESSAGES:
        return _MESSAGES[kind]
    if kind == "greater_than_equal":
        return f"must be ≥ {ctx['ge']}"
    if kind == "string_too_short":
        return "must not be empty"
    if kind == "string_too_long":
        return f"must be at most {ctx['max_length']} characters"
    if kind == "literal_error":
        return f"must be {ctx['expected']}"
    if kind == "string_pattern_mismatch":
        return "must be letters, digits, '_', '.' or '-' (a name: letters, digits, '_')"
    if kind == "value_error":
        return str(ctx.get("error", err["msg"]))
    return err["msg"]


def _where(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif not str(part).startswith(("function-after", "union")):
            out += ("." if out else "") + str(part)
    return out


def parse_study(data: Any, source: str, default_id: str = "") -> StudyDef:
    """One study from its parsed file or config entry; StudyError naming ``source`` and the field."""
    if not isinstance(data, dict):
        raise StudyError(f"{source}: a study must be a table (an object) of settings")
    data = {"id": default_id, **data} if default_id else data
    try:
        study = StudyDef.model_validate(data)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        where, message = _where(tuple(first["loc"])), _message(first)
        if first["type"] == "value_error" and re.match(r"^[\w/.\[\]]+: ", message):
            field, message = message.split(": ", 1)  # a check of several fields names the one
            where = f"{where}.{field}" if where else field
        raise StudyError(f"{source}: {where + ': ' if where else ''}{message}") from None
    study._source = source
    return study


def read_study_file(path: str | Path) -> StudyDef:
    """A study file (JSON or TOML): one study; its id defaults to the file's stem."""
    p = Path(path)
    try:
        data = read_document(p)
    except ConfigError as err:
        raise StudyError(str(err)) from None
    return parse_study(data, str(path), default_id=p.stem)


def load_studies(
    files: list[str], inline: dict[str, Any], library: TaskLibrary | None = None
) -> dict[str, StudyDef]:
    """Every configured study by id (files first, then ``inline``); with ``library`` each
    study's tasks are checked against it. A study id given twice is an error."""
    found: dict[str, tuple[StudyDef, str]] = {}
    sources = [(str(f), read_study_file(f)) for f in files]
    for key, data in inline.items():
        source = f"CIBenchLabApp.studies[{key}]"
        if isinstance(data, dict) and "id" in data and data["id"] != key:
            raise StudyError(f"{source}: id: {data['id']!r} differs from its key {key!r}")
        sources.append((source, parse_study(data, source, default_id=str(key))))
    for source, study in sources:
        if study.id in found:
            raise StudyError(f"{source}: id: study {study.id!r} is already defined by {found[study.id][1]}")
        if library is not None:
            check_tasks(study, library, source)
        found[study.id] = (study, source)
    return {k: study for k, (study, _) in found.items()}


def check_tasks(study: StudyDef, library: TaskLibrary, source: str) -> None:
    """Every listed task exists; a draw has enough tasks to draw from."""
    from .plan import draw_pool

    for i, entry in enumerate(study.tasks or []):
        if entry.task not in library.tasks:
            raise StudyError(f"{source}: tasks[{i}].task: unknown task {entry.task!r}")
    if study.draw is not None:
        pool = draw_pool(study.draw, library)
        if len(pool) < study.draw.n:
            where = f"split {study.draw.split!r}" if study.draw.split else "the library"
            libs = f" and libs {', '.join(study.draw.libs)}" if study.draw.libs else ""
            raise StudyError(f"{source}: draw.n: {study.draw.n} tasks to draw, {len(pool)} in {where}{libs}")


def check_server(studies: dict[str, StudyDef], proctored: bool, kernel_idle_cull: float) -> None:
    """The server can hold every study: proctored when one requires it, and idle kernels culled
    only after a study's working clock paused."""
    for study in studies.values():
        if study.proctored and not proctored:
            raise StudyError(
                f"study {study.id!r} requires the proctored preset: start the server with "
                "CIBenchLabApp.proctored=True"
            )
        try:
            check_cull(kernel_idle_cull, study.idle_threshold, f"study {study.id!r}: idle_threshold")
        except BadInput as err:
            raise StudyError(str(err)) from None
