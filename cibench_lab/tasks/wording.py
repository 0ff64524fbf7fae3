"""What an instruction names, in English and in Chinese: plot elements, chart types, styles.

Each element has a list of English patterns (regular expressions on the lower-cased
text, on word boundaries) and Chinese words (plain substrings); an instruction names the
element when any of them occurs.  Both lists are always tried, whatever the task's
language, so a Chinese instruction that quotes an English term (``cmap``) counts.

The lists are deliberately specific: ``size`` alone does not name the figure size ("sample
size"), ``label`` alone does not name the axis labels ("legend labels"), ``axes`` alone
does not hide the ticks.  A name a careful player would read as the element is in the
list; a word that merely might be is not.
"""

from __future__ import annotations

import re

_COLOUR_NAMES = (
    "red|green|blue|black|white|gr[ae]y|orange|purple|violet|yellow|pink|brown|cyan|magenta|navy|teal|"
    "olive|maroon|viridis|plasma|inferno|magma|cividis|coolwarm|bwr|rdbu|rdylgn|spectral|vlag|icefire|"
    "rocket|mako|flare|crest|blues|reds|greens|greys|oranges|purples|tab10|tab20|set1|set2|set3|pastel|"
    "husl|colorblind|jet|gray_r|greys_r|tab:\\w+"
)
#: English colour name -> its Chinese words (an instruction in Chinese names red as 红).
_CHINESE_COLOURS = {
    "red": "红", "green": "绿", "blue": "蓝", "black": "黑", "white": "白", "grey": "灰", "gray": "灰",
    "orange": "橙|橘", "purple": "紫", "violet": "紫", "yellow": "黄", "pink": "粉", "brown": "棕|褐",
    "cyan": "青", "magenta": "品红|洋红", "navy": "海军蓝|藏青", "gold": "金",
}  # fmt: skip

#: element -> (English regexes on the lower-cased text, Chinese regexes)
ELEMENT_WORDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "title": ((r"\btitle", r"\bsuptitle", r"\bheading", r"\bheaded\b", r"\bcaption"), ("标题", "题为")),
    "legend": ((r"\blegend",), ("图例",)),
    "colors": (
        (
            r"\bcolou?r",
            r"\bcmap\b",
            r"\bpalette\b",
            r"\bhue\b",
            r"\bshades? of\b",
            r"\bgr[ae]y ?(?:scale|levels?)\b",
            r"\bmonochrome\b",
            rf"\b(?:{_COLOUR_NAMES})\b",
        ),
        ("颜色", "色", "cmap", "调色板", "灰度", rf"(?i)(?<![a-z])(?:{_COLOUR_NAMES})(?![a-z])"),
    ),
    "colorbar": (
        (r"\bcolou?r ?bar", r"\bcolou?r scale\b", r"\bcbar\b"),
        ("颜色条", "色条", "色标", "颜色刻度", "(?i:colou?r ?bar)"),
    ),
    "ticks": (
        (
            r"\bticks?\b",
            r"\bticklabels?\b",
            r"\btick[- ]labels?\b",
            r"\brotat",
            r"\b(?:no|without|hide|hidden|hiding|turn off|switch off|remove)\b.{0,12}\b(?:axes|axis)\b",
            r"\b(?:axes|axis)\b.{0,6}\b(?:hidden|off|removed|turned off)\b",
            r"\baxis\(\s*'off'\s*\)",
        ),
        (
            "刻度",
            "旋转",
            r"(?:不显示|隐藏|去掉|关闭|无|不带|没有|不要)\s*坐标轴?",
            r"坐标轴\s*(?:隐藏|关闭|去掉)",
        ),
    ),
    "ticks:scale": ((r"\blog", r"\bscale\b", r"\bsymlog"), ("对数", "尺度", "刻度")),
    "ticks:limits": (
        (
            r"\blimit",
            r"\brange\b",
            r"\bfrom\s+-?\d.{0,20}\bto\s+-?\d",
            r"\bbetween\s+-?\d",
            r"\b[xy]lim\b",
            r"\bclip",
        ),
        ("范围", r"从\s*-?\d.{0,10}到", "上限", "下限"),
    ),
    "figsize": (
        (
            r"\bfigsize\b",
            r"\bfig(?:ure)? size\b",
            r"\bsize\s*(?:of\s*)?\(\s*\d",
            r"\binch",
            r"\bheight\s*\d",
            r"\b\d+(?:\.\d+)?\s*(?:x|by|×)\s*\d+(?:\.\d+)?\s*in",
        ),
        ("尺寸", r"大小\s*(?:为|是)?\s*[（(]\s*\d", "画布", "figsize", "英寸", r"高度\s*(?:为)?\s*\d"),
    ),
}

