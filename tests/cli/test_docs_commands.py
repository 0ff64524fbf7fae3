"""Every `cibench-lab …` command line in the docs' code blocks parses with the real argument parser: a
guide whose command the CLI refuses ("unrecognized arguments") fails here, not in front of a teacher.

A synopsis (``cibench-lab tasks list [--json] [--lang en|zh]``) is checked as its plain form and as the plain
form with each ``[…]`` part added in turn (the first of ``a|b`` alternatives; ``…`` and ``...`` dropped)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from cibench_lab.cli import build_parser

pytestmark = pytest.mark.fast

ROOT = Path(__file__).resolve().parent.parent.parent
PAGES = sorted([ROOT / "README.md", ROOT / "CONTRIBUTING.md", *(ROOT / "docs").rglob("*.md")])
FENCE = re.compile(r"^```")
COMMAND = re.compile(r"^(?:[A-Z_]+=\S+\s+)*(?:[^\s=]*/)?(?:cibench-lab|\$CIBENCH)(?:\s|$)")
OPTIONAL = re.compile(r"\[([^\[\]]*)\]")
#: placeholders of numeric values, as the synopses write them
NUMBERS = {"N": "2", "S": "30"}
ELIDED = re.compile(r"^--\S+\s+(?:…|\.\.\.)$")  # ``[--profile ...]``: the option's values are elsewhere


def code_lines(text: str) -> list[tuple[int, str]]:
    """The lines of ``text``'s fenced code blocks (continuations joined), with their line numbers."""
    lines, inside, pending, start = [], False, "", 0
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line.strip()):
            inside = not inside
            continue
        if not inside:
            continue
        if not pending:
            start = number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        lines.append((start, pending + line))
        pending = ""
    return lines


def first_alternatives(text: str) -> list[str]:
    """``text``'s words, each ``a|b`` as ``a``, without ``…`` or ``...``."""
    words = shlex.split(text.replace("…", " ").replace("...", " "), comments=True)
    words = [w.split("|")[0] if "|" in w and not w.startswith("|") else w for w in words]
    return [NUMBERS.get(w, w) for w in words]


def variants(line: str) -> list[list[str]]:
    """The argument lists a command line (or synopsis) stands for."""
    parts = OPTIONAL.findall(line)
    plain = first_alternatives(OPTIONAL.sub(" ", line))
    at = next(i for i, w in enumerate(plain) if w.endswith(("cibench-lab", "$CIBENCH")))
    head = plain[at + 1 :]
    out = [head]
    for part in parts:
        if ELIDED.match(part.strip()):
            continue
        before = OPTIONAL.sub(" ", line[: line.index(f"[{part}]")])
        lead = first_alternatives(before)[at + 1 :]
        out.append(lead + first_alternatives(part) + head[len(lead) :])
    return out


def doc_commands() -> list[tuple[str, list[str]]]:
    """(``page:line``, the arguments) of every cibench-lab command line or synopsis in the docs."""
    found = []
    for page in PAGES:
        for number, line in code_lines(page.read_text(encoding="utf-8")):
            for part in re.split(r"\s(?:\|\||&&|\||;)\s", line.strip()):
                if COMMAND.match(part):
                    where = f"{page.relative_to(ROOT)}:{number}"
                    found += [(where, argv) for argv in variants(part)]
    return found


COMMANDS = doc_commands()


def test_the_docs_have_command_lines_to_check():
    assert len(COMMANDS) >= 60, COMMANDS


@pytest.mark.parametrize(
    ("where", "argv"), COMMANDS, ids=[f"{where}:{shlex.join(argv)}" for where, argv in COMMANDS]
)
def test_a_documented_command_line_parses(where, argv, capsys):
    try:
        build_parser(argv).parse_args(argv)
    except SystemExit as stop:
        assert stop.code == 0, f"{where}: cibench-lab {shlex.join(argv)}: {capsys.readouterr().err.strip()}"
