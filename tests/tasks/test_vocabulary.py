"""The play vocabulary is spelled once (tasks/vocabulary.py): the API document, the server's options,
``run --mode`` and the outcomes' words all say the same words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cibench_lab.app.extension import CIBenchLabApp
from cibench_lab.cli import build_parser
from cibench_lab.grading.outcomes import outcome_word
from cibench_lab.tasks.vocabulary import ACTIONS, GRADE_RULES, MODES, NEXTS, OUTCOMES, REVEALS, as_mode

pytestmark = pytest.mark.fast
OPENAPI = Path(__file__).parent.parent.parent / "docs" / "openapi.json"


def test_the_api_document_says_the_vocabulary():
    schemas = json.loads(OPENAPI.read_text())["components"]["schemas"]
    for name, words in (
        ("Mode", MODES),
        ("Reveal", REVEALS),
        ("GradeRule", GRADE_RULES),
        ("Action", ACTIONS),
        ("Next", NEXTS),
    ):
        assert schemas[name]["enum"] == list(words), name


def test_options_and_the_command_line_take_its_words():
    traits = CIBenchLabApp.class_traits()
    assert traits["reveal"].values == list(REVEALS)
    assert traits["grade_rule"].values == list(GRADE_RULES)
    args = build_parser(["run"]).parse_args(["run", "--player", "reference", "--mode", "oracle"])
    assert args.mode == "oracle"
    with pytest.raises(SystemExit):
        build_parser(["run"]).parse_args(["run", "--player", "reference", "--mode", "end-to-end"])


def test_every_outcome_has_its_words():
    # CIBench's outcomes in grading/outcomes.py, a benchmark's own in its grading rules
    assert [o for o in OUTCOMES if outcome_word(o) == o] == []


def test_a_stored_mode_is_read_as_one_of_its_words():
    assert [as_mode(word) for word in MODES] == list(MODES)
    with pytest.raises(ValueError, match="'end-to-end' is not one of e2e, oracle"):
        as_mode("end-to-end")