#: Naming an axis label: a label word ("label", "labelled", "x label", "axis title"; not "tick label"),
#: and the axes mentioned in its clause -- up to 40 characters before it and 80 after, code spans and
#: quotes masked.  ``x`` names the x axis, ``y`` the y axis, a bare "axes"/"axis" both (``z`` neither:
#: a z label is not graded); "an Axes" is matplotlib's object, not a mention.  Chinese: 轴/坐标 with a
#: label word, 横/x the x axis, 纵/y the y axis.
_LABEL_ANCHOR = re.compile(r"(?<!tick )(?<!tick-)\blabel\w*|\baxis titles?\b|(?<![a-z])[xyz][- ]?labels?\b")
_AXIS_MENTION = re.compile(r"\b(?:([xyz])[- ]?)?(?:axis|axes)\b|(?<![a-z])([xyz])[- ]?labels?\b")
_BOTH_LABELS = re.compile(r"\bx(?:-axis|-| axis)?\s*(?:and|&|/)\s*y[- ]?(?:axis |axes )?labels?\b")
_AXES_OBJECT = re.compile(r"\b(?:an|one) axes\b")
#: Code spans and quoted texts (an opening quote not after a letter: "feature's" is no quote).
_QUOTED = re.compile(r"`[^`]*`|(?<![a-z])'[^'\n]{1,120}'(?![a-z])|\"[^\"\n]{1,120}\"")
_CLAUSE_END = re.compile(r"[.!?:](?=\s|$)|[;)]")
_CHINESE_AXIS_LABEL = (
    r"([xXyYzZ横纵]?)\s*(?:坐标)?轴[^，。；、,;()（）]{0,8}(?:标注|标签|标为|名为|命名|标记|标题)",
    r"([xXyYzZ横纵])\s*坐标[^，。；、,;()（）轴]{0,8}(?:标注|标签|标为|名为|命名|标记|标题)",
    r"([xXyYzZ])\s*标签",
)
_CHINESE_MENTION = re.compile(r"([xXyYzZ横纵]?)\s*(?:坐标轴|轴|坐标)|([xXyYzZ])\s*标签")
_WHICH = {"x": "x", "横": "x", "y": "y", "纵": "y", "z": "z"}


def labelled_axes(text: str) -> set[str]:
    """The axes (``x``, ``y``) whose label the instruction names."""
    return (_english_labels(text) | _chinese_labels(text)) - {"z"}


def _english_labels(text: str) -> set[str]:
    lower = _QUOTED.sub(lambda m: m.group(0)[0] + "_" * (len(m.group(0)) - 2) + m.group(0)[-1], text.lower())
    lower = _AXES_OBJECT.sub(lambda m: "_" * len(m.group(0)), lower)
    if _BOTH_LABELS.search(lower):
        return {"x", "y"}
    found: set[str] = set()
    for anchor in _LABEL_ANCHOR.finditer(lower):
        before = lower[max(0, anchor.start() - 40) : anchor.start()]
        start = anchor.start() - len(before) + max((m.end() for m in _CLAUSE_END.finditer(before)), default=0)
        stop = _CLAUSE_END.search(lower, anchor.end(), anchor.end() + 80)
        end = stop.start() if stop else min(len(lower), anchor.end() + 80)
        mentions = [m.group(1) or m.group(2) for m in _AXIS_MENTION.finditer(lower, start, end)]
        found |= {"x", "y"} if None in mentions else set(mentions)
    return found


def _chinese_labels(text: str) -> set[str]:
    found: set[str] = set()
    for pattern in _CHINESE_AXIS_LABEL:
        for match in re.finditer(pattern, text):
            for mention in _CHINESE_MENTION.finditer(match.group(0)):
                which = _WHICH.get((mention.group(1) or mention.group(2) or "").lower())
                found |= {which} if which else {"x", "y"}
    return found


