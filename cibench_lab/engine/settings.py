"""Per-attempt play settings, recorded with each attempt: two attempts are comparable only
when they were played under the same settings (docs/architecture.md, "Comparability")."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from .errors import BadInput

REVEAL = ("after-step", "after-task", "never")


@dataclass(frozen=True)
class PlaySettings:
    show_grades: bool = True  # grades shown before a step settles
    turn_cap: int = 0  # a person's step settles after this many turns (0 = no cap)
    pause_after: int = 300  # seconds without an edit or a run that pause the working clock
    reveal: str = "after-task"  # when an end-to-end step's reference is shown
    max_turn: int = 3  # a model's step settles at its first error-free turn or here

    @classmethod
    def merge(cls, base: PlaySettings, override: dict[str, Any] | None) -> PlaySettings:
        values = asdict(base)
        known = {f.name: f.type for f in fields(cls)}
        for key, value in (override or {}).items():
            if key not in known:
                raise BadInput(f"settings.{key}: unknown setting (known: {', '.join(known)})")
            values[key] = value
        s = cls(**values)
        s.validate()
        return s

    def validate(self) -> None:
        if not isinstance(self.show_grades, bool):
            raise BadInput("settings.show_grades: must be true or false")
        for name in ("turn_cap", "max_turn"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise BadInput(f"settings.{name}: must be a whole number >= 0")
        pause = self.pause_after
        if not isinstance(pause, int) or isinstance(pause, bool) or pause < 1:
            raise BadInput("settings.pause_after: must be a whole number of seconds >= 1")
        if self.reveal not in REVEAL:
            raise BadInput(f"settings.reveal: must be one of {', '.join(REVEAL)}")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
