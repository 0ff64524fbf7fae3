"""Hostile outputs give a grade or "ungradable: <reason>" within stated bounds; property tests.

Bounds (docs/grading.md, "Robustness"): every case below grades in < 5 s under
both profiles, never raises, and the 100 MB output costs no more than one extra
copy of itself in memory.
"""

from __future__ import annotations

import base64
import struct
import time
import tracemalloc
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_grading_fair import png, step

from cibench_lab.grading import TurnOutput, grade_all
from cibench_lab.grading.cjk import rouge1_cjk
from cibench_lab.grading.render import NO_OUTPUT, TRIM, _trim_pieces, render, trim
from cibench_lab.grading.values import match

pytestmark = pytest.mark.fast

BUDGET_S = 5.0


def png_header(w: int, h: int) -> str:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    raw = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0" * 99))
        + chunk(b"IEND", b"")
    )
    return base64.b64encode(raw).decode()


def display(b64: str) -> dict:
    return {"output_type": "display_data", "data": {"image/png": b64, "text/plain": "<Figure>"}}


def timed_grades(s, turns):
    start = time.perf_counter()
    grades = grade_all(s, turns)
    assert time.perf_counter() - start < BUDGET_S
    return grades


def test_100_mb_of_stdout():
    text = "x" * (100 * 1024 * 1024) + "\n42\n"
    turn = TurnOutput("spam", [{"output_type": "stream", "name": "stdout", "text": text}])
    tracemalloc.start()
    grades = timed_grades(step("num", "42\n"), [turn])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 1.2 * len(text)
    assert grades["cibench"]["score"] == 1.0  # the trim keeps the tail, where 42 is
    # fair reads the output's last 20,000 characters: the answer is read from the end
    assert grades["fair"]["passed"] and grades["fair"]["detail"].endswith(f"of {len(text):,} characters)")


def test_many_small_messages_render_in_linear_time():
    outputs = [{"output_type": "stream", "name": "stdout", "text": "x\n"}] * 200_000
    start = time.perf_counter()
    r = render(outputs, False)
    assert time.perf_counter() - start < 2.0 and len(r.text) == 1022


def test_broken_png():
    good = png(__import__("test_grading_fair").picture())
    turn = TurnOutput("plot", [display(good[: len(good) // 2])])
    grades = timed_grades(step("vis", good), [turn])
    assert grades["cibench"]["exec"] == 0.0  # the original interpreter's re-save fails the turn
    assert grades["fair"]["score"] == 0.0 and "could not be compared" in grades["fair"]["detail"]


@pytest.mark.parametrize("size", [20_000, 10_000])
def test_huge_png_headers_are_refused_before_decoding(size):
    turn = TurnOutput("plot", [display(png_header(size, size))])
    good = png(__import__("test_grading_fair").picture())
    grades = timed_grades(step("vis", good), [turn])
    assert grades["fair"]["ungradable"] and "too large" in grades["fair"]["ungradable"]
    if size == 20_000:  # beyond PIL's bomb limit: the original fails the turn
        assert grades["cibench"]["exec"] == 0.0
    else:  # below it the original would decode 100 Mpx; we do not
        assert grades["cibench"]["ungradable"] and "too large" in grades["cibench"]["ungradable"]


def test_binary_junk_ansi_and_odd_shapes():
    junk = "\x00\x01\ufffd\x7f\x1b[2J\x1b[31m 42 \x1b[0m"
    outputs = [
        {"output_type": "stream", "name": "stdout", "text": [junk, "\n"]},
        {"output_type": "stream", "text": None},
        {"output_type": "execute_result", "data": {"text/plain": ["4", "2"]}},
        {"output_type": "display_data", "data": {"image/png": "\x00\xff junk"}},
        {"output_type": "error", "traceback": ["\x1b[0;31mValueError\x1b[0m", 5]},
        {"output_type": "weird"},
        {},
    ]
    for kind, target in (("num", "42"), ("text", "42"), ("vis", png_header(5, 5)), ("exec", None)):
        grades = timed_grades(step(kind, target), [TurnOutput("junk", outputs, True, "error")])
        assert grades["cibench"]["exec"] == 0.0
    ok = outputs[:3]
    grades = timed_grades(step("num", "42"), [TurnOutput("junk", ok)])
    assert grades["cibench"]["score"] == 1.0 and grades["fair"]["score"] == 1.0


def test_nan_and_inf():
    for ref, pred, ok in (("nan", "nan", 1.0), ("inf", "-inf", 0.0), ("1.5", "nan", 0.0)):
        turn = TurnOutput("x", [{"output_type": "stream", "name": "stdout", "text": pred + "\n"}])
        assert timed_grades(step("num", ref), [turn])["fair"]["score"] == ok


def test_timeout_and_dead_kernel_turns():
    for status in ("timeout", "dead"):
        interrupt = {"output_type": "error", "ename": "KeyboardInterrupt", "evalue": "", "traceback": ["KI"]}
        out = [{"output_type": "stream", "name": "stdout", "text": "1\n"}, interrupt]
        r = render(out, True, status)
        assert not r.succeed and r.errmsg.endswith("Timeout. No response after None seconds.\n```")
        assert "KI" not in r.errmsg


# ---- properties ---------------------------------------------------------------------------------

streams = st.lists(
    st.fixed_dictionaries(
        {
            "output_type": st.sampled_from(["stream", "execute_result", "display_data", "error"]),
            "name": st.sampled_from(["stdout", "stderr"]),
            "text": st.text(max_size=700),
            "data": st.fixed_dictionaries({"text/plain": st.text(max_size=300)}),
            "traceback": st.lists(st.text(max_size=200), max_size=3),
        }  # fmt: skip
    ),
    max_size=8,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams)
def test_render_is_bounded_and_never_raises(outputs):
    r = render(outputs, False)
    text = r.text if r.succeed else r.errmsg
    assert len(text) <= TRIM
    if r.succeed:
        assert text == NO_OUTPUT or text


@given(st.lists(st.text(max_size=600), max_size=12), st.integers(min_value=10, max_value=2000))
def test_trim_from_pieces_equals_trim_of_the_whole(pieces, limit):
    assert _trim_pieces(pieces, limit) == trim("".join(pieces), limit)


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6), st.integers(1, 6))
def test_a_more_precise_print_matches_its_rounding(x, d):
    ref = f"{x:.{d}f}"  # d >= 1: an integer-looking reference needs an equal value (documented)
    assert match(repr(x), ref)[0]


@given(st.integers(min_value=1, max_value=999), st.integers(min_value=0, max_value=10**6))
def test_a_number_never_matches_inside_a_longer_one(prefix, n):
    assert not match(f"{prefix}{n}", str(n))[0]


@given(st.text(max_size=80), st.text(max_size=80))
def test_cjk_rouge_is_a_symmetric_f_score(a, b):
    value = rouge1_cjk(a, b)
    assert 0.0 <= value <= 1.0 and value == pytest.approx(rouge1_cjk(b, a))
    assert rouge1_cjk(a, a) == 1.0


@settings(max_examples=60, deadline=None)
@given(streams, st.sampled_from(["num", "text", "general", "exec"]), st.text(max_size=40), st.booleans())
def test_grades_are_in_range_whatever_the_outputs(outputs, kind, target, error):
    grades = grade_all(step(kind, target), [TurnOutput("x", outputs, error, "error" if error else "ok")])
    for g in grades.values():
        assert g["tool"] == 1.0 and g["exec"] in (0.0, 1.0)
        assert g["score"] is None if kind == "exec" else 0.0 <= g["score"] <= 1.0
