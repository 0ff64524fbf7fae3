"""Teachers' solution notebooks for the ``tasks new`` tests (the CLI's and the lab route's)."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

BILLS = """day,total,tip
Thu,20.5,3.0
Fri,15.25,2.5
Sat,30.0,5.0
Sun,25.75,4.0
Sat,18.0,2.0
Sun,22.5,3.5
Thu,12.0,1.5
Fri,28.0,4.5
"""

INTRO = "# Bills by day\n\nA week of restaurant bills: load them, summarise the tips and chart the totals."
LOAD = (
    "Load `data/bills.csv` into a DataFrame named `df`.",
    "import pandas as pd\nimport matplotlib.pyplot as plt\ndf = pd.read_csv('data/bills.csv')",
)
PLOT = (
    "Draw a bar chart of the sum of `total` per day with pandas `.plot`, in a figure of 6 by 4 inches, "
    "with the title 'Total by day', the x axis label 'day' and the y axis label 'total'.",
    "ax = df.groupby('day')['total'].sum().plot(kind='bar', figsize=(6, 4))\n"
    "ax.set_title('Total by day')\nax.set_xlabel('day')\nax.set_ylabel('total')\nplt.show()",
)
#: The good solution: four steps, one of each kind (the text step tagged, the others inferred).
GOOD = [
    INTRO,
    LOAD,
    ("Print the mean of `tip`, rounded to 2 decimals.", "print(round(df['tip'].mean(), 2))"),
    (
        "Print the day with the largest sum of `total`.",
        "print(df.groupby('day')['total'].sum().idxmax())",
        "text",
    ),
    PLOT,
]


def write_solution(folder: Path, cells: list, name: str = "bills_week.ipynb", data: bool = True) -> Path:
    """A solution notebook in ``folder`` (with ``data/bills.csv`` beside it): each entry of
    ``cells`` a markdown string, an (instruction, code[, kind tag]) step, or ``("code", src)``."""
    out = []
    for entry in cells:
        if isinstance(entry, str):
            out.append(new_markdown_cell(entry))
        elif entry[0] == "code":
            out.append(new_code_cell(entry[1]))
        else:
            out.append(new_markdown_cell(entry[0]))
            tags = [f"cibench:{entry[2]}"] if len(entry) > 2 else []
            out.append(new_code_cell(entry[1], metadata={"tags": tags} if tags else {}))
    folder.mkdir(parents=True, exist_ok=True)
    if data:
        (folder / "data").mkdir(exist_ok=True)
        (folder / "data" / "bills.csv").write_text(BILLS)
    path = folder / name
    nbformat.write(new_notebook(cells=out), str(path))
    return path
