"""What every schema module shares: the literal types (the play vocabulary's from
``tasks/vocabulary.py``), the field kinds (``Text``, ``absent``),
the three model bases (requests, closed responses, records a profile owns) and the error."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError
from typing_extensions import TypeAliasType

# the play vocabulary (one module for the engine, the players and the CLI too), re-exported
from ...tasks.vocabulary import Action as Action
from ...tasks.vocabulary import GradeRule as GradeRule
from ...tasks.vocabulary import Mode as Mode
from ...tasks.vocabulary import Next as Next
from ...tasks.vocabulary import Reveal as Reveal

StepKind = TypeAliasType("StepKind", Literal["exec", "num", "text", "vis", "general"])
AttemptStatus = TypeAliasType("AttemptStatus", Literal["open", "done", "quit"])
KernelStatus = TypeAliasType("KernelStatus", Literal["running", "stopped", "none"])
KernelStop = TypeAliasType("KernelStop", Literal["idle", "finished"])
#: How a step settled (tasks/vocabulary.py: OUTCOMES; src/grade.ts words them).
OUTCOME_DOC = (
    "how the step settled: passed (a player's turn ran without error), next, gave_up, turn_cap, "
    "out_of_turns (max_turn, or the benchmark's own call limit), stopped (a benchmark's own loop: an "
    "observation held one of its stop words), answered (a benchmark's own loop: a reply that called nothing)"
)


def _no_nul(value: str) -> str:
    if "\x00" in value:
        raise PydanticCustomError("nul_byte", "must not contain a NUL byte")
    return value


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


#: A string field of a request: never with a NUL byte (paths, ids and names reach the OS).
Text = Annotated[str, AfterValidator(_no_nul)]
Id = Annotated[Text, Field(min_length=1)]
StepIndex = Annotated[int, Field(ge=0, description="0-based step index")]
Count = Annotated[int, Field(ge=0)]


def absent(description: str | None = None) -> Any:
    """A field that is either left out or holds its type (never null)."""
    return Field(None, description=description, json_schema_extra=_no_default)


def describe(err: ValidationError) -> str:
    """``task_id: Input should be a valid string; player.model: ...`` (dotted field paths)."""
    parts = []
    for e in err.errors(include_url=False):
        path = ".".join(str(p) for p in e["loc"]) or "request body"
        parts.append(f"{path}: {e['msg']}")
    return "; ".join(parts)


class Request(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")


class Closed(BaseModel):
    """Strict, and no field it does not declare (every response; settings and player)."""

    model_config = ConfigDict(strict=True, extra="forbid")


class Record(BaseModel):
    """A stored record whose fields the grading profile owns: more may appear."""

    model_config = ConfigDict(strict=True, extra="allow")


class Error(Closed):
    """Every error, of every route (also unknown routes under the API)."""

    error: str
    status: int
