"""scripts/check-size: the size limits and their allowlist, on crafted files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.fast

SCRIPT = Path(__file__).resolve().parent.parent.parent / "scripts" / "check-size"


def function(name: str, body_lines: int, indent: str = "") -> str:
    """A ``def`` with a 3-line signature whose body spans ``body_lines`` lines: a docstring, a
    blank line, comments, a return."""
    assert body_lines >= 3
    comments = [f"{indent}    # line {i}" for i in range(body_lines - 3)]
    body = [f'{indent}    """{name}."""', "", *comments, f"{indent}    return None"]
    return f"{indent}def {name}(\n{indent}    a=1,\n{indent}):\n" + "\n".join(body) + "\n"


def run(root: Path, *paths: str, allow: str | None = None) -> tuple[int, list[str]]:
    if allow is not None:
        (root / "scripts").mkdir(exist_ok=True)
        (root / "scripts" / "size-allow.txt").write_text(allow)
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--root", str(root), *(paths or ("pkg",))],
        capture_output=True,
        text=True,
        check=False,
    )
    assert not done.stderr, done.stderr
    return done.returncode, done.stdout.splitlines()


@pytest.fixture
def pkg(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    return tmp_path / "pkg"


def test_a_long_function_fails_naming_it_and_the_body_span_counts_every_line(tmp_path, pkg):
    (pkg / "a.py").write_text("x = 1\n\n\n" + function("short", 40) + "\n\n" + function("long", 41))
    code, out = run(tmp_path)
    assert code == 1
    assert out == ["pkg/a.py:49: function long is 41 lines (limit 40)"]  # "short" (40, blanks too) passes


def test_methods_and_nested_functions_are_named_by_their_qualname(tmp_path, pkg):
    nested = "def outer():\n" + function("inner", 45, "    ") + "    return inner\n"
    (pkg / "b.py").write_text("class Box:\n" + function("method", 50, "    ") + "\n\n" + nested)
    code, out = run(tmp_path)
    assert code == 1
    assert out == [
        "pkg/b.py:2: function Box.method is 50 lines (limit 40)",
        "pkg/b.py:57: function outer is 49 lines (limit 40)",  # from inner's def to its return
        "pkg/b.py:58: function outer.inner is 45 lines (limit 40)",
    ]


def test_a_long_file_fails(tmp_path, pkg):
    (pkg / "big.py").write_text("x = 1\n" * 401)
    (pkg / "ok.py").write_text("x = 1\n" * 400)
    code, out = run(tmp_path)
    assert code == 1 and out == ["pkg/big.py:1: file is 401 lines (limit 400)"]


def test_allowlisted_items_pass_up_to_their_recorded_size(tmp_path, pkg):
    (pkg / "a.py").write_text(function("long", 45) + "\n\n" + function("longer", 60))
    (pkg / "big.py").write_text("x = 1\n" * 410)
    allow = "# offenders\npkg/a.py::long 45\npkg/a.py::longer 61  # shrank: fine\npkg/big.py 410\n"
    assert run(tmp_path, allow=allow) == (0, [])


def test_an_allowlisted_function_that_grew_fails(tmp_path, pkg):
    (pkg / "a.py").write_text(function("long", 46))
    code, out = run(tmp_path, allow="pkg/a.py::long 45\n")
    assert code == 1
    assert out == ["pkg/a.py:1: function long is 46 lines (limit 40; allowlisted at 45): it may only shrink"]


def test_an_allowlisted_item_within_the_limit_or_gone_must_leave_the_list(tmp_path, pkg):
    (pkg / "a.py").write_text(function("long", 40))
    (pkg / "big.py").write_text("x = 1\n" * 12)
    allow = "pkg/a.py::long 45\npkg/big.py 410\npkg/a.py::removed 50\npkg/gone.py::f 41\nother/x.py::g 99\n"
    code, out = run(tmp_path, allow=allow)
    assert code == 1
    remove = "remove it from the allowlist"
    assert out == [
        f"pkg/a.py:1: function long is 40 lines, within the limit 40 now: {remove} (scripts/size-allow.txt)",
        f"pkg/big.py:1: file is 12 lines, within the limit 400 now: {remove} (scripts/size-allow.txt)",
        f"scripts/size-allow.txt:3: pkg/a.py::removed is gone: {remove}",
        f"scripts/size-allow.txt:4: pkg/gone.py::f is gone: {remove}",
    ]  # other/ is not checked here, so its entry is not judged


def test_a_malformed_allowlist_line_is_named(tmp_path, pkg):
    (pkg / "a.py").write_text("x = 1\n")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "size-allow.txt").write_text("pkg/a.py::f forty\n")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--root", str(tmp_path), "pkg"], capture_output=True, text=True
    )
    assert done.returncode == 1
    assert "size-allow.txt:1: expected 'path::qualname N' or 'path N'" in done.stderr
