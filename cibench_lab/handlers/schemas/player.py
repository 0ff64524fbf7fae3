"""Who plays besides a person: a configured model, a recorded attempt, a transcript."""

from __future__ import annotations

from pydantic import ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from .common import AttemptStatus, Closed, Id, Mode, Request, Text, absent


class PlayerChoice(Closed):
    """Exactly one of: a server-configured model, a recorded model attempt, a transcript file."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1, "maxProperties": 1})

    model: Id = absent("a model the server configures (GET models)")
    replay: Id = absent("a recorded model attempt of the task (GET recordings)")
    transcript: Id = absent("a JSONL transcript, relative to the server root")

    @model_validator(mode="after")
    def _one(self) -> PlayerChoice:
        if len(self.model_fields_set) != 1:
            raise PydanticCustomError(
                "player_choice", 'must be {"model": NAME}, {"replay": ATTEMPT_ID} or {"transcript": PATH}'
            )
        return self

    def choice(self) -> dict[str, str]:
        """The engine's form: ``{kind: value}``."""
        return self.model_dump(exclude_unset=True)


class ModelInfo(Closed):
    """A model the server lets the lab attach: never its key or endpoint."""

    name: str
    protocol: str


class Recording(Closed):
    id: str
    run: str
    player: str
    mode: Mode
    status: AttemptStatus
    created_at: str


class RecordingsQuery(Request):
    task: Text = Field("", description="a task id")
