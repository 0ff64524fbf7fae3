"""The `cibench` profile reproduces OpenCompass's original evaluator and interpreter exactly.

tests/fixtures/golden/corpus.json holds our turns (real kernel outputs, plus a few
synthetic hostile ones); expected.json holds what OpenCompass's own
CIBenchEvaluator (valid_step, correct_step, text_step, vis_similarity_step with
its HF-evaluate ROUGE) and IPythonInterpreter rendering produced for them in a
throwaway environment (docs/grading.md, "Golden values").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cibench_lab.grading import TurnOutput, grade
from cibench_lab.grading.render import render
from cibench_lab.tasks.model import ReferenceOutput, Step

pytestmark = pytest.mark.fast

GOLDEN = Path(__file__).parent.parent / "fixtures" / "golden"
CORPUS = json.loads((GOLDEN / "corpus.json").read_text())["cases"]
EXPECTED = json.loads((GOLDEN / "expected.json").read_text())["cases"]
IDS = [c["id"] for c in CORPUS]


def step_of(case: dict) -> Step:
    target = case["target"]
    ref_kind = "exec" if target is None else "vis" if case["kind"] == "vis" else "general"
    return Step(
        index=0,
        instruction="golden case",
        thought=" ",
        code="",
        outputs=(),
        reference=ReferenceOutput(ref_kind, target),
        kind=case["kind"],
        modules=(),
        prompt="golden case\n",
    )


def turns_of(case: dict) -> list[TurnOutput]:
    return [TurnOutput(t["code"], t["outputs"], t["error"], t["status"]) for t in case["turns"]]


def test_corpus_covers_the_issue_list():
    notes = " ".join(c["note"] for c in CORPUS)
    for must in (
        "several prints",
        "stderr before stdout",
        "error then success",
        "two images",
        "RGB",
        "grey",
        "Chinese",
        "no output",
        "DataFrame",
        "longer number",
        "timeout",
        "trim",
    ):
        assert must in notes, must
    assert len(CORPUS) == len(EXPECTED) >= 50


@pytest.mark.parametrize("case", CORPUS, ids=IDS)
def test_cibench_profile_scores_like_the_original(case):
    expected = EXPECTED[case["id"]]
    got = grade(step_of(case), turns_of(case), "cibench")
    assert (got.tool, got.exec) == (expected["tool"], expected["exec"])
    if expected["score"] is None:
        assert got.score is None
    elif case["kind"] == "vis":
        assert got.score == pytest.approx(expected["score"], abs=1e-9)
    else:
        assert got.score == expected["score"]  # exact, ROUGE's x100/100 included


@pytest.mark.parametrize("case", CORPUS, ids=IDS)
def test_rendering_is_the_original_interpreters(case):
    for turn, action in zip(case["turns"], EXPECTED[case["id"]]["actions"], strict=True):
        r = render(turn["outputs"], turn["error"], turn["status"])
        if action["text"] is not None:
            assert r.succeed and r.text == action["text"]
            assert len(r.images) == action["n_images"]
        elif r.tool:
            assert not r.succeed and repr(r.errmsg) == action["errmsg"]
        else:
            assert action["errmsg"] == r.errmsg  # NoAction's message, not repr'd


def test_golden_details_never_reveal_the_reference():
    for case in CORPUS:
        target = (case["target"] or "").strip()
        if case["kind"] == "vis" or len(target) < 4:
            continue
        for profile in ("cibench", "fair"):
            detail = grade(step_of(case), turns_of(case), profile).detail
            assert target not in detail, (case["id"], profile)
