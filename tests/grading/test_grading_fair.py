"""The `fair` profile, case by case (docs/grading.md)."""

from __future__ import annotations

import base64
import io

import numpy as np
import pytest
from PIL import Image
from test_grading_golden import CORPUS, step_of, turns_of

from cibench_lab.grading import PROFILES, TurnOutput, grade, grade_all
from cibench_lab.grading.cjk import rouge1_cjk
from cibench_lab.grading.fair import Printed, last_output
from cibench_lab.grading.fair_vis import fair_ssim
from cibench_lab.grading.values import asked_decimals, match
from cibench_lab.tasks.model import ReferenceOutput, Step

pytestmark = pytest.mark.fast

CASE = {c["id"]: c for c in CORPUS}


def step(kind: str, target: str | None, instruction: str = "Do it.") -> Step:
    ref = ReferenceOutput("vis" if kind == "vis" else "general", target)
    return Step(0, instruction, " ", "", (), ref, kind, (), instruction + "\n")


def printed(*texts: str) -> TurnOutput:
    return TurnOutput("x", [{"output_type": "stream", "name": "stdout", "text": t} for t in texts])


@pytest.mark.parametrize(
    "pred, ref, asked, ok",
    [
        ("15", "5", None, False),  # token boundaries: no match inside a longer number
        ("x5 and 1.5", "5", None, False),
        ("The answer is 5.", "5", None, True),
        ("0.8333333333333334", "0.8333", None, True),  # rounds to the reference's precision
        ("0.8333", "0.833333", 4, True),  # the step asked for 4 decimals
        ("0.8333", "0.833333", None, False),
        ("0.83", "0.833333", 4, False),
        ("42.0", "42", None, True),
        ("42.4", "42", None, False),  # an integer reference needs an equal value
        ("1e-05", "0.00001", None, True),
        ("nan", "nan", None, True),
        ("inf", "-inf", None, False),
        ("shape: (150, 5)", "(150, 5)", None, True),
        ("(5, 150)", "(150, 5)", None, False),
        ("['setosa', 'virginica']", '["setosa", "virginica"]', None, True),  # quotes do not matter
        ("virginica", "setosa", None, False),
    ],
)
def test_numbers_on_token_boundaries(pred, ref, asked, ok):
    assert match(pred, ref, asked)[0] is ok


def test_tables_compare_as_values():
    ref = "   a    b\n0  0  0.0\n1  1  0.5"
    assert match("      a        b\n0     0   0.00\n1     1   0.50", ref) == (True, "table")
    assert match("   a    b\n0  0  0.0\n1  1  0.6", ref) == (False, "table")
    assert match("   a    c\n0  0  0.0\n1  1  0.5", ref) == (False, "table")  # labels count
    assert match("array([[0. , 0. ],\n       [1. , 0.5]])", "[[0.  0. ]\n [1.  0.5]]")[0]


@pytest.mark.parametrize(
    "text, n",
    [("Round to 4 decimal places.", 4), ("two decimals", 2), ("结果保留3位小数", 3), ("print it", None)],
)
def test_asked_decimals(text, n):
    assert asked_decimals(text) == n


def test_fair_uses_the_instruction_precision():
    s = step("num", "0.833333\n", "Print the ratio rounded to 4 decimal places.")
    assert grade(s, [printed("0.8333\n")], "fair").score == 1.0
    assert grade(s, [printed("0.8333\n")], "cibench").score == 0.0


def test_cjk_rouge():
    assert rouge1_cjk("数据集有三列和十行", "数据集有三列和十行") == 1.0
    assert rouge1_cjk("数据集有三列", "数据集有三列和十行") == pytest.approx(0.8)
    assert rouge1_cjk("", "") == 1.0 and rouge1_cjk("abc", "") == 0.0
    assert rouge1_cjk("The Cat", "the cat") == 1.0


def test_last_output_merges_stream_chunks_and_prefers_the_last():
    outs = [
        {"output_type": "stream", "name": "stdout", "text": "first\n"},
        {"output_type": "stream", "name": "stderr", "text": "warn\n"},
        {"output_type": "stream", "name": "stdout", "text": "hello world"},
        {"output_type": "stream", "name": "stdout", "text": "\n"},
    ]
    assert last_output(outs) == Printed("hello world\n", 12)
    result = {"output_type": "execute_result", "data": {"text/plain": "7"}}
    assert last_output([*outs, result]) == Printed("7", 1)
    assert last_output([{"output_type": "display_data", "data": {"text/plain": "'42'"}}]) is None


@pytest.mark.parametrize(
    "cid, cibench, fair",
    [
        ("num_contained", 1.0, 0.0),  # "5" inside "15"
        ("num_trim_middle", 0.0, 1.0),  # the 1,024-character trim cut the answer
        ("num_prints_split", 0.0, 1.0),  # first stdout block vs last output
        ("text_warning_first", 0.0, 1.0),  # a stderr block came first
        ("text_chinese", 0.0, 1.0),  # rouge-score's tokenizer drops CJK
        ("vis_rgb_vs_rgba", 0.0, None),  # channel mismatch: 0 officially, compared on RGB here
        ("vis_none_latest", 0.0, 1.0),  # the latest successful turn had no image
    ],
)
def test_where_fair_and_cibench_disagree(cid, cibench, fair):
    grades = grade_all(step_of(CASE[cid]), turns_of(CASE[cid]))
    assert set(grades) == set(PROFILES) == {"cibench", "fair"}
    assert grades["cibench"]["score"] == pytest.approx(cibench, abs=1e-6)
    if fair is None:
        assert 0.0 < grades["fair"]["score"] < 1.0
    else:
        assert grades["fair"]["score"] == fair
    assert grades["fair"]["profile"] == "fair" and grades["cibench"]["profile"] == "cibench"


def png(arr: np.ndarray, mode: str | None = None) -> str:
    buf = io.BytesIO()
    Image.fromarray(arr, mode=mode).save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode()


def picture(h: int = 60, w: int = 80) -> np.ndarray:
    img = np.full((h, w, 3), 255, np.uint8)
    img[h // 4 : h // 2, w // 4 : w // 2] = (200, 30, 30)
    img[h // 2 :, w // 2 :] = (20, 20, 160)
    return img


def test_fair_ssim_rgb_grey_alpha_and_identity():
    rgb = picture()
    rgba = np.dstack([rgb, np.full(rgb.shape[:2], 255, np.uint8)])
    assert fair_ssim(png(rgb), png(rgb)) == 1.0
    assert fair_ssim(png(rgba), png(rgb)) == pytest.approx(1.0, abs=1e-9)
    grey = np.asarray(Image.fromarray(rgb).convert("L"))
    assert fair_ssim(png(grey), png(np.dstack([grey] * 3))) == pytest.approx(1.0, abs=1e-9)


def test_fair_ssim_keeps_the_aspect_ratio():
    ref = picture(60, 80)
    wider = np.full((60, 160, 3), 255, np.uint8)
    wider[:, 40:120] = ref  # the same figure with white margins left and right
    padded = np.full((120, 160, 3), 255, np.uint8)
    padded[30:90] = wider  # scaled by letterboxing: 120x160 has the reference's 3:4
    assert fair_ssim(png(wider), png(ref)) < fair_ssim(png(picture(120, 160)), png(ref))
    assert fair_ssim(png(picture(120, 160)), png(ref)) > 0.95


def test_fair_tiny_images_compare():
    assert fair_ssim(png(picture(5, 5)), png(picture(5, 5))) == 1.0
    assert 0.0 <= fair_ssim(png(picture(2, 2)), png(picture(2, 3))) <= 1.0