#: chart family -> (English regexes on the lower-cased text, Chinese regexes)
FAMILY_WORDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "line": (
        (r"\blines?\b", r"\bcurves?\b", r"\btrend", r"\bline chart"),
        ("线", "走势", "趋势", r"随.{0,30}(?:的)?变化"),
    ),
    "scatter": (
        (r"\bscatter", r"\bpoints?\b", r"\bdots?\b", r"\bmarkers?\b", r"\bbubble", r"\bstrip", r"\bswarm"),
        ("散点", "点", "气泡"),
    ),
    "bar": (
        (r"\bbars?\b", r"\bbar chart", r"\bcount ?plot", r"\bcolumn chart", r"\bbarh\b"),
        ("柱", "条形", "计数图"),
    ),
    "hist": ((r"\bhist", r"\bbins?\b"), ("直方", "分箱")),
    "kde": ((r"\bkde\b", r"\bdensit", r"\bkdeplot"), ("密度",)),
    "ecdf": ((r"\becdf", r"\bcumulative"), ("累积", "(?i:ecdf)")),
    "box": ((r"\bbox", r"\bboxen"), ("箱",)),
    "violin": ((r"\bviolin",), ("小提琴",)),
    "heatmap": (
        (r"\bheat ?map", r"\bhexbin", r"\bmatrix", r"\bhexagon"),
        ("热力图", "热图", "矩阵", "六边形"),
    ),
    "image": (
        (r"\bshow", r"\bdisplay", r"\bimage", r"\bimshow", r"\bpicture", r"\bphoto", r"\bmatshow"),
        ("显示", "展示", "图像", "图片", "照片", "imshow"),
    ),
    "pie": ((r"\bpie",), ("饼",)),
    "area": (
        (r"\barea\b", r"\bfill", r"\bshad(?:e|ed|ing)\b", r"\bband", r"\bspan", r"\bstackplot"),
        ("面积", "填充", "阴影", "区域", "置信带", "条带", "色带"),
    ),
    "contour": ((r"\bcontour",), ("等高", "轮廓")),
    "errorbar": ((r"\berror ?bars?", r"\berrorbar"), ("误差",)),
    "regression": ((r"\bregress", r"\bregplot", r"\blmplot", r"\bfit"), ("回归", "拟合")),
    "pair": ((r"\bpair", r"\bscatter matrix"), ("成对", "配对", "散点矩阵")),
    "joint": ((r"\bjoint",), ("联合",)),
    "point": ((r"\bpoint", r"\bpointplot"), ("点",)),
    "rug": ((r"\brug",), ("地毯",)),
    "stem": ((r"\bstem",), ("茎",)),
    "quiver": ((r"\barrows?", r"\bquiver"), ("箭头",)),
    "tree": ((r"\btree", r"\bdendrogram"), ("树",)),
    "dispersion": ((r"\bdispersion",), ("离散", "分布")),
    "graph": ((r"\bgraph", r"\bdiagram", r"\bmodel"), ("结构",)),
}

#: "bar plot", "box plot", ...: a chart word before "plot"; a bare "plot" ("Plot x against y") is a line.
_COMPOUND_PLOT = re.compile(
    r"\b(?:bar|box|boxen|scatter|violin|strip|swarm|count|pair|kde|density|q-?q|point|ecdf|residual|"
    r"dispersion|joint|rug|heat|pie|area|contour|hexbin|reg|lm|resid|bubble|stem|dot|line)\s*plots?\b"
)
_BARE_PLOT = re.compile(r"\bplot(?:s|ted|ting)?\b")

STYLE_WORDS: tuple[tuple[str, ...], tuple[str, ...]] = (
    (r"\btheme", r"\bstyle", r"\bcontext\b", r"\brcparams", r"\bxkcd"),
    ("主题", "风格", "样式"),
)

_CODE_SPAN = re.compile(r"`[^`]*`")


def _matches(words: tuple[tuple[str, ...], tuple[str, ...]], text: str) -> str | None:
    english, chinese = words
    lower = text.lower()
    for pattern, subject in [(p, lower) for p in english] + [(p, text) for p in chinese]:
        found = re.search(pattern, subject)
        if found:
            return found.group(0)
    return None


def names_element(element: str, text: str, variables: frozenset[str] = frozenset()) -> bool:
    """``variables``: names the notebook binds; a code span holding one (`gray`, an image) is a
    variable, not a word (only for colours: "`gray`" is not "grey")."""
    if element in ("x_label", "y_label"):
        return element[0] in labelled_axes(text)
    if element == "colors" and variables:
        text = _CODE_SPAN.sub(lambda m: "`_`" if m.group(0).strip("`") in variables else m.group(0), text)
    return _matches(ELEMENT_WORDS[element], text) is not None


def names_family(family: str, text: str, evidence: str = "") -> bool:
    """The instruction names the chart family, or the very function that draws it."""
    function = evidence.split(".")[-1].split("(")[0]
    if function and re.search(rf"\b{re.escape(function.lower())}\b", text.lower()):
        return True
    words = FAMILY_WORDS.get(family)
    if words is None or _matches(words, text) is not None:
        return True
    if family != "line" or not _BARE_PLOT.search(_COMPOUND_PLOT.sub(" ", text.lower())):
        return False
    # "Plot x against y" names a line chart -- unless the instruction names another chart type.
    return not any(_matches(w, text) for f, w in FAMILY_WORDS.items() if f not in ("line", "image", "graph"))


