"""The typed API boundary: every request body and response of /cibench-lab/api/.

Requests are validated strictly (``"1"`` is not a step) and unknown fields are
ignored, as they always were, except in ``settings`` and ``player``, which name
their fields.  Responses are the engine's views, validated against these models
before they are sent (a view that drifts from its model is a logged 500); the
view itself is what is written, so the models never change a field's value.
The OpenAPI document (:mod:`..openapi`) and the browser's types are built from here.
One module per domain: task, settings, player, attempt, turn, grade, compare; ``common`` holds the
literal types, field kinds and model bases they share.  Import them from this package.
"""

from __future__ import annotations

from .attempt import (
    AttemptRow,
    AttemptView,
    KernelBinding,
    KernelReport,
    NextAction,
    Reference,
    SandboxView,
    ShownReference,
    StartAttempt,
    StepView,
)
from .common import (
    Action,
    AttemptStatus,
    Closed,
    Count,
    Error,
    GradeRule,
    Id,
    KernelStatus,
    KernelStop,
    Mode,
    Next,
    Record,
    Request,
    Reveal,
    StepIndex,
    StepKind,
    Text,
    absent,
    describe,
)
from .compare import CompareQuery, Comparison, RecordedRun
from .grade import Grade, Summary
from .player import ModelInfo, PlayerChoice, Recording, RecordingsQuery
from .settings import PlaySettings, ServerSettings, SettingsOverride
from .task import TaskDetail, TaskInstruction, TaskSummary
from .turn import (
    Activity,
    ActivityReport,
    Proposal,
    ReferenceResult,
    RunReport,
    Settled,
    SettleResult,
    StepRequest,
    Stopped,
    StopRequest,
    Tokens,
    TurnDetail,
    TurnResult,
)

__all__ = [
    "Action",
    "Activity",
    "ActivityReport",
    "AttemptRow",
    "AttemptStatus",
    "AttemptView",
    "Closed",
    "CompareQuery",
    "Comparison",
    "Count",
    "Error",
    "Grade",
    "GradeRule",
    "Id",
    "KernelBinding",
    "KernelReport",
    "KernelStatus",
    "KernelStop",
    "Mode",
    "ModelInfo",
    "Next",
    "NextAction",
    "PlaySettings",
    "PlayerChoice",
    "Proposal",
    "Record",
    "Recording",
    "RecordedRun",
    "RecordingsQuery",
    "Reference",
    "ReferenceResult",
    "Request",
    "Reveal",
    "RunReport",
    "SandboxView",
    "ServerSettings",
    "SettingsOverride",
    "SettleResult",
    "Settled",
    "ShownReference",
    "StartAttempt",
    "StepIndex",
    "StepKind",
    "StepRequest",
    "StepView",
    "StopRequest",
    "Stopped",
    "Summary",
    "TaskDetail",
    "TaskInstruction",
    "TaskSummary",
    "Text",
    "Tokens",
    "TurnDetail",
    "TurnResult",
    "absent",
    "describe",
]
