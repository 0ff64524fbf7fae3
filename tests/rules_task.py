"""Small tasks for the grade-rule tests: a text, a num, a vis and an exec step, in English and
Chinese, with the store and Attempts they are played through (no kernel: turns are recorded
TurnOutputs, graded by the real graders)."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from PIL import Image

from cibench_lab.grading import TurnOutput
from cibench_lab.play.attempt import Attempts, NewAttempt
from cibench_lab.play.settings import PlaySettings
from cibench_lab.store import Store
from cibench_lab.tasks.library import TaskLibrary

EN = "cibench_template/pandas/rules"
ZH = "cibench_template_chinese/pandas/rules"
TEXT = {"en": "alpha beta gamma", "zh": "最高的是八月"}


def png(color: tuple[int, int, int]) -> str:
    buf = io.BytesIO()
    img = Image.new("RGB", (32, 24), (255, 255, 255))
    img.paste(color, (4, 4, 20, 18))
    img.save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode()


REFERENCE_PNG = png((10, 120, 200))


def stdout(text: str) -> dict:
    return new_output("stream", name="stdout", text=text + "\n")


def figure(b64: str) -> dict:
    return new_output("display_data", data={"image/png": b64, "text/plain": "<Figure>"})


def write_task(root: Path, task_id: str, language: str) -> None:
    split, lib, stem = task_id.split("/")
    steps = [
        ("Print the words.", f"print({TEXT[language]!r})", [stdout(TEXT[language])], "text"),
        ("Print six times seven.", "print(6 * 7)", [stdout("42")], "num"),
        ("Plot it.", "plt.plot([1, 2])", [figure(REFERENCE_PNG)], "vis"),
        ("Make x.", "x = 1", [], "exec"),
    ]
    cells = []
    for text, code, outputs, _ in steps:
        cells.append(new_markdown_cell(text))
        cells.append(new_code_cell(code, outputs=outputs))
    nb = new_notebook(cells=cells)
    nb.metadata["step_types"] = [k for *_, k in steps]
    nb.metadata["cibench_lab"] = {"schema_version": 1, "title": "Rules", "language": language}
    path = root / split / lib / f"{stem}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))
    (root / "datasources" / "data").mkdir(parents=True, exist_ok=True)


def attempts_for(root: Path, profile: str = "fair", url: str | None = None) -> Attempts:
    """The tasks under ``root``, played into ``url`` (default: a SQLite file under ``root``)."""
    write_task(root, EN, "en")
    write_task(root, ZH, "zh")
    lib = TaskLibrary.load([root])
    assert not lib.problems, lib.problems
    store = Store(url or f"sqlite:///{root / 'results.sqlite'}", auto_upgrade=True)
    return Attempts(store, lib, profile)


def start(attempts: Attempts, task_id: str = EN, player: str = "human", **settings) -> str:
    task = attempts.library.get(task_id)
    return attempts.create(NewAttempt(task, "e2e", player, "pat", PlaySettings(**settings), {}))


def printed(text: str) -> TurnOutput:
    return TurnOutput(f"print({text!r})", [stdout(text)])
