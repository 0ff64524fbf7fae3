"""Every `cibench-lab` command picks the results database as the server does: its own option, else
the global ``--db``, else ``CIBENCH_LAB_DATABASE_URL``, else the SQLite default (no kernel)."""

from __future__ import annotations

import csv

import pytest
from exportdb import build

from cibench_lab.cli import main

DATABASE_URL_VAR = "CIBENCH_LAB_DATABASE_URL"  # docs/teach/reference.md: how a hub hands each server its own

pytestmark = pytest.mark.fast

COMMANDS = {
    "run": ["run", "--player", "reference", "--tasks", "no-task-matches-this"],
    "report": ["report"],
    "compare": ["report", "--compare", "humans:pilot", "r1"],
    "export": ["export", "--format", "csv", "OUT"],
    "db current": ["db", "current"],
}


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_opens_the_database_the_variable_names(name, tmp_path, monkeypatch, capsys):
    missing = tmp_path / "no-such-folder"
    monkeypatch.setenv(DATABASE_URL_VAR, f"sqlite:///{missing}/results.sqlite")
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in COMMANDS[name]]
    assert main(argv) == 2  # the default database (or --db's) would have opened
    assert "the results database at" in capsys.readouterr().err


def test_the_global_db_option_wins_over_the_variable(tmp_path, monkeypatch, capsys):
    built = build(tmp_path / "db")
    monkeypatch.setenv(DATABASE_URL_VAR, f"sqlite:///{tmp_path}/no-such-folder/results.sqlite")
    assert main(["--db", built.db, "db", "current"]) == 0
    assert "does not exist" not in capsys.readouterr().err


def test_export_reads_the_database_of_the_variable(tmp_path, monkeypatch):
    built = build(tmp_path / "db")
    monkeypatch.setenv(DATABASE_URL_VAR, built.db)
    out = tmp_path / "csv"
    assert main(["--task-dir", str(built.root), "export", "--format", "csv", str(out)]) == 0
    with (out / "attempts.csv").open(newline="", encoding="utf-8") as f:
        assert len(list(csv.DictReader(f))) >= 3  # alice, bob, carol and the run's attempt
