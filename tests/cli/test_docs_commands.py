"""Every `cibench-lab …` command line in the docs' code blocks parses with the real argument parser: a
guide whose command the CLI refuses ("unrecognized arguments") fails here, not in front of a teacher. Every
``CIBenchLabApp.X`` the docs name is a real option of the server, and every ``--CIBenchLabApp.X=VALUE`` they
write with a plain value is one the server accepts.

A synopsis (``cibench-lab tasks list [--json] [--lang en|zh]``) is checked as its plain form and as the plain
form with each ``[…]`` part added in turn (the first of ``a|b`` alternatives; ``…`` and ``...`` dropped)."""

from __future__ import annotations

import re
import shlex

import pytest
from docpages import PAGES, ROOT

from cibench_lab.cli import build_parser

pytestmark = pytest.mark.fast

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


OPTION = re.compile(r"CIBenchLabApp\.(\w+)(?:=([^\s`),;]+))?")
PLAIN_VALUE = re.compile(r"^[\w./:+-]+$")  # not a placeholder (`<option>`, `$PWD/…`, `{TASKS_DIR}`, `…`)


def doc_options() -> list[tuple[str, str, str | None]]:
    """(``page:line``, the option's name, its plain value or None) of each ``CIBenchLabApp.X`` in the docs."""
    found = []
    for page in PAGES:
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for name, value in OPTION.findall(line):
                if name.isupper() or name == "_":  # a placeholder: NAME, VALUE
                    continue
                value = value.strip("'\"")
                plain = value if value and PLAIN_VALUE.match(value) and value != "VALUE" else None
                found.append((f"{page.relative_to(ROOT)}:{number}", name, plain))
    return found


OPTIONS = doc_options()


def test_the_docs_name_only_real_server_options():
    from cibench_lab.app.extension import CIBenchLabApp

    real = set(CIBenchLabApp.class_traits(config=True))
    unknown = [f"{where}: CIBenchLabApp.{name}" for where, name, _ in OPTIONS if name not in real]
    assert len(OPTIONS) >= 40, OPTIONS
    assert not unknown, unknown


def test_the_docs_option_values_are_accepted():
    from traitlets.config.loader import KVArgParseConfigLoader

    from cibench_lab.app.extension import CIBenchLabApp

    valued = [(where, f"--CIBenchLabApp.{name}={value}") for where, name, value in OPTIONS if value]
    assert len(valued) >= 8, valued
    refused = []
    for where, option in valued:
        config = KVArgParseConfigLoader(argv=[option], classes=[CIBenchLabApp]).load_config()
        try:
            CIBenchLabApp(config=config)
        except Exception as err:  # a TraitError, in the server's words
            refused.append(f"{where}: {option}: {err}")
    assert not refused, refused
