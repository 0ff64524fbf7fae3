"""No generic module names Qwen: what differs for Qwen's Code Interpreter Benchmark is asked of the
seam (docs/architecture.md, "How to add a benchmark"), never branched on.  This greps every module of
the package, case-insensitively, outside the benchmark's own; a new mention fails here.  Cost: < 1 s."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.fast

PACKAGE = Path(__file__).parents[2] / "cibench_lab"
#: the benchmark's own modules, and the format detection of task sources
OWN = re.compile(
    r"^(benchmarks/.*|grading/qwen/.*|players/qwen[^/]*\.py|models/qwen_[^/]*\.py|tasks/qwen[^/]*\.py"
    r"|cli/qwen[^/]*\.py|tasks/format\.py|tasks/importer\.py)$"
)
#: what still names Qwen outside its modules: nothing.  The wire names no benchmark (``benchmark``,
#: ``benchmark_item``, ``benchmark_measures``: benchmarks/wire.py; ``Step.benchmark_item``), and the
#: benchmark's command (cli/qwen.py) is declared as an entry point in pyproject.toml, which the
#: command table reads without importing it (cli/__init__.py: ``benchmark_commands``).
KEPT: dict[str, int] = {}


def mentions(root: Path = PACKAGE) -> dict[str, int]:
    """Each module outside the benchmark's own with lines naming Qwen: how many."""
    found: dict[str, int] = {}
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(root).as_posix()
        if OWN.match(name) or name.startswith("labextension/"):
            continue
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if "qwen" in line.lower()]
        if lines:
            found[name] = len(lines)
    return found


def test_no_generic_module_names_qwen():
    assert mentions() == KEPT


def test_the_grep_finds_a_branch_added_back(tmp_path):
    module = PACKAGE / "play" / "rules.py"
    text = module.read_text(encoding="utf-8")
    copy = tmp_path / "cibench_lab"
    for path in PACKAGE.rglob("*.py"):
        name = path.relative_to(PACKAGE)
        if OWN.match(name.as_posix()) or name.parts[0] == "labextension":
            continue
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        (copy / name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    (copy / "play" / "rules.py").write_text(text + "\nif is_qwen(task):\n    pass\n", encoding="utf-8")
    assert mentions(copy) == {**KEPT, "play/rules.py": 1}
