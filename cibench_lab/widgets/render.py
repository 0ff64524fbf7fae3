"""An attempt as HTML for the widget: its participant, each step's instruction (its markdown
rendered, raw HTML escaped), grade and turns — code and the outputs the kernel really gave — and
the reference where the server's view includes one. Grades and outcomes in the lab's words
(``grading/outcomes.py``: ``passed · 1.00``, ``settled by Next step``)."""

from __future__ import annotations

from html import escape
from typing import Any

from markdown_it import MarkdownIt

from ..grading.outcomes import grade_words, outcome_words

PRE = (
    "white-space:pre-wrap;margin:2px 0;padding:4px;background:var(--jp-layout-color2,#f5f5f5);"
    "color:var(--jp-content-font-color1,inherit);border:1px solid var(--jp-border-color2,#e0e0e0)"
)
# Error text: the theme's red mixed half with its text colour (WCAG AA on either JupyterLab theme's
# backgrounds; #b00 alone reads 2.8:1 in the dark theme), a dark red outside JupyterLab
ERROR_COLOR = "color-mix(in srgb,var(--jp-error-color1,#b00) 50%,var(--jp-ui-font-color0,#000))"
# CommonMark with raw HTML off: a tag in an instruction is shown as its text, never run or drawn
# (the widget's HTML is not sanitized on its way to the page); links to javascript: and the like
# are refused by markdown-it's own link check
MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")


def attempt_html(view: dict[str, Any], turns: list[dict[str, Any]], participant: str | None = None) -> str:
    """The attempt view (``GET attempts/{id}``) with its turns (``GET …/turns``), or a class
    member's attempt (``GET classes/attempts/{id}``) with its steps' turns. ``participant``: whose
    attempt it is (a class member's view names them itself)."""
    by_step: dict[int, list[dict[str, Any]]] = {}
    for turn in turns:
        by_step.setdefault(turn["step"], []).append(turn)
    who = view.get("participant") or participant
    title = f"{who}: {view['title']}" if who else view["title"]
    head = (
        f"<h4>{escape(title)}</h4><p>{escape(view['status'])} · step "
        f"{view['current_step'] + 1} of {view['n_steps']} · {escape(played_by(view['player'], who))}</p>"
    )
    steps = [_step(step, by_step.get(step["index"], [])) for step in view["steps"]]
    return head + "".join(steps)


def played_by(player: str, participant: str | None) -> str:
    """Who played, as the class view says it: ``played by ada`` (a person), else the player
    (``player: model llama-7b``, ``player: replay of attempt 1a2b3c4d``)."""
    if player == "human":
        return f"played by {participant}" if participant else "played by a person"
    kind, _, name = player.partition(":")
    if kind == "openai":
        return f"player: model {name}"
    if player.startswith("replay:file:"):
        return f"player: replay of {player.removeprefix('replay:file:')}"
    if player.startswith("replay:attempt:"):
        return f"player: replay of attempt {player.removeprefix('replay:attempt:')[:8]}"
    return f"player: {player}"


def instruction_html(markdown: str) -> str:
    """A step's instruction, its markdown rendered (CommonMark and tables; raw HTML escaped)."""
    return MARKDOWN.render(markdown or "")


def _step(step: dict[str, Any], turns: list[dict[str, Any]]) -> str:
    settled = step["settled"] if "settled" in step else step.get("settled_at") is not None
    outcome = outcome_words(step.get("outcome"), settled)
    parts = [  # the grade the server's view holds: none before a step settles, on a class's record
        f"<h5>Step {step['index'] + 1} ({escape(step['kind'])}): {escape(outcome)} — "
        f"{escape(grade_words(step.get('grade')))}</h5>",
        f"<div class='cibench-instruction'>{instruction_html(step['instruction'])}</div>",
    ]
    for turn in turns:
        parts.append(f"<p>Turn {turn['turn'] + 1}: {escape(grade_words(turn.get('grade')))}</p>")
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
        return f"<pre style='{PRE};color:{ERROR_COLOR}'>{escape(said)}</pre>"
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


def seconds_words(seconds: float | None) -> str:
    """Seconds as the lab says them: ``42.0 s``, ``3m 05s``; ``–`` for none."""
    if not isinstance(seconds, int | float):
        return "–"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes}m {rest:02d}s"


def participants_html(records: list[dict[str, Any]]) -> str:
    """A study's participants (``GET studies/{id}/participants``) as a table: each one's consent,
    the plan's tasks ended of all, the time worked and when they finished."""
    if not records:
        return "<p>No participant has consented yet.</p>"
    head = "".join(
        f"<th>{h}</th>" for h in ("participant", "consented", "tasks ended", "working time", "finished")
    )
    rows = []
    for r in records:
        ended = sum(item["status"] in ("done", "quit") for item in r["items"])
        cells = (
            r["participant"],
            (r["consent_at"] or "–")[:16],
            f"{ended} of {len(r['items'])}",
            seconds_words(r["total_seconds"]),
            (r["finished_at"] or "–")[:16],
        )
        rows.append("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
