"""What a headless run plays and how: one value the CLI (``cibench-lab run``) builds once and both
entry points take, :func:`.local.run_tasks` and :func:`.dask.driver.run_on_cluster`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import BadInput
from ..kernels.pool import PoolSettings
from ..play.settings import PlaySettings
from ..players import Player
from ..tasks.vocabulary import MODES, Mode


@dataclass(frozen=True)
class RunSpec:
    """A run: ``player`` plays the tasks in ``mode`` under the run name ``name`` (an existing run of
    that name is resumed, and must have been played the same way: ``local.ensure_run``)."""

    player: Player
    mode: Mode
    name: str
    timeout: float = 120.0  # seconds a turn may run
    compat_timeout: bool = False  # CIBench's timeout: a silent turn stops (kernels/executor.py)
    settings: PlaySettings = field(default_factory=PlaySettings)
    jobs: int = 1  # attempts a local run plays at once (fewer than 1: one)
    kernel_pool: PoolSettings | None = None  # a local run's warm kernels (enabled: kernels/pool.py)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise BadInput(f"mode: must be one of {', '.join(MODES)}")

    def config(self) -> dict[str, Any]:
        """What the run records of how it is played (its player, budget and timeouts)."""
        return {
            **self.player.describe(),
            "max_turn": self.settings.max_turn,
            "timeout": self.timeout,
            "compat_timeout": self.compat_timeout,
        }
