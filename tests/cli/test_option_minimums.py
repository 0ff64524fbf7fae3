"""A number option out of its range stops the server as its value is read, the option named (no
kernel): a timeout, count or size below its minimum never reaches the play settings or the pool."""

from __future__ import annotations

import pytest
from traitlets import TraitError
from traitlets.config import Application

from cibench_lab.app.extension import CIBenchLabApp

pytestmark = pytest.mark.fast


def options(*argv: str) -> CIBenchLabApp:
    server = Application()  # as ServerApp parses `jupyter lab`'s command line
    server.initialize(list(argv))
    return CIBenchLabApp(config=server.config)


@pytest.mark.parametrize(
    ("name", "low", "least"),
    [
        ("turn_timeout", "-1", "0"),
        ("interrupt_grace", "-0.5", "0"),
        ("kernel_idle_cull", "-1", "0"),
        ("hub_groups_ttl", "-1", "0"),
        ("kernel_pool_size", "-1", "0"),
        ("kernel_pool_memory", "-1", "0"),
        ("kernel_pool_idle", "-1", "0"),
        ("turn_cap", "-1", "0"),
        ("pause_after", "0", "1"),
        ("kernel_max_processes", "-1", "0"),
        ("kernel_memory_mb", "-1", "0"),
        ("kernel_tmp_mb", "-1", "0"),
        ("kernel_file_mb", "-1", "0"),
        ("grading_workers", "0", "1"),
    ],
)
def test_a_number_below_its_minimum_names_the_option(name, low, least):
    with pytest.raises(TraitError, match=rf"'{name}' trait of a CIBenchLabApp .* less than {least}"):
        options(f"--CIBenchLabApp.{name}={low}")
    assert getattr(options(f"--CIBenchLabApp.{name}={least}"), name) == float(least)


def test_the_defaults_are_in_range():
    app = options()
    assert (app.turn_cap, app.pause_after, app.grading_workers) == (0, 300, 2)
