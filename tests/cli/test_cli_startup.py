"""The CLI imports only the command it runs: a `db` or `class` command starts in well under a
second (no nbformat, jsonschema, scipy: seconds on a loaded machine), and the parser still knows
every command when the command is not plain to see."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cibench_lab.cli import build_parser, chosen_command

PROBE = (
    "import sys\n"
    "from cibench_lab.cli import main\n"
    "rc = main(sys.argv[1:])\n"
    "print(rc, sorted(m for m in ('nbformat', 'jsonschema', 'scipy', 'distributed') if m in sys.modules))\n"
)


@pytest.mark.fast
def test_a_db_command_imports_none_of_the_heavy_modules(tmp_path):
    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    argv = [sys.executable, "-c", PROBE, "--db", url, "db", "upgrade"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "0 []", done.stdout


@pytest.mark.fast
@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["run", "--player", "reference"], "run"),
        (["--db", "sqlite:///x", "--task-dir", "t", "class", "grant"], "class"),
        (["--db=sqlite:///x", "report"], "report"),
        (["--ta", "report", "run"], None),  # an abbreviated option: all commands, argparse decides
        (["-h"], None),
        (["bogus"], None),
        ([], None),
    ],
)
def test_the_command_is_picked_only_when_plain(argv, command):
    assert chosen_command(argv) == command


@pytest.mark.fast
def test_an_unclear_command_line_still_parses_with_every_command():
    args = build_parser(["--ta", "tasks", "report"]).parse_args(["--ta", "tasks", "report"])
    assert args.command == "report" and [str(p) for p in args.task_dir] == ["tasks"]
    with pytest.raises(SystemExit):
        build_parser(["bogus"]).parse_args(["bogus"])


@pytest.mark.fast
@pytest.mark.parametrize("argv", [["--help"], []])
def test_the_top_level_help_and_usage_import_no_command(argv):
    """`cibench-lab --help` (and a bare `cibench-lab`) print every command's line without importing any
    command's module: no SQLAlchemy, nbformat, jsonschema or scipy."""
    probe = PROBE.replace(
        "rc = main(sys.argv[1:])",
        "rc = 0\ntry:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    rc = e.code",
    )
    probe = probe.replace("('nbformat',", "('sqlalchemy', 'cibench_lab.cli.run', 'nbformat',")
    done = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, timeout=60)
    shown = done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == f"{0 if argv else 2} []", shown
    for name in ("tasks", "run", "report", "export", "db", "class", "qwen"):
        assert name in shown
    if argv:
        assert "play tasks headlessly and print CIBench's metrics" in shown


@pytest.mark.fast
def test_a_command_named_after_the_help_flag_still_gets_its_own_options():
    with pytest.raises(SystemExit):
        build_parser(["--help", "run"]).parse_args(["--help", "run"])
    args = build_parser(["--ta", "x", "run", "--player", "reference"]).parse_args(
        ["--ta", "x", "run", "--player", "reference"]
    )
    assert args.command == "run" and args.player == "reference"


@pytest.mark.fast
def test_a_benchmarks_command_comes_from_its_entry_point_with_its_docstrings_line():
    """`cibench-lab qwen` is declared by the benchmark (pyproject.toml's ``cibench_lab.commands``),
    not named in the command table; its --help line is its module's first docstring line."""
    from cibench_lab.cli import COMMANDS, benchmark_commands

    assert benchmark_commands() == {
        "qwen": ("qwen", "Qwen's Code Interpreter Benchmark: score the original's outputs")
    }
    assert "qwen" in COMMANDS
