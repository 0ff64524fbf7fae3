"""``Results()``: the notebook's user's results, browsed through the server's REST API.

Sources → studies and runs → attempts → an attempt's steps and turns.  Every answer is the
server's: a participant lists their own attempts, an instructor also their classes' (``GET
classes/attempts``); the study (titled by ``GET studies``) or headless run each listed attempt
belongs to makes the level between; and a step's reference shows only where the server's view
holds one (the reveal policy).  Anything that stops it — no server, a refusal — is a sentence in the
widget, never a traceback."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import ipywidgets as w

from .client import Api
from .render import attempt_html
from .where import Unavailable, find_server

MINE, CLASS = "mine", "class"
ALL, NONE = "all", "none"  # every listed attempt; those in no study and no run


class Results(w.VBox):
    """Browse the attempts this notebook's user may read; pure ipywidgets (JupyterLab, Notebook)."""

    def __init__(self, environ: Mapping[str, str] | None = None, **kwargs: Any):
        self.status = w.HTML()
        self.source = w.Dropdown(description="Show", options=[], layout=w.Layout(width="auto"))
        self.group = w.Dropdown(description="Study / run", options=[], layout=w.Layout(width="auto"))
        self.picker = w.Select(description="Attempt", options=[], rows=8, layout=w.Layout(width="95%"))
        self.detail = w.HTML()
        super().__init__([self.status, self.source, self.group, self.picker, self.detail], **kwargs)
        self.api: Api | None = None
        self.me: dict[str, Any] | None = None
        self.studies: dict[str, str] = {}  # study id: title, as GET studies names them
        self.rows: list[dict[str, Any]] = []  # the source's attempts
        self.shown: list[dict[str, Any]] = []  # of those, the chosen study's or run's
        self.error: str | None = None
        self._attempt(lambda: self._connect(environ))

    @property
    def attempts(self) -> list[dict[str, Any]]:
        """The attempt rows listed now (each with ``participant`` in a class's list)."""
        return list(self.shown)

    @property
    def groups(self) -> list[tuple[str, str]]:
        """The studies and runs of the source's attempts: (label, key) — ``all``, ``none`` (in
        no study or run), ``study:ID``, ``run:NAME``."""
        return list(self.group.options)

    def list_source(self, source: str) -> None:
        """List ``source``'s attempts: ``mine``, or ``class`` (an instructor's classes)."""
        self.source.value = source

    def list_group(self, key: str) -> None:
        """List the attempts of one of :attr:`groups` (its key)."""
        self.group.value = key

    def view_attempt(self, attempt_id: str) -> None:
        """Show one listed attempt's steps and turns."""
        self.picker.value = attempt_id

    # ---- what the widgets do ----------------------------------------------------
    def _connect(self, environ: Mapping[str, str] | None) -> None:
        self.api = Api(find_server(environ))
        self.me = self.api.get("me")
        roles = self.me["roles"]
        self.status.value = f"<b>{self.me['name']}</b> · {', '.join(roles)}"
        self.studies = {study["id"]: study["title"] for study in self.api.get("studies")}
        options = [("My attempts", MINE)]
        if "instructor" in roles:
            options.append((f"My classes' attempts ({', '.join(self.me['classes'])})", CLASS))
        self.source.options = options
        self.source.observe(lambda change: self._attempt(lambda: self._list(change["new"])), "value")
        self.group.observe(lambda change: self._attempt(lambda: self._show(change["new"])), "value")
        self.picker.observe(lambda change: self._attempt(lambda: self._open(change["new"])), "value")
        self._list(MINE)

    def _list(self, source: str) -> None:
        assert self.api is not None
        self.rows = self.api.get("classes/attempts" if source == CLASS else "attempts")
        self.group.options = group_options(self.rows, self.studies)
        self.group.value = ALL
        self._show(ALL)  # also when the value stayed (no change to observe)

    def _show(self, key: str | None) -> None:
        self.shown = [row for row in self.rows if key in (ALL, None) or group_of(row) == key]
        self.detail.value = ""
        self.picker.options = [(_label(row), row["id"]) for row in self.shown]
        self.picker.value = None
        if not self.shown:
            self.detail.value = "<p>No attempts yet.</p>"

    def _open(self, attempt_id: str | None) -> None:
        if attempt_id is None or self.api is None:
            return
        if self.source.value == CLASS:  # the class view's record: each step holds its turns
            view = self.api.get(f"classes/attempts/{attempt_id}")
            turns = [turn for step in view["steps"] for turn in step["turns"]]
        else:
            view = self.api.get(f"attempts/{attempt_id}")
            turns = self.api.get(f"attempts/{attempt_id}/turns")
        self.detail.value = attempt_html(view, turns)

    def _attempt(self, work) -> None:
        """Run ``work``; what stops it becomes the widget's one sentence."""
        try:
            work()
            self.error = None
        except Unavailable as err:
            self.error = str(err)
            self.status.value = f"<p style='color:#b00'>{_escape(self.error)}</p>"


def group_of(row: dict[str, Any]) -> str:
    """The key of the study or run an attempt row belongs to (``none``: neither)."""
    if row.get("run"):
        return f"run:{row['run']}"
    return f"study:{row['study_id']}" if row.get("study_id") else NONE


def group_options(rows: list[dict[str, Any]], studies: dict[str, str]) -> list[tuple[str, str]]:
    """All, then each study and run the rows belong to (studies by title), then the rest; each
    with its count of attempts."""
    counts: dict[str, int] = {}
    for row in rows:
        counts[group_of(row)] = counts.get(group_of(row), 0) + 1

    def label(key: str) -> str:
        kind, _, name = key.partition(":")
        said = {"study": f"Study: {studies.get(name, name)}", "run": f"Run: {name}"}.get(kind)
        return f"{said or 'In no study or run'} ({counts[key]})"

    keys = sorted(k for k in counts if k != NONE) + ([NONE] if NONE in counts else [])
    return [(f"All ({len(rows)})", ALL), *((label(k), k) for k in keys)]


def _label(row: dict[str, Any]) -> str:
    who = f"{row['participant']} · " if "participant" in row else ""
    progress = (
        f"{row['passed']}/{row['n_steps']} passed"
        if row.get("passed") is not None
        else (f"step {row['current_step'] + 1} of {row['n_steps']}")
    )
    return f"{who}{row['title'] or row['task_id']} · {row['status']} · {progress} · {row['created_at'][:16]}"


def _escape(text: str) -> str:
    from html import escape

    return escape(text)