#: An instruction that says which library draws ("with pandas", "`sns.histplot`", "用 seaborn").
_API_WORDS: dict[str, tuple[str, ...]] = {
    "pandas": (
        r"\b(?:with|using|via|in) pandas\b",
        r"\bpandas'",
        r"\bpandas(?:'s)? `?\.?plot",
        r"\bdataframe\.(?:plot|boxplot|hist)\b",
        r"\bseries\.plot\b",
        r"(?:用|使用|通过)\s*pandas",
    ),
    "seaborn": (
        r"\b(?:with|using|via) seaborn\b",
        r"\bseaborn's\b",
        r"`sns\.",
        r"(?:用|使用|通过)\s*seaborn",
    ),
    "matplotlib": (
        r"\b(?:with|using|via) matplotlib\b",
        r"`(?:ax|axes|plt)\.\w+",
        r"(?:用|使用|通过)\s*matplotlib",
    ),
}


def drawing_apis(text: str) -> set[str]:
    """The plotting libraries the instruction itself says to draw with."""
    lower = text.lower()
    return {api for api, patterns in _API_WORDS.items() if any(re.search(p, lower) for p in patterns)}


def names_style(text: str) -> bool:
    return _matches(STYLE_WORDS, text) is not None


def names_colour(value: str, text: str) -> bool:
    """A literal colour or colormap of the reference ('tab:green', 'Greens', 'k') is given."""
    name = re.sub(r"^(?:tab|xkcd|css4):", "", value.strip()).lower()
    lower = text.lower()
    if name.endswith("_r"):  # a reversed colormap: its name, or the base name said reversed
        if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", lower):
            return True
        if not re.search(r"\brevers|\binvert|反转|反向|倒置", text):
            return False
        name = name[:-2]
    words = {name, name.replace("grey", "gray"), name.replace("gray", "grey")}
    if name in ("gray", "grey", "greys", "binary") and re.search(r"\bgr[ae]y ?(?:scale|levels?)\b", lower):
        return True  # "in grayscale" gives the grey colormap
    if any(re.search(rf"(?<![\w#]){re.escape(w)}(?!\w)", lower) for w in words):
        return True
    base = re.sub(r"s$", "", name)  # the 'Greens' colormap is given by "green"
    chinese = _CHINESE_COLOURS.get(base) or _CHINESE_COLOURS.get(name)
    if chinese and re.search(chinese, text):
        return True
    return base != name and re.search(rf"\b{re.escape(base)}\b", lower) is not None


def names_column(column: str, text: str) -> bool:
    """``hue='sex'``: the instruction splits or colours the data by that column."""
    return re.search(rf"(?<![\w]){re.escape(column)}(?![\w])", text) is not None


# --------------------------------------------------------------------------- placeholders

_PLACEHOLDERS = ((re.compile(r"\{\{[^{}]*\}\}"), "a {{…}} template placeholder"),)
_OUTSIDE_CODE = (
    (re.compile(r"\[\s*\]"), "an empty []"),
    (re.compile(r"(?<!\{)\{\s*\}(?!\})"), "an empty {}"),
    (re.compile(r"(?<![\w.])\(\s*\)"), "an empty ()"),
    (re.compile(r"(?<![\w{])\{[A-Za-z_][A-Za-z0-9_]*\}(?!})"), "a {name} format field"),
    (re.compile(r"(?<![\w'\"])(?:''|\"\")(?![\w'\"])"), "empty quotes"),
    (re.compile(r"“”|‘’|「」|『』"), "empty quotes"),
    (re.compile(r"(?<!`)``(?!`)"), "an empty `` code span"),
)


def placeholders(text: str) -> list[tuple[str, str]]:
    """(what was found, what it looks like) for every template leftover in ``text``."""
    found = [(m.group(0), what) for pattern, what in _PLACEHOLDERS for m in pattern.finditer(text)]
    # code spans become a run of "x" (so "(`a=1`)" is not an empty "()"); an empty span stays.
    prose = _CODE_SPAN.sub(lambda m: "x" * len(m.group(0)) if m.group(0) != "``" else m.group(0), text)
    for pattern, what in _OUTSIDE_CODE:
        found += [(m.group(0), what) for m in pattern.finditer(prose)]
    return found
