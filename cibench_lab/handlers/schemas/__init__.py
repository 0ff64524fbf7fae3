"""The typed API boundary: every request body and response of /cibench-lab/api/.

Requests are validated strictly (``"1"`` is not a step) and unknown fields are
ignored, as they always were, except in ``settings`` and ``player``, which name
their fields.  Responses are the engine's views, validated against these models
before they are sent (a view that drifts from its model is a logged 500); the
view itself is what is written, so the models never change a field's value.
The OpenAPI document (:mod:`..openapi`) and the browser's types are built from here.
One module per domain: task, settings, player, attempt, turn, grade, record (the participant
record), newtask, compare (people beside models), role, classview (an instructor's class view);
``common`` holds the literal types, field kinds and model bases they share.  Import them from this package.
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
from .classview import (
    ClassAttempt,
    ClassCSV,
    ClassProgress,
    ClassTask,
    MemberAttempt,
    MemberStep,
    MemberTurn,
    StepPassRate,
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
from .newtask import CellRefusal, Library, NewTaskRequest, NewTaskResult, NewTaskStep
from .player import ModelInfo, PlayerChoice, Recording, RecordingsQuery
from .record import (
    Activity,
    ActivityReport,
    CellEdits,
    CellRun,
    Note,
    NoteRequest,
    PauseCause,
    PauseRequest,
    PauseView,
    Trace,
)
from .role import ClassAttemptRow, ClassInfo, Me, Role, RunAttemptRow
from .settings import PlaySettingsView, ServerSettings, SettingsOverride
from .task import TaskDetail, TaskInstruction, TaskSummary
from .turn import (
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
    "ClassAttempt",
    "ClassCSV",
    "ClassProgress",
    "ClassTask",
    "MemberAttempt",
    "MemberStep",
    "MemberTurn",
    "StepPassRate",
    "Action",
    "Activity",
    "ActivityReport",
    "AttemptRow",
    "AttemptStatus",
    "AttemptView",
    "CellEdits",
    "CellRun",
    "CellRefusal",
    "ClassAttemptRow",
    "ClassInfo",
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
    "Library",
    "Me",
    "Mode",
    "ModelInfo",
    "NewTaskRequest",
    "NewTaskResult",
    "NewTaskStep",
    "Next",
    "NextAction",
    "Note",
    "NoteRequest",
    "PauseCause",
    "PauseRequest",
    "PauseView",
    "PlaySettingsView",
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
    "Role",
    "RunAttemptRow",
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
    "Trace",
    "TurnDetail",
    "TurnResult",
    "absent",
    "describe",
]
