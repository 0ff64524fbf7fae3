"""`fair` reads the answer from the end of the output (issue 27): a dump cannot pass, a person's answer does —
alone, in a sentence, after other prints — and a text answer may be a sentence that names it (docs/grading.md,
"Read from the end")."""

from __future__ import annotations

import pytest

from cibench_lab.grading import TurnOutput, grade
from cibench_lab.grading.comparability import conditions, mismatches
from cibench_lab.grading.profile import VERSIONS
from cibench_lab.play.settings import PlaySettings
from cibench_lab.tasks.model import ReferenceOutput, Step

pytestmark = pytest.mark.fast

SEX = "Which sex group has the higher median total_bill? Print its name."
NORMAL = "Is `hwy` normal at the 5% level? Print `normal` if the p-value is at least 0.05, else `not normal`."
DAYS = "Which values of `day` have a mean `tip` above the overall mean of `tip`? Print them, space-separated."
HEAD = "   a    b\n0  0  0.0\n1  1  0.5\n2  2  1.0"


def rows(start: int) -> str:
    return "\n".join(f"{i}  {i}  {i / 2:.1f}" for i in range(start, 10_000))


def step(kind: str, target: str, instruction: str = "Print it.") -> Step:
    return Step(0, instruction, " ", "", (), ReferenceOutput("general", target), kind, (), instruction + "\n")


def fair(kind: str, target: str, out: str, instruction: str = "Print it."):
    turn = TurnOutput("x", [{"output_type": "stream", "name": "stdout", "text": out}])
    return grade(step(kind, target, instruction), [turn], "fair")


def dump(lo: int, hi: int, sep: str = " ") -> str:
    return sep.join(f"{k / 1000:.3f}" for k in range(lo, hi)) + "\n"


@pytest.mark.parametrize(
    "out",
    [
        dump(0, 150_000),  # every decimal at 3 places to 150, on one line (over 900 K characters)
        dump(130_000, 131_000),  # a short dump around the answer
        dump(130_000, 131_000, "\n"),  # one number per line: the answer is not the last thing printed
        "130.616\n" + dump(0, 50),  # the answer, then more numbers
        "[130.6, 130.61, 130.612, 130.614, 130.616, 130.618, 130.62]\n",  # a list of 7 guesses
    ],
)
def test_a_number_dump_fails(out):
    g = fair("num", "130.616\n", out)
    assert not g.passed and g.score == 0.0 and "130.616" not in g.detail


def test_the_badge_says_how_many_numbers_the_last_line_printed():
    assert fair("num", "130.616\n", dump(130_000, 131_000)).detail == (
        "expected a printed number; printed more than 4 numbers on one line where the answer has 1 "
        "(at most 4 are read)"
    )


@pytest.mark.parametrize(
    "out",
    [
        "130.616\n",
        "F statistic: 130.616\n",
        "F = 130.616 (p = 1.2e-45, df = 2, 231)\n",  # the answer in a sentence with other numbers
        "   a  b\n0  1  2\n1  3  4\n" * 20 + "130.616\n",  # df.head() printed before the answer
        "130.616\ndone\n",  # a line without numbers after it
        "x" * 2_000_000 + "\nF: 130.616\n",  # a long output: its end is read
    ],
)
def test_a_persons_number_passes(out):
    assert fair("num", "130.616\n", out).passed


def test_a_long_output_says_what_was_read():
    detail = fair("num", "42\n", "x" * 2_000_000 + "\n42\n").detail
    assert detail == "numbers matched (read the last 20,000 of 2,000,004 characters)"


def test_two_numbers_may_be_printed_on_two_lines():
    assert fair("num", "(150, 5)\n", "rows: 150\ncols: 5\n").passed
    assert not fair("num", "(150, 5)\n", dump(0, 200, "\n").replace("0.150", "150 5")).passed


@pytest.mark.parametrize(
    "out, ok",
    [
        ("[1, 2, 3]\n", True),
        ("The list: [1, 2, 3]\n", True),
        (str(list(range(100))) + "\n", False),  # every small integer: 1, 2, 3 among them
        ("1\n2\n3\n", True),
    ],
)
def test_a_list(out, ok):
    assert fair("num", "[1, 2, 3]\n", out).passed is ok


