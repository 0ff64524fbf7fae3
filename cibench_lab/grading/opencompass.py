"""OpenCompass's prediction format: export a run so the official evaluator can score it.

Layout written by ``cibench-lab export --format opencompass RUN DIR``::

    DIR/predictions/<run>/<dataset abbr>.json   e.g. cibench_template/pandas.json,
                                                 cibench_template_oracle_chinese/nltk.json
    DIR/datasets/<split>/<lib>/<stem>.ipynb      the played notebooks, so indices line up
    DIR/images/<sha256>.png                      every image a turn produced
    DIR/manifest.json                            abbr -> dataset folder, index -> task/attempt

Each prediction file maps ``"0".."n-1"`` (notebooks in the loader's sorted order)
to ``{gold, prediction, origin_prompt, steps}`` lists over steps, as OpenCompass's
AgentInferencer saves multi-round results; ``steps[k]`` is the list of lagent
action dicts of step k's turns, rendered by the original interpreter's rules
(``render``): ``result = {text, image_path}`` on success, else ``errmsg = repr(...)``.
``rescore`` scores such a file back with the ``cibench`` rules — the test that an
export round-trips (tests/grading/test_grading_export.py).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from ..tasks.model import Task
from .render import Rendered, render
from .turn import TurnOutput

SUCCESS, API_ERROR, OPEN, ABSENT = 0, -1002, 0, -3
_FIG = re.compile(r"!\[fig-[0-9]*\]\((.*?)\)", re.DOTALL)


def dataset_abbr(split: str, lib: str, mode: str) -> str:
    """OpenCompass's dataset abbr (configs/datasets/CIBench/*.py) for a split, library and mode."""
    if mode != "oracle":
        return f"{split}/{lib}"
    if split.endswith("_chinese"):
        return f"{split[: -len('_chinese')]}_oracle_chinese/{lib}"
    return f"{split}_oracle/{lib}"


def save_image(b64: str, images_dir: Path) -> Path:
    raw = base64.b64decode(b64)
    path = images_dir / f"{hashlib.sha256(raw).hexdigest()}.png"
    if not path.exists():
        images_dir.mkdir(parents=True, exist_ok=True)
        path.write_bytes(raw)
    return path.resolve()


def action(turn: TurnOutput, images_dir: Path) -> dict[str, Any]:
    """One turn as the lagent action dict OpenCompass stores (models/lagent.py)."""
    r: Rendered = render(turn.outputs, turn.error, turn.status)
    if not r.tool:
        return dict(type="NoAction", args=dict(text=turn.code), result=None, thought=None,
                    state=API_ERROR, errmsg=r.errmsg, valid=ABSENT)  # fmt: skip
    args = dict(text=f"```python\n{turn.code}\n```", extract_code=turn.code)
    if not r.succeed:
        return dict(type="IPythonInterpreter", args=args, result=None, thought=None,
                    state=API_ERROR, errmsg=repr(r.errmsg), valid=OPEN)  # fmt: skip
    links = [f"![fig-{i:03d}]({save_image(png, images_dir)})" for i, png in enumerate(r.images, 1)]
    result = dict(text=r.text, image_path="\n\n".join(links))
    return dict(type="IPythonInterpreter", args=args, result=result, thought=None,
                state=SUCCESS, errmsg=None, valid=OPEN)  # fmt: skip


def prediction(task: Task, steps_turns: list[list[TurnOutput]], images_dir: Path) -> dict[str, list]:
    """One notebook's entry: per step gold, prediction (last reply), origin_prompt, steps."""
    entry: dict[str, list] = {"gold": [], "prediction": [], "origin_prompt": [], "steps": []}
    for step, turns in zip(task.steps, steps_turns, strict=True):
        entry["gold"].append(f"{step.thought}**split**{step.code}")
        entry["prediction"].append(turns[-1].code if turns else "")
        entry["origin_prompt"].append(step.prompt)
        entry["steps"].append([action(t, images_dir) for t in turns])
    return entry


def write(
    root: Path,
    run: str,
    datasets: dict[str, list[tuple[Any, str, dict]]],
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Write prediction files + manifest; ``datasets`` maps abbr -> [(task, attempt id, entry)];
    ``extra``: more manifest fields (what the exporter says of the run)."""
    manifest: dict[str, Any] = {"run": run, **(extra or {}), "datasets": {}, "entries": {}}
    for abbr, items in sorted(datasets.items()):
        items = sorted(items, key=lambda it: it[0].path.name)  # the loader's sorted order
        task0 = items[0][0]
        folder = Path("datasets") / task0.split / task0.lib
        (root / folder).mkdir(parents=True, exist_ok=True)
        for task, _, _ in items:
            (root / folder / task.path.name).write_bytes(task.path.read_bytes())
        out = root / "predictions" / run / f"{abbr}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(
            json.dumps({str(i): e for i, (_, _, e) in enumerate(items)}, indent=1, ensure_ascii=False)
        )
        manifest["datasets"][abbr] = str(folder)
        manifest["entries"][abbr] = [{"task": t.id, "attempt": a} for t, a, _ in items]
    (root / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return manifest


# ---- re-scoring an export with the cibench rules ------------------------------------------------


def rescore_step(actions: list[dict[str, Any]], kind: str, target: str | None) -> dict[str, float | None]:
    """tool/exec/score of one step's action dicts, by CIBenchEvaluator's rules."""
    from . import num, text, vis

    rendered = [_as_rendered(a) for a in actions]
    tool, exe = 0.0, 0.0
    for a in reversed(actions):
        if a["type"] == "IPythonInterpreter":
            tool, exe = 1.0, 0.0 if a["errmsg"] else 1.0
            break
    score: float | None = None
    if kind in ("num", "general"):
        out = num.answer_block(rendered)
        score = num.compare(out, target) if out is not None and target is not None else 0.0
    elif kind == "text":
        out = text.first_block(rendered)
        score = text.rouge1(out, target) if out is not None and target is not None else 0.0
    elif kind == "vis":
        score = vis.vis_score(rendered, target or "")[0]
    return {"tool": tool, "exec": exe, "score": score}


def _as_rendered(a: dict[str, Any]) -> Rendered:
    if a["type"] != "IPythonInterpreter":
        return Rendered(text="", succeed=False, tool=False)
    if not a["result"]:
        return Rendered(text="", succeed=False)
    paths = _FIG.findall(a["result"]["image_path"] or "")
    images = [base64.b64encode(Path(p).read_bytes()).decode() for p in paths]
    return Rendered(text=a["result"]["text"], images=images, succeed=True)
