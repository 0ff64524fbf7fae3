"""The task lint on crafted tasks: unstated plot elements, placeholders, modules, declarations;
English and Chinese (no kernel; the CLI, build and import: test_task_lint_cli.py)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lintnb import BASE_CODE, BASE_EN, BASE_ZH, SETUP, flags_of, kinds, notebook
from nbcells import md, stdout

from cibench_lab.tasks.authoring import plot_elements
from cibench_lab.tasks.library import TaskLibrary, builtin_dir
from cibench_lab.tasks.lint import lint_task
from cibench_lab.tasks.plotcode import read_notebook

pytestmark = pytest.mark.fast

# element, the reference's extra line, the English words that name it, the Chinese ones
ELEMENT_CASES = [
    ("title", "ax.set_title('Totals')", " Title it `Totals`.", "标题为 `Totals`。"),
    ("x_label", "ax.set_xlabel('a')\nax.set_ylabel('total')", " Label the axes `a` and `total`.",
     "坐标轴分别标注为 `a` 和 `total`。"),
    ("y_label", "ax.set_xlabel('a')\nax.set_ylabel('total')", " Label the axes `a` and `total`.",
     "坐标轴分别标注为 `a` 和 `total`。"),
    ("x_label", "ax.set_xlabel('a')", " Put `a` on the x axis, limited to 0-9 and labelled `a`.",
     "x 轴标注为 `a`。"),
    ("y_label", "ax.set_ylabel('total')", " Label the y axis `total`.", "纵轴标注为 `total`。"),
    ("y_label", "g = sns.FacetGrid(df)\ng.set_axis_labels('a', 'total')",
     " Label the x and y axes `a` and `total`.", "x 轴和 y 轴分别标注为 `a` 和 `total`。"),
    ("legend", "ax.legend(['b'])", " Add a legend.", "加上图例。"),
    ("colors", "ax.bar(df['a'], df['b'], color='red')", " Colour the bars red.", "柱子用红色。"),
    ("colorbar", "fig.colorbar(ax.imshow([[1, 2]]), ax=ax)", " Show the array `[[1, 2]]` with a colour bar.",
     "再显示数组 `[[1, 2]]` 并加上颜色条。"),
    ("ticks", "ax.tick_params(axis='x', labelrotation=45)", " Rotate the x tick labels by 45 degrees.",
     "x 轴刻度标签旋转 45 度。"),
    ("ticks", "ax.axis('off')", " Hide the axes.", "不显示坐标轴。"),
    ("ticks", "ax.set_yscale('log')", " Use a log scale on the y axis.", "y 轴使用对数刻度。"),
    ("figsize", "fig.set_size_inches(6, 4)", " Make the figure 6 by 4 inches.", "图的大小为 (6, 4)。"),
    ("chart_type", "ax.axhline(0)", " Add a horizontal line at 0.", "在 0 处画一条水平线。"),
]  # fmt: skip


@pytest.mark.parametrize(
    "element,extra,en,zh", ELEMENT_CASES, ids=[f"{c[0]}:{c[1][:18]}" for c in ELEMENT_CASES]
)
def test_each_element_the_reference_sets_must_be_named(element, extra, en, zh):
    plot = BASE_CODE.format(extra=extra)
    assert element in kinds(notebook(BASE_EN, plot))
    assert element in kinds(notebook(BASE_ZH, plot, language="zh"), split="cibench_template_chinese")
    assert element not in kinds(notebook(BASE_EN + en, plot))
    assert element not in kinds(notebook(BASE_ZH + zh, plot, language="zh"), split="cibench_template_chinese")


def test_a_flag_names_the_file_the_code_cell_the_step_shown_1_based_and_the_element():
    (flag,) = [
        f
        for f in flags_of(notebook(BASE_EN, BASE_CODE.format(extra="ax.set_title('T')")))
        if f.kind == "title"
    ]
    assert (flag.cell, flag.step) == (3, 1)
    assert flag.line() == (
        "cibench_template/pandas/t.ipynb:3: step 2: title set by the reference (ax.set_title) "
        "but not named by the instruction"
    )


def test_a_plain_figure_whose_instruction_says_everything_is_clean():
    plot = (
        "fig, ax = plt.subplots(figsize=(6, 4))\nax.bar(df['a'], df['b'], color='tab:green')\n"
        "ax.set_title('Totals')\nax.set_xlabel('a')\nax.set_ylabel('b')\nplt.show()"
    )
    en = (
        "Draw a green bar chart of `b` per `a` in a figure of size (6, 4), titled `Totals`, "
        "axes labelled `a` and `b`."
    )
    assert flags_of(notebook(en, plot)) == []
    zh = "画出 `b` 按 `a` 的绿色柱状图，图的大小为 (6, 4)，标题为 `Totals`，坐标轴分别标注为 `a` 和 `b`。"
    assert flags_of(notebook(zh, plot, language="zh"), split="cibench_template_chinese") == []


@pytest.mark.parametrize(
    "plot,instruction,flagged",
    [
        # the title is named but its text is not given
        ("ax.set_title('Totals')", " Give it a title.", "title text 'Totals'"),
        # colours are named, but not which
        (
            "ax.bar(df['a'], df['b'], color=['tab:red', 'tab:blue'])",
            " One colour per bar.",
            "'tab:red', 'tab:blue'",
        ),
        # a reversed colormap is not the plain one
        ("ax.imshow([[1, 2]], cmap='gray_r')", " Show `[[1, 2]]` in grey.", "'gray_r'"),
        ("df.plot.bar(x='a', y='b', color=['r', 'k'])", " Colour the bars red and blue.", "'black'"),
        # legend entries, whole words only ('test' is not given by `test_losses`)
        (
            "ax.plot([1], label='test')\nax.legend()",
            " Plot `test_losses` too, with a legend.",
            "legend text 'test'",
        ),
        ("ax.legend(['totals'])", " Add a legend.", "legend text 'totals'"),
        # a colour bar's label
        (
            "fig.colorbar(ax.imshow([[1]]), label='count')",
            " Show `[[1]]` with a colour bar.",
            "colorbar text 'count'",
        ),
    ],
)
def test_a_named_element_whose_value_is_not_given_is_flagged(plot, instruction, flagged):
    messages = [f.message for f in flags_of(notebook(BASE_EN + instruction, BASE_CODE.format(extra=plot)))]
    assert any(flagged in m for m in messages), messages


def test_text_made_at_run_time_is_not_checked():
    plot = BASE_CODE.format(extra="ax.axhline(1, label=f'median {1.5:.1f}')\nax.legend()")
    instruction = BASE_EN + " Add a horizontal line at 1 labelled with the median in a legend."
    assert flags_of(notebook(instruction, plot)) == []


def test_grayscale_gives_the_grey_colormap_but_not_its_reverse():
    plot = BASE_CODE.format(extra="ax.imshow([[1, 2]], cmap='gray')")
    assert "colors" not in kinds(notebook(BASE_EN + " Show `[[1, 2]]` in grayscale.", plot))
    assert "colors" not in kinds(
        notebook(BASE_ZH + "以灰度显示 `[[1, 2]]`。", plot, language="zh"), split="cibench_template_chinese"
    )
    plot = BASE_CODE.format(extra="ax.imshow([[1, 2]], cmap='gray_r')")
    assert "colors" in kinds(notebook(BASE_EN + " Show `[[1, 2]]` in grayscale.", plot))


def test_a_named_element_whose_value_is_given_is_clean():
    plot = (
        "ax.plot([1], label='test')\nax.legend(title='split')\nfig.colorbar(ax.imshow([[1]]), label='count')"
    )
    instruction = (
        " Plot `[1]` as a line with the legend entry `test` and a legend titled `split`;"
        " show `[[1]]` with a colour bar labelled `count`."
    )
    assert flags_of(notebook(BASE_EN + instruction, BASE_CODE.format(extra=plot))) == []


@pytest.mark.parametrize(
    "plot,instruction,element",
    [
        ("df.plot.bar(x='a', y='b', rot=0)", "Draw a bar chart of `b` per `a` with pandas.", "ticks"),
        ("df.plot(x='a', y='b', title='B', legend=False)", "Plot `b` against `a` with pandas.", "title"),
        ("df.plot(x='a', y='b', legend=False)", "Plot `b` against `a` with pandas.", "legend"),
        (
            "sns.histplot(data=df, x='b', hue='a', palette='Set2')",
            "Draw a histogram of `b` split by `a`.",
            "colors",
        ),
        (
            "g = sns.catplot(data=df, x='a', y='b', kind='box', height=3)",
            "Draw box plots of `b` per `a`.",
            "figsize",
        ),
        ("plt.subplots(figsize=(5, 5))[1].scatter(df['a'], df['b'])", "Scatter `b` against `a`.", "figsize"),
        ("ax = df.plot.scatter(x='a', y='b', xlabel='A')", "Scatter `b` against `a`.", "x_label"),
        ("ax.set(ylabel='B')", "Draw a bar chart of `b` per `a`.", "y_label"),
        ("ax.set(title='T', xlabel='a')", "Draw a bar chart of `b` per `a`.", "title"),
        ("plt.xticks(rotation=45)", "Draw a bar chart of `b` per `a`.", "ticks"),
        ("g = sns.FacetGrid(df, col='c')\ng.map(plt.hist, 'b')", "Draw bars of `b` per `c`.", "chart_type"),
        ("plt.rcParams['figure.figsize'] = (8, 3)", "Draw a bar chart of `b` per `a`.", "figsize"),
    ],
)
def test_pandas_and_seaborn_calls_set_elements_too(plot, instruction, element):
    assert element in kinds(notebook(instruction, plot + "\nplt.show()"))


def test_axis_labels_are_not_named_by_labels_of_something_else():
    plot = BASE_CODE.format(extra="ax.set_xlabel('a')\nax.axis('off')")
    assert "x_label" in kinds(notebook(BASE_EN + " (No axes) with the labels as titles.", plot))


def test_chinese_axis_labels_are_named_only_by_words_about_the_axes():
    plot = BASE_CODE.format(extra="ax.set_xlabel('a')\nax.axis('off')")
    named = BASE_ZH + "x 轴标注为 `a`，不显示坐标轴。"
    not_named = BASE_ZH + "（不显示坐标轴），子图的标题为 `a`。"
    assert "x_label" not in kinds(notebook(named, plot, language="zh"), split="cibench_template_chinese")
    assert "x_label" in kinds(notebook(not_named, plot, language="zh"), split="cibench_template_chinese")


@pytest.mark.parametrize(
    "instruction,language,named",
    [
        (" Label the y axis `total`.", "en", {"y_label"}),
        (" Put `a` on the x axis, labelled `a`.", "en", {"x_label"}),
        (" Label the x axis `a` and the y axis `total`.", "en", {"x_label", "y_label"}),
        (" Label the axes `a` and `total`.", "en", {"x_label", "y_label"}),
        (" With the x label `a` and the y label `total`.", "en", {"x_label", "y_label"}),
        ("y 轴标注为 `total`。", "zh", {"y_label"}),
        ("横坐标标注为 `a`。", "zh", {"x_label"}),
        ("坐标轴分别标注为 `a` 和 `total`。", "zh", {"x_label", "y_label"}),
    ],
)
def test_each_axis_label_is_named_on_its_own_and_declared_as_named(instruction, language, named):
    plot = BASE_CODE.format(extra="ax.set_xlabel('a')\nax.set_ylabel('total')")
    text = (BASE_EN if language == "en" else BASE_ZH) + instruction
    split = "cibench_template" if language == "en" else "cibench_template_chinese"
    flagged = kinds(notebook(text, plot, language=language), split=split)
    assert {"x_label", "y_label"} - flagged == named
    facts = read_notebook([SETUP, plot])[1]
    assert {"x_label", "y_label"} & set(plot_elements(text, facts)) == named


def test_an_old_axis_labels_declaration_declares_both_labels():
    plot = BASE_CODE.format(extra="ax.set_xlabel('a')\nax.set_ylabel('total')")
    only_y = BASE_EN + " Label the x axis `a`. Label the y axis `total`."
    assert "declared" not in kinds(notebook(only_y, plot, plot_elements={"1": ["axis_labels"]}))
    flags = flags_of(
        notebook(BASE_EN + " Label the y axis `total`.", plot, plot_elements={"1": ["axis_labels"]})
    )
    assert [f.message for f in flags if f.kind == "declared"] == [
        "declared element x_label is not named by the instruction"
    ]


def test_seaborn_hue_is_named_by_the_column_it_splits_on():
    plot = "sns.boxplot(data=df, x='a', y='b', hue='c')\nplt.show()"
    assert "colors" not in kinds(notebook("Draw box plots of `b` per `a`, split by `c`.", plot))
    assert "colors" in kinds(notebook("Draw box plots of `b` per `a`.", plot))


def test_a_style_set_in_an_earlier_step_must_be_said_there():
    nb = notebook(BASE_EN, BASE_CODE.format(extra=""), setup=SETUP + "\nsns.set_theme()")
    assert "style" in kinds(nb, step=0)
    nb["cells"][0] = md("Load `data/x.csv` into `df` and set seaborn's default theme.")
    assert "style" not in kinds(nb, step=0)
    nb = notebook(BASE_EN, BASE_CODE.format(extra="plt.style.use('ggplot')"))
    assert "style" in kinds(nb)


@pytest.mark.parametrize(
    "instruction,found",
    [
        ("Train without the columns []; then plot.", "[]"),
        ("Plot {{column}} against `a`.", "{{column}}"),
        ("Plot {column} against `a`.", "{column}"),
        ("Title it '' and plot.", "''"),
        ("以 `a` 为横轴作图，标题为“”。", "“”"),
        ("Group by () and plot.", "()"),
    ],
)
def test_template_placeholders_left_in_an_instruction_are_flagged(instruction, found):
    flags = [
        f for f in flags_of(notebook(instruction, BASE_CODE.format(extra=""))) if f.kind == "placeholder"
    ]
    assert flags and found in flags[0].message and flags[0].cell == 2


@pytest.mark.parametrize(
    "instruction",
    [
        "Draw a bar chart of `b` per `a` (call `df.head()` first).",
        "Build `keras.Input(shape=())` and draw a bar chart of `b` per `a`.",
        "Draw a bar chart of `b` per `a`; join the names with `''.join`.",
        "Draw a bar chart of `b` per `a` titled `drv = <value>`.",
    ],
)
def test_code_spans_are_not_placeholders(instruction):
    assert "placeholder" not in kinds(notebook(instruction, BASE_CODE.format(extra="")))


@pytest.mark.parametrize(
    "plot,modules,flagged",
    [
        ("fig, ax = plt.subplots()\nax.bar(df['a'], df['b'])", "pandas", "draws with matplotlib"),
        ("fig, ax = plt.subplots()\nax.bar(df['a'], df['b'])", "seaborn", "draws with matplotlib"),
        ("df.plot.bar(x='a', y='b')", "matplotlib", "draws with pandas"),
        ("sns.barplot(data=df, x='a', y='b')", "matplotlib", "draws with seaborn"),
        ("fig, ax = plt.subplots()\nax.bar(df['a'], df['b'])", "sklearn", "names sklearn"),
        ("fig, ax = plt.subplots()\nax.bar(df['a'], df['b'])", "matplotlib", None),
        ("fig, ax = plt.subplots()\nax.bar(df['a'], df['b'])", "pandas&matplotlib", None),
        ("df.plot.bar(x='a', y='b')", "pandas", None),
        ("fig, ax = plt.subplots()\ndf.plot.bar(x='a', y='b', ax=ax)", "pandas", None),
        ("sns.barplot(data=df, x='a', y='b')", "seaborn", None),
    ],
)
def test_please_use_x_must_match_what_the_reference_uses_and_draws_with(plot, modules, flagged):
    instruction = "Draw a bar chart of `b` per `a`."
    for language, split in (("en", "cibench_template"), ("zh", "cibench_template_chinese")):
        nb = notebook(instruction, plot + "\nplt.show()", modules=["pandas", modules], language=language)
        messages = [f.message for f in flags_of(nb, split=split) if f.kind == "module"]
        assert (flagged is None and not messages) or any(flagged in m for m in messages), messages


def test_a_module_imported_in_an_earlier_step_counts_as_used():
    nb = notebook(
        "Draw a bar chart of `b` per `a`.", "plt.bar(df['a'], df['b'])", modules=["pandas", "matplotlib"]
    )
    assert "module" not in kinds(nb)
    assert "module" not in kinds(nb, step=0)  # step 0 reads with pandas


def test_declared_elements_must_be_named_and_belong_to_a_vis_step():
    plot = BASE_CODE.format(extra="")
    assert "declared" in kinds(notebook(BASE_EN, plot, plot_elements={"1": ["title"]}))
    assert "declared" not in kinds(notebook(BASE_EN + " Title it `T`.", plot, plot_elements={"1": ["title"]}))
    assert "declared" not in kinds(notebook(BASE_EN, plot, plot_elements={"1": ["chart_type"]}))
    assert "declared" in kinds(notebook(BASE_EN, plot, plot_elements={"0": ["chart_type"]}), step=0)


def test_an_unbuilt_generation_task_is_linted_by_what_its_code_draws():
    nb = notebook(BASE_EN, BASE_CODE.format(extra="ax.set_title('T')"))
    del nb["metadata"]["step_types"]
    nb["cells"][3]["outputs"] = []
    assert "title" in kinds(nb, split="cibench_generation")
    nb["cells"][3]["outputs"] = [stdout("3\n")]  # built: it printed, so it is not a vis step
    assert kinds(nb, split="cibench_generation") == set()


def test_the_builtin_set_passes_the_lint():
    lib = TaskLibrary.load([builtin_dir()])
    flagged = [f.line() for task in lib.select(None) for f in lint_task(task)]
    assert flagged == []


@pytest.mark.parametrize(
    "instruction,plot,flagged",
    [
        ("Draw a bar chart of `b` per `a` with pandas.", "plt.bar(df['a'], df['b'])", True),
        ("用 pandas 画出 `b` 按 `a` 的柱状图。", "plt.bar(df['a'], df['b'])", True),
        ("Draw a bar chart of `b` per `a` with `ax.bar`.", "df.plot.bar(x='a', y='b')", True),
        ("Draw a bar chart of `b` per `a` with seaborn.", "df.plot.bar(x='a', y='b')", True),
        ("Draw a bar chart of `b` per `a` with pandas.", "df.plot.bar(x='a', y='b')", False),
        ("Draw a bar chart of `b` per `a` with `sns.barplot`.", "sns.barplot(data=df, x='a', y='b')", False),
        ("Draw a bar chart of `b` per `a`.", "df.plot.bar(x='a', y='b')", False),
    ],
)
def test_an_instruction_that_says_which_library_draws_must_be_followed(instruction, plot, flagged):
    nb = notebook(instruction, plot + "\nplt.show()")
    del nb["metadata"]["step_types"]  # the generation split: no modules, the instruction says it
    assert ("module" in kinds(nb, split="cibench_generation")) is flagged


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    instruction=st.text(max_size=200),
    plot=st.one_of(
        st.text(max_size=200),
        st.sampled_from(
            ["ax.set_title(", "((((" * 50, "x = " + "[" * 300 + "]" * 300, "%matplotlib inline\nplt.plot()"]
        ),
    ),
)
def test_the_lint_never_fails_on_odd_instructions_or_code(instruction, plot):
    nb = notebook(instruction or "x", plot or "pass")
    for flag in flags_of(nb):
        assert flag.step in (None, 0, 1) and flag.line().startswith("cibench_template/pandas/t.ipynb:")
