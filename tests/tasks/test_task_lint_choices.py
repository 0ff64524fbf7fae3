"""The lint's rules for choices that change the graded answer (tasks/choices.py): a split by
fraction without its sizes or rounding, a fixed colour range, pandas' `.plot` or matplotlib's
`ax.plot` for a line of pandas data — refused by `tasks lint` and `tasks build` (no kernel)."""

from __future__ import annotations

import json

import pytest
from lintnb import SETUP, flags_of, notebook

from cibench_lab.cli import main
from cibench_lab.tasks.plotcode import read_notebook

pytestmark = pytest.mark.fast

DIGITS = (
    "import torch\nfrom torch.utils.data import TensorDataset, random_split\n"
    "dataset = TensorDataset(torch.zeros(1797, 1))"
)
RANDOM_SPLIT = (
    "train_set, test_set = random_split(dataset, [0.8, 0.2], generator=torch.Generator().manual_seed(0))\n"
    "print(len(test_set))"
)
SKLEARN_SPLIT = (
    "from sklearn.model_selection import train_test_split\n"
    "X_train, X_test = train_test_split(df, test_size={size}, random_state=0)\nprint(len(X_test))"
)
IMAGE = (
    "fig, ax = plt.subplots(figsize=(5, 5))\nax.imshow(img, cmap='gray'{extra})\nax.axis('off')\nplt.show()"
)
IMAGE_SETUP = (
    "import matplotlib.pyplot as plt\nimport numpy as np\nfrom skimage import data\nimg = data.camera()"
)
LINE = "s = df['b']\nfig, ax = plt.subplots(figsize=(8, 4))\n{draw}\nplt.show()"


def printed(instruction: str, code: str, setup: str = SETUP, language: str = "en") -> dict:
    """Load, then a num step that prints one number."""
    nb = notebook(instruction, code, setup=setup, language=language)
    nb["metadata"]["step_types"] = ["exec", "num"]
    nb["cells"][3]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "359\n"}]
    return nb


def kinds_of(nb: dict, language: str = "en") -> list[str]:
    split = "cibench_template_chinese" if language == "zh" else "cibench_template"
    return [f.kind for f in flags_of(nb, split=split)]


# --------------------------------------------------------------------------- split

SPLIT_STATED = [
    ("en", "Split it with `random_split(dataset, [0.8, 0.2], ...)`, seeded with 0. Print the test size."),
    ("en", "Split it 80/20 with `random_split` (seed 0): the fractions are rounded down, the leftover image "
     "goes to training. Print the test size."),
    ("en", "Split it with `random_split` (seed 0) into 1438 training and 359 test images. Print that size."),
    ("zh", "用 `random_split` 按 80%/20% 划分（种子为 0），每部分的大小向下取整。打印测试集的大小。"),
    ("zh", "用 `random_split` 划分出 1438 个训练样本和测试集 359 张图像（种子为 0）。打印测试集的大小。"),
]  # fmt: skip


def test_a_split_by_fraction_whose_rounding_is_not_stated_is_flagged():
    en = "Split it with `random_split` into 80% training and 20% test data (seed 0). Print the test size."
    nb = printed(en, RANDOM_SPLIT, setup=DIGITS)
    (flag,) = flags_of(nb)
    assert (flag.kind, flag.cell, flag.step) == ("split", 3, 1)
    assert flag.line().startswith(
        "cibench_template/pandas/t.ipynb:3: step 2: split: random_split splits by a fraction ([0.8, 0.2])"
    )
    zh = printed("用 `random_split` 划分出 80% 的训练数据和 20% 的测试数据（种子为 0）。打印测试集的大小。",
                 RANDOM_SPLIT, setup=DIGITS, language="zh")  # fmt: skip
    assert kinds_of(zh, "zh") == ["split"]


@pytest.mark.parametrize("language,instruction", SPLIT_STATED)
def test_a_split_whose_argument_sizes_or_rounding_are_stated_is_clean(language, instruction):
    assert kinds_of(printed(instruction, RANDOM_SPLIT, setup=DIGITS, language=language), language) == []


def test_train_test_split_needs_its_fraction_argument_as_written():
    code = SKLEARN_SPLIT.format(size="0.2")
    assert kinds_of(printed("Hold out 20% for testing with `train_test_split` (seed 0). Print the test rows.",
                            code)) == ["split"]  # fmt: skip
    assert kinds_of(printed("Split with `train_test_split(df, test_size=0.25, random_state=0)`.", code)) == [
        "split"
    ]  # 0.25 is not the reference's 0.2
    assert kinds_of(printed("Split with `train_test_split(df, test_size=0.2, random_state=0)`.", code)) == []
    # a count is no fraction: nothing to round
    assert (
        kinds_of(printed("Hold out 50 rows with `train_test_split`.", SKLEARN_SPLIT.format(size="50"))) == []
    )


# --------------------------------------------------------------------------- range


@pytest.mark.parametrize(
    "language,instruction,flagged",
    [
        ("en", "Show `img` in grey (colormap `gray`), axes hidden, size (5, 5).", True),
        ("en", "Show `img` in grey (colormap `gray`, over a fixed range), axes hidden, size (5, 5).", True),
        ("en", "Show `img` in grey (colormap `gray`, fixed range 0-255), axes hidden, size (5, 5).", False),
        ("en", "Show `img` in grey (`gray`, `vmin=0`, `vmax=255`), axes hidden, size (5, 5).", False),
        ("zh", "用灰度（colormap `gray`）显示 `img`，不显示坐标轴，大小为 (5, 5)。", True),
        ("zh", "用灰度（colormap `gray`，固定范围 0-255）显示 `img`，不显示坐标轴，大小为 (5, 5)。", False),
    ],
)  # fmt: skip
def test_a_fixed_colour_range_must_be_stated_with_its_bounds(language, instruction, flagged):
    nb = notebook(instruction, IMAGE.format(extra=", vmin=0, vmax=255"), setup=IMAGE_SETUP, language=language)
    assert ("range" in kinds_of(nb, language)) is flagged
    if flagged and language == "en":
        (flag,) = [f for f in flags_of(nb) if f.kind == "range"]
        assert flag.line().startswith("cibench_template/pandas/t.ipynb:3: step 2: range: ")
        assert "ax.imshow(vmin=, vmax=)" in flag.message


