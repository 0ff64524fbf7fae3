"""An enrolled study's definition does not change (docs/studies.md, "What is recorded").

The ``study`` row keeps the definition as its first participant consented to it. Once a study has
that row, a definition that differs from it in anything but its ``title`` is refused — when the
server starts (it exits with one line naming the study's file and the first changed field) and at a
consent (a server sharing the database that recorded another definition first): the participants'
recorded protocol stays, and a changed protocol is a new study, with a new id.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from ..store import Store
from ..store.tables import Study
from .definition import StudyDef, StudyError

#: What may change after the first consent: the title only names the study.
FREE = frozenset({"title"})
_SHOWN = 60  # characters of a value in the message


def changed_field(recorded: dict[str, Any], study: StudyDef) -> str | None:
    """The first field (``draw.n``, ``tasks[1].task``) where ``study`` differs from the recorded
    definition, or None. A field the recorded definition does not hold (an older version's) is not
    compared."""
    now = study.record()
    for key, value in now.items():
        if key in FREE or key not in recorded:
            continue
        where = _first_difference(key, recorded[key], value)
        if where is not None:
            return where
    return None


def _first_difference(where: str, old: Any, new: Any) -> str | None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in [*new, *(k for k in old if k not in new)]:
            found = _first_difference(f"{where}.{key}", old.get(key), new.get(key))
            if found is not None:
                return found
        return None
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            found = _first_difference(f"{where}[{i}]", a, b)
            if found is not None:
                return found
        return None
    return None if old == new else where


def _value_at(config: Any, where: str) -> Any:
    """The value at a path ``changed_field`` named (None where it is absent)."""
    value = config
    for part in where.replace("[", ".[").split("."):
        if part.startswith("["):
            index = int(part[1:-1])
            value = value[index] if isinstance(value, list) and index < len(value) else None
        else:
            value = value.get(part) if isinstance(value, dict) else None
    return value


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def refusal(recorded: dict[str, Any], study: StudyDef) -> str | None:
    """The one line that refuses ``study`` over its recorded definition, or None when they agree."""
    where = changed_field(recorded, study)
    if where is None:
        return None
    old, new = _value_at(recorded, where), _value_at(study.record(), where)
    return (
        f"{study.source}: {where}: study {study.id!r} has enrolled participants under {_shown(old)} "
        f"(now {_shown(new)}); an enrolled study's definition cannot change — restore it, or give "
        "the changed study a new id"
    )


def check_recorded(store: Store, studies: dict[str, StudyDef]) -> None:
    """Every configured study that has enrolled participants is as they enrolled in it
    (StudyError naming the file and the changed field)."""
    with store.session() as s:
        rows = s.scalars(select(Study).where(Study.id.in_(list(studies))))
        recorded = {row.id: row.config for row in rows}
    for study_id, config in recorded.items():
        problem = refusal(config or {}, studies[study_id])
        if problem:
            raise StudyError(problem)
