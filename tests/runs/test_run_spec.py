"""A run's RunSpec: what both entry points (local and Dask) record of it, and a mode it refuses."""

from __future__ import annotations

import pytest

from cibench_lab.errors import BadInput
from cibench_lab.play.settings import PlaySettings
from cibench_lab.players import ReferencePlayer
from cibench_lab.runs.spec import RunSpec

pytestmark = pytest.mark.fast


def test_the_run_records_its_player_budget_and_timeouts():
    player = ReferencePlayer()
    spec = RunSpec(player, "oracle", "ref", timeout=30.0, settings=PlaySettings(max_turn=5))
    assert spec.config() == {**player.describe(), "max_turn": 5, "timeout": 30.0, "compat_timeout": False}


def test_a_mode_it_does_not_know_is_refused():
    with pytest.raises(BadInput, match="mode: must be one of e2e, oracle"):
        RunSpec(ReferencePlayer(), "end-to-end", "ref")  # type: ignore[arg-type]