def test_set_clim_fixes_a_range_and_an_image_without_one_is_clean():
    plain = "Show `img` in grey (colormap `gray`) with the axes hidden, size (5, 5)."
    assert kinds_of(notebook(plain, IMAGE.format(extra=""), setup=IMAGE_SETUP)) == []
    clim = IMAGE.replace("ax.imshow(", "shown = ax.imshow(") + "\nshown.set_clim(0, 1)"
    assert kinds_of(notebook(plain, clim.format(extra=""), setup=IMAGE_SETUP)) == ["range"]


# --------------------------------------------------------------------------- plot_api

PLAIN_LINE = "Plot `s` as a line on an Axes of size (8, 4)."


@pytest.mark.parametrize(
    "draw,instruction,modules,flagged",
    [
        ("ax.plot(s.index, s)", PLAIN_LINE, ["pandas", "pandas & matplotlib"], True),
        ("ax.plot(s.index, s)", PLAIN_LINE, None, True),
        ("s.plot(ax=ax)", PLAIN_LINE, None, True),
        ("ax.plot(s.index, s)", PLAIN_LINE + " Draw it with matplotlib's `ax.plot`.", None, False),
        ("s.plot(ax=ax)", PLAIN_LINE + " Draw it with pandas' `Series.plot`.", None, False),
        ("ax.plot(s.index, s)", PLAIN_LINE, ["pandas", "matplotlib"], False),  # "Please use matplotlib"
        ("ax.plot(s.index, s)", "用 matplotlib 的 `ax.plot` 把 `s` 画成折线，大小为 (8, 4)。", None, False),
        # a NumPy array computed from the frame is not pandas data: pandas' .plot cannot draw it
        ("xs = np.linspace(s.min(), s.max(), 10)\nax.plot(xs, 2 * xs)", PLAIN_LINE, None, False),
        ("ax.plot(s.to_numpy())", PLAIN_LINE, None, False),
    ],
)  # fmt: skip
def test_a_line_of_pandas_data_must_say_which_function_draws_it(draw, instruction, modules, flagged):
    setup = SETUP + "\nimport numpy as np"
    nb = notebook(instruction, LINE.format(draw=draw), setup=setup)
    if modules:
        nb["metadata"]["modules"] = modules
    language = "zh" if "用" in instruction else "en"
    if language == "zh":
        nb["metadata"]["cibench_lab"]["language"] = "zh"
    split = "cibench_template_chinese" if language == "zh" else "cibench_template"
    found = [f for f in flags_of(nb, split=split) if f.kind == "plot_api"]
    assert bool(found) is flagged
    if flagged:
        assert found[0].line().startswith("cibench_template/pandas/t.ipynb:3: step 2: plot_api: a line drawn")


def test_an_optimizer_step_is_no_step_chart():
    (facts,) = read_notebook(["import torch\nopt = torch.optim.SGD([torch.zeros(1)], lr=0.1)\nopt.step()"])
    assert facts.families == {} and facts.drawers == {}
    (facts,) = read_notebook(
        ["import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.step([1, 2], [3, 4])"]
    )
    assert facts.families == {"line": "ax.step"}


# --------------------------------------------------------------------------- refused where the lint runs


def test_tasks_lint_and_the_build_refuse_each_rule_naming_the_file_the_cell_and_the_rule(tmp_path, capsys):
    from cibench_lab.authoring.build import BuildError, build

    cases = {
        "split": printed("Split it with `random_split` into 80% and 20% (seed 0). Print the test size.",
                         RANDOM_SPLIT, setup=DIGITS),
        "range": notebook("Show `img` in grey (colormap `gray`), axes hidden, size (5, 5).",
                          IMAGE.format(extra=", vmin=0, vmax=255"), setup=IMAGE_SETUP),
        "plot_api": notebook(PLAIN_LINE, LINE.format(draw="ax.plot(s.index, s)")),
    }  # fmt: skip
    modules = {"split": ["pytorch", "pytorch"], "range": ["matplotlib", "matplotlib"],
               "plot_api": ["pandas", "pandas & matplotlib"]}  # fmt: skip
    for rule, nb in cases.items():
        nb["metadata"]["modules"] = modules[rule]
        path = tmp_path / rule / "cibench_template" / "pandas" / f"{rule}.ipynb"
        path.parent.mkdir(parents=True)
        nb["metadata"]["kernelspec"] = {
            "name": "cibench-lab",
            "display_name": "CIBench",
            "language": "python",
        }
        path.write_text(json.dumps(nb), encoding="utf-8")
        assert main(["tasks", "lint", str(path)]) == 1
        out = capsys.readouterr().out
        assert f"{path}:3: step 2: {rule}: " in out and f"by kind: {rule} 1" in out
        with pytest.raises(BuildError, match=rf"{rule}\.ipynb:3: step 2: {rule}: "):
            build(path, tmp_path / "no-kernelspec", timeout=1, write=True)
