"""The plotting API the lint recognises in reference code: which call sets which plot element.

Method names are matched whatever the receiver (``ax.set_title``, ``axes[0].set_title``,
``g.fig.suptitle``); a few pyplot-only names (``plt.title``, ``plt.xlabel``) only on pyplot.
Chart families are the words the instruction side (:mod:`cibench_lab.tasks.wording`)
looks for.
"""

from __future__ import annotations

TITLE_CALLS = frozenset({"set_title", "title", "suptitle", "set_titles", "set_suptitle"})
#: Calls that set the x label, the y label; ``set_axis_labels(x, y)`` (seaborn's grids) sets both.
#: A 3-D axes' z label is neither graded nor linted.
X_LABEL_CALLS = frozenset({"set_xlabel", "xlabel", "supxlabel"})
Y_LABEL_CALLS = frozenset({"set_ylabel", "ylabel", "supylabel"})
AXIS_LABEL_CALLS = X_LABEL_CALLS | Y_LABEL_CALLS | {"set_axis_labels", "set_zlabel", "zlabel"}
LEGEND_CALLS = frozenset({"legend", "add_legend", "move_legend", "figlegend", "get_legend"})
COLORBAR_CALLS = frozenset({"colorbar"})
TICK_CALLS = frozenset(
    {
        "xticks",
        "yticks",
        "set_xticks",
        "set_yticks",
        "set_xticklabels",
        "set_yticklabels",
        "set_ticks",
        "set_ticklabels",
        "tick_params",
        "locator_params",
        "set_major_locator",
        "set_minor_locator",
        "set_major_formatter",
        "set_minor_formatter",
        "minorticks_on",
        "minorticks_off",
        "autofmt_xdate",
    }
)
#: Axis scales and limits move the ticks: checked as "ticks", with their own words.
SCALE_CALLS = frozenset({"set_xscale", "set_yscale", "xscale", "yscale"})
LIMIT_CALLS = frozenset({"set_xlim", "set_ylim", "xlim", "ylim", "set_xbound", "set_ybound"})
FIGSIZE_CALLS = frozenset({"set_size_inches", "set_figwidth", "set_figheight"})
COLOR_CALLS = frozenset(
    {
        "set_color",
        "set_facecolor",
        "set_edgecolor",
        "set_cmap",
        "set_palette",
        "ListedColormap",
        "LinearSegmentedColormap",
    }
)
COLOR_KWARGS = frozenset(
    {
        "color",
        "colors",
        "c",
        "cmap",
        "colormap",
        "palette",
        "facecolor",
        "facecolors",
        "edgecolor",
        "edgecolors",
        "fc",
        "ec",
        "mfc",
        "mec",
        "markerfacecolor",
        "markeredgecolor",
        "ecolor",
        "linecolor",
        "line_kws_color",
    }
)
#: matplotlib's one-letter format colours (``'r--'``).
FMT_COLOURS = {
    "b": "blue",
    "g": "green",
    "r": "red",
    "c": "cyan",
    "m": "magenta",
    "y": "yellow",
    "k": "black",
    "w": "white",
}
COLORBAR_KWARGS = frozenset({"cbar", "colorbar", "cbar_kws", "cbar_ax"})

#: seaborn calls that change every later figure's look (a theme), not one figure's element.
SNS_STYLE_CALLS = frozenset(
    {"set_theme", "set_style", "set_context", "set_palette", "set", "set_color_codes"}
)

#: matplotlib Axes / pyplot drawing methods -> chart family.
MPL_FAMILIES: dict[str, str] = {
    "plot": "line",
    "step": "line",
    "stairs": "line",
    "semilogx": "line",
    "semilogy": "line",
    "loglog": "line",
    "axhline": "line",
    "axvline": "line",
    "axline": "line",
    "hlines": "line",
    "vlines": "line",
    "plot_date": "line",
    "scatter": "scatter",
    "bar": "bar",
    "barh": "bar",
    "bar_label": "bar",
    "hist": "hist",
    "hist2d": "heatmap",
    "hexbin": "heatmap",
    "pcolormesh": "heatmap",
    "pcolor": "heatmap",
    "boxplot": "box",
    "violinplot": "violin",
    "imshow": "image",
    "matshow": "image",
    "spy": "image",
    "contour": "contour",
    "contourf": "contour",
    "tricontour": "contour",
    "pie": "pie",
    "fill_between": "area",
    "fill_betweenx": "area",
    "stackplot": "area",
    "fill": "area",
    "axhspan": "area",
    "axvspan": "area",
    "errorbar": "errorbar",
    "stem": "stem",
    "quiver": "quiver",
    "specgram": "image",
}

#: seaborn functions -> chart family (figure-level ones by their default kind).
SNS_FAMILIES: dict[str, str] = {
    "scatterplot": "scatter",
    "stripplot": "scatter",
    "swarmplot": "scatter",
    "lineplot": "line",
    "barplot": "bar",
    "countplot": "bar",
    "pointplot": "point",
    "histplot": "hist",
    "kdeplot": "kde",
    "ecdfplot": "ecdf",
    "rugplot": "rug",
    "boxplot": "box",
    "boxenplot": "box",
    "violinplot": "violin",
    "heatmap": "heatmap",
    "clustermap": "heatmap",
    "regplot": "regression",
    "lmplot": "regression",
    "residplot": "scatter",
    "pairplot": "pair",
    "jointplot": "joint",
    "relplot": "scatter",
    "catplot": "scatter",
    "displot": "hist",
}

#: seaborn's figure-level functions: their size comes from height= and aspect=.
FIGURE_LEVEL_SNS = frozenset(
    {"relplot", "catplot", "displot", "lmplot", "pairplot", "jointplot", "FacetGrid", "PairGrid", "JointGrid"}
)

#: pandas ``.plot(kind=...)`` / ``.plot.<kind>`` -> chart family.
PANDAS_KINDS: dict[str, str] = {
    "line": "line",
    "bar": "bar",
    "barh": "bar",
    "hist": "hist",
    "box": "box",
    "kde": "kde",
    "density": "kde",
    "area": "area",
    "pie": "pie",
    "scatter": "scatter",
    "hexbin": "heatmap",
}

#: Libraries' own plotting helpers: function -> (its top-level module, or "" for any; family).
HELPERS: dict[str, tuple[str, str]] = {
    "plot_metric": ("lightgbm", "line"),
    "plot_importance": ("lightgbm", "bar"),
    "plot_split_value_histogram": ("lightgbm", "hist"),
    "plot_tree": ("", "tree"),
    "probplot": ("scipy", "scatter"),
    "dendrogram": ("scipy", "tree"),
    "dispersion_plot": ("nltk", "dispersion"),
    "scatter_matrix": ("pandas", "pair"),
    "plot_model": ("", "graph"),
}

#: scikit-learn's ``*Display`` classes (``.from_predictions``, ``.from_estimator``) -> family.
DISPLAYS: dict[str, str] = {
    "ConfusionMatrixDisplay": "heatmap",
    "RocCurveDisplay": "line",
    "PrecisionRecallDisplay": "line",
    "DetCurveDisplay": "line",
    "LearningCurveDisplay": "line",
    "ValidationCurveDisplay": "line",
    "PartialDependenceDisplay": "line",
    "PredictionErrorDisplay": "scatter",
    "DecisionBoundaryDisplay": "contour",
    "CalibrationDisplay": "line",
}
