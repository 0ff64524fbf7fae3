"""List options of names and paths read as the server parses them from ``jupyter lab``'s command
line: a JSON list given as one value is that list; a malformed one names the option (no kernel)."""

from __future__ import annotations

import pytest
from traitlets import TraitError
from traitlets.config import Application

from cibench_lab.app.extension import CIBenchLabApp

pytestmark = pytest.mark.fast


def options(*argv: str) -> CIBenchLabApp:
    server = Application()  # like ServerApp: it does not know our class when it parses the line
    server.initialize(list(argv))
    return CIBenchLabApp(config=server.config)


@pytest.mark.parametrize("name", ["researchers", "instructors", "study_files", "task_dirs"])
def test_a_json_list_on_the_command_line_is_that_list(name):
    assert getattr(options(f'--CIBenchLabApp.{name}=["root", "ada"]'), name) == ["root", "ada"]


def test_repeating_the_option_and_one_value_still_work():
    repeated = options("--CIBenchLabApp.researchers=root", "--CIBenchLabApp.researchers=ada")
    assert repeated.researchers == ["root", "ada"]
    assert options("--CIBenchLabApp.study_files=studies/pilot.toml").study_files == ["studies/pilot.toml"]


def test_a_malformed_list_names_the_option():
    with pytest.raises(TraitError, match=r"CIBenchLabApp\.researchers: .*repeat the option"):
        options('--CIBenchLabApp.researchers=["root", 3]')


def test_the_documented_command_lists_our_options():
    import re
    import subprocess
    import sys
    from pathlib import Path

    page = Path(__file__).parent.parent.parent / "docs" / "operate" / "configuration.md"
    found = re.search(r"`python -c '([^']+)' \| grep -A3 CIBenchLabApp` prints them all", page.read_text())
    assert found, "docs/operate/configuration.md documents how to list the options"
    out = subprocess.run([sys.executable, "-c", found.group(1)], capture_output=True, text=True, timeout=120)
    assert "--CIBenchLabApp.researchers=<" in out.stdout
    assert "--CIBenchLabApp.study_files=" in out.stdout
