"""An attempt as HTML for the widget: each step's instruction, grade and turns — code and the
outputs the kernel really gave — and the reference where the server's view includes one."""

from __future__ import annotations

from html import escape
from typing import Any

from ..grading.outcomes import outcome_words

PRE = "white-space:pre-wrap;margin:2px 0;padding:4px;background:var(--jp-layout-color2,#f5f5f5)"


def attempt_html(view: dict[str, Any], turns: list[dict[str, Any]]) -> str:
    """The attempt view (``GET attempts/{id}``) with its turns (``GET …/turns``), or a class
    member's attempt (``GET classes/attempts/{id}``) with its steps' turns."""
    by_step: dict[int, list[dict[str, Any]]] = {}
    for turn in turns:
        by_step.setdefault(turn["step"], []).append(turn)
    head = (
        f"<h4>{escape(view['title'])}</h4><p>{escape(view['status'])} · step "
        f"{view['current_step'] + 1} of {view['n_steps']} · {escape(view['player'])}</p>"
    )
    steps = [_step(step, by_step.get(step["index"], [])) for step in view["steps"]]
    return head + "".join(steps)


def grade_text(grade: dict[str, Any] | None) -> str:
    if not grade:
        return "not graded (or grades hidden)"
    score = "" if grade.get("score") is None else f", score {grade['score']:.2f}"
    return (
        f"{'passed' if grade.get('passed') else 'not passed'}{score} ({escape(str(grade.get('metric', '')))})"
    )


def _step(step: dict[str, Any], turns: list[dict[str, Any]]) -> str:
    settled = step["settled"] if "settled" in step else step.get("settled_at") is not None
    outcome = outcome_words(step.get("outcome"), settled)
    parts = [
        f"<h5>Step {step['index'] + 1} ({escape(step['kind'])}): {escape(outcome)} — "
        f"{grade_text(step.get('grade'))}</h5>",
        f"<div style='{PRE}'>{escape(step['instruction'])}</div>",
    ]
    for turn in turns:
        parts.append(f"<p>Turn {turn['turn'] + 1}: {grade_text(turn.get('grade'))}</p>")
        parts.append(f"<pre style='{PRE}'>{escape(turn['code'])}</pre>")
        parts.extend(turn_outputs_html(turn))
    reference = step.get("reference")
    if reference:
        parts.append("<p><b>Reference</b></p>")
        parts.append(f"<pre style='{PRE}'>{escape(reference['code'])}</pre>")
        if reference.get("output"):
            parts.append(f"<pre style='{PRE}'>{escape(reference['output'])}</pre>")
        if reference.get("image"):
            parts.append(_image(reference["image"]))
    return "".join(parts)


def turn_outputs_html(turn: dict[str, Any]) -> list[str]:
    """A turn's outputs: nbformat outputs (the owner's view), or their text and first figure (a
    class member's attempt, as the class view shows it)."""
    if "outputs" in turn:
        return [output_html(out) for out in turn["outputs"]]
    parts = [f"<pre style='{PRE}'>{escape(turn['output'])}</pre>"] if turn.get("output") else []
    return parts + ([_image(turn["image"])] if turn.get("image") else [])


def output_html(out: dict[str, Any]) -> str:
    """One nbformat output: a stream, a result or display (its image, else its text), an error."""
    kind = out.get("output_type")
    if kind == "stream":
        return f"<pre style='{PRE}'>{escape(_text(out.get('text', '')))}</pre>"
    if kind == "error":
        said = f"{out.get('ename', '')}: {out.get('evalue', '')}"
        return f"<pre style='{PRE};color:#b00'>{escape(said)}</pre>"
    data = out.get("data") or {}
    if "image/png" in data:
        return _image(_text(data["image/png"]))
    if "text/plain" in data:
        return f"<pre style='{PRE}'>{escape(_text(data['text/plain']))}</pre>"
    return ""


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _image(png: str) -> str:
    return f"<img style='max-width:100%' src='data:image/png;base64,{escape(png.strip())}'/>"