@pytest.mark.parametrize(
    "out, ok",
    [
        (HEAD + "\n", True),
        ("The first rows:\n" + HEAD.replace("  ", "     ") + "\n", True),  # a title, other column widths
        (HEAD + "\n(3, 2)\n", True),  # the shape printed after
        (HEAD + "\n" + rows(3) + "\n", False),  # every row of the frame: its head comes first
        ("   a    b\n" + rows(0) + "\n", False),
    ],
)
def test_a_table(out, ok):
    assert fair("general", HEAD + "\n", out).passed is ok


@pytest.mark.parametrize(
    "out, ok",
    [
        ("Male\n", True),
        ("Male has the higher median total_bill\n", True),
        ("The answer is: Male.\n", True),
        ("median total_bill by sex:\nFemale 16.2\nMale 18.4\nMale\n", True),  # other prints before it
        ("Female\n", False),
        ("Female has the higher median total_bill\n", False),  # "Male" is not a word of "Female"
        ("Female Male\n", False),  # every label
        ("Male Female\n", False),
        ("Male\nFemale\n", False),
        ("Male, not Female\n", False),
        ("男性\n", False),  # a translation is the judge's business
    ],
)
def test_a_name_in_a_sentence(out, ok):
    assert fair("text", "Male\n", out, SEX).passed is ok


def test_the_badge_says_what_it_looked_for_and_never_the_answer_on_a_miss():
    hit = fair("text", "Male\n", "Male has the higher median total_bill\n", SEX)
    assert hit.score == 1.0 and hit.detail == "looked for a name: Male; named on your last line"
    miss = fair("text", "Male\n", "Female Male\n", SEX)
    assert "Male" not in miss.detail and "looked for a name on your last line" in miss.detail
    translated = fair("text", "Male\n", "男性\n", SEX)
    assert "written as in the data (a translation is not read without a judge)" in translated.detail


@pytest.mark.parametrize(
    "target, out, ok",
    [
        ("not normal", "not normal\n", True),
        ("not normal", "hwy is not normal\n", True),
        ("not normal", "normal not normal\n", False),
        ("normal", "not normal\n", False),
        ("normal", "normal\n", True),
        ("normal", "hwy is normal\n", True),
    ],
)
def test_an_option_and_its_negation(target, out, ok):
    assert fair("text", target + "\n", out, NORMAL).passed is ok


@pytest.mark.parametrize(
    "out, ok",
    [("Sun\n", True), ("Thur Fri Sat Sun\n", False), ("Sun Sat Fri Thur\n", False), ("days: Sun\n", True)],
)
def test_a_worded_general_answer(out, ok):
    assert fair("general", "Sun\n", out, DAYS).passed is ok


def test_yes_and_no_are_never_words_beside_the_answer():
    q = "Is the mean above 3? Print True if it is, else False."
    assert not fair("text", "True\n", "True False\n", q).passed
    assert not fair("text", "否\n", "是 否\n", "均值是否大于 3？是则打印是，否则打印否。").passed
    assert fair("text", "True\n", "True\n", q).passed


def test_cibench_keeps_opencompass_rules():
    s = step("num", "130.616\n")
    turn = TurnOutput("x", [{"output_type": "stream", "name": "stdout", "text": "130.616 " + dump(0, 50)}])
    assert grade(s, [turn], "cibench").passed  # a substring of the first block, as OpenCompass
    assert not grade(s, [turn], "fair").passed


def test_the_fair_rules_version_is_raised_and_a_comparison_does_not_mix_them():
    assert VERSIONS["cibench"] == 1 and VERSIONS["fair"] >= 2  # 2: answers read from the end; 3: vis (below)
    settings = PlaySettings().for_player().as_dict()
    old, new = ({"profiles": {"cibench": 1, "fair": v}} for v in (1, 2))
    then = conditions("human", "e2e", settings, old, "h", [], "fair")
    now = conditions("openai:m", "e2e", settings, new, "h", [], "fair")
    assert "profile_version" in [m.field for m in mismatches([then], now)]
    person = conditions("human", "e2e", settings, old, "h", [], "cibench")
    model = conditions("openai:m", "e2e", settings, new, "h", [], "cibench")
    assert "profile_version" not in [m.field for m in mismatches([person], model)]
