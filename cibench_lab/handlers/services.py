"""What every handler uses (``Handler.services``), built once when the server starts
(``app/extension.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..auth.class_tasks import ClassTasks
from ..auth.roles import Roles
from ..grading.profile import PROFILES
from ..lab.config import settings_policy
from ..lab.play import LabPlay
from ..models.config import ModelRegistry
from ..play.attempt import Attempts
from ..store import Store
from ..studies.service import Studies
from ..tasks.library import TaskLibrary


@dataclass
class Services:
    """Everything the handlers use, built once when the server starts."""

    library: TaskLibrary
    store: Store
    attempts: Attempts
    lab: LabPlay
    participant: str
    models: ModelRegistry
    studies: Studies
    roles: Roles
    new_tasks_dir: Path  # where the lab's "Make a CIBench Task" writes (CIBenchLabApp.new_tasks_dir)
    class_tasks: ClassTasks = field(default_factory=ClassTasks)  # what each class's students see
    kernel_unpinned: str | None = None  # one line when task kernels run off the lock (kernels/kernelenv.py)

    def settings_view(self) -> dict:
        c = self.lab.config
        return {
            "defaults": c.settings.as_dict(),
            "locked": c.lock_settings,
            "guarded": settings_policy(c) == "tighten",
            "turn_timeout": c.turn_timeout,
            "kernel_idle_cull": c.kernel_idle_cull,
            "profile": self.attempts.profile,
            "profiles": list(PROFILES),
            "kernel_unpinned": self.kernel_unpinned,
        }
