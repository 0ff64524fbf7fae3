"""The lab's configuration (``LabPlay``'s, from the server's traits) and its checks of what the
browser sends."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import BadInput
from ..kernels.pool import PoolSettings
from ..play.settings import PlaySettings
from ..tasks.vocabulary import Policy


@dataclass
class LabConfig:
    root_dir: Path  # the server root
    attempts_dir: str  # folder under the root for attempt folders
    turn_timeout: float  # seconds a turn report waits for the kernel's idle
    settings: PlaySettings  # server defaults
    lock_settings: bool  # when True, a browser cannot override them
    guard_settings: bool = False  # when True, a browser's settings may only tighten them
    participant: str = ""  # whose attempts this server plays (the handlers' participant)
    interrupt_grace: float = 10.0  # seconds an interrupted turn may take to stop before a restart
    kernel_idle_cull: float = 1800.0  # seconds an attempt's kernel may idle before it is stopped (0: never)
    kernel_pool: PoolSettings = field(default_factory=PoolSettings)  # warm kernels for Start (size 0: off)

    @property
    def attempts_path(self) -> Path:
        """The attempts folder: every link under it is a kernel's, never followed (``tasks/links.py``)."""
        return self.root_dir / self.attempts_dir


def settings_policy(config: LabConfig) -> Policy:
    """How a person's settings meet the server's (``tasks/vocabulary.py: POLICIES``)."""
    return "locked" if config.lock_settings else "tighten" if config.guard_settings else "free"


def check_step(step: Any) -> None:
    if not isinstance(step, int) or isinstance(step, bool):
        raise BadInput("step: must be an integer (0-based)")


def check_ids(kernel_id: Any, msg_id: Any) -> None:
    for name, value in (("kernel_id", kernel_id), ("msg_id", msg_id)):
        if not isinstance(value, str) or not value:
            raise BadInput(f"{name}: must be a non-empty string")
