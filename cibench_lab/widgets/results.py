"""``Results()``: the notebook's user's results, browsed through the server's REST API.

Sources → attempts → an attempt's steps and turns.  Every answer is the server's: a
participant lists their own attempts, an instructor also their classes' (``GET
classes/attempts``), and a step's reference shows only where the server's view holds one
(the reveal policy).  Anything that stops it — no server, a refusal — is a sentence in the
widget, never a traceback."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import ipywidgets as w

from .client import Api
from .render import attempt_html
from .where import Unavailable, find_server

MINE, CLASS = "mine", "class"


class Results(w.VBox):
    """Browse the attempts this notebook's user may read; pure ipywidgets (JupyterLab, Notebook)."""

    def __init__(self, environ: Mapping[str, str] | None = None, **kwargs: Any):
        self.status = w.HTML()
        self.source = w.Dropdown(description="Show", options=[], layout=w.Layout(width="auto"))
        self.picker = w.Select(description="Attempt", options=[], rows=8, layout=w.Layout(width="95%"))
        self.detail = w.HTML()
        super().__init__([self.status, self.source, self.picker, self.detail], **kwargs)
        self.api: Api | None = None
        self.me: dict[str, Any] | None = None
        self.rows: list[dict[str, Any]] = []
        self.error: str | None = None
        self._attempt(lambda: self._connect(environ))

    @property
    def attempts(self) -> list[dict[str, Any]]:
        """The attempt rows listed now (each with ``participant`` in a class's list)."""
        return list(self.rows)

    def list_source(self, source: str) -> None:
        """List ``source``'s attempts: ``mine``, or ``class`` (an instructor's classes)."""
        self.source.value = source

    def view_attempt(self, attempt_id: str) -> None:
        """Show one listed attempt's steps and turns."""
        self.picker.value = attempt_id

    # ---- what the widgets do ----------------------------------------------------
    def _connect(self, environ: Mapping[str, str] | None) -> None:
        self.api = Api(find_server(environ))
        self.me = self.api.get("me")
        roles = self.me["roles"]
        self.status.value = f"<b>{self.me['name']}</b> · {', '.join(roles)}"
        options = [("My attempts", MINE)]
        if "instructor" in roles:
            options.append((f"My classes' attempts ({', '.join(self.me['classes'])})", CLASS))
        self.source.options = options
        self.source.observe(lambda change: self._attempt(lambda: self._list(change["new"])), "value")
        self.picker.observe(lambda change: self._attempt(lambda: self._open(change["new"])), "value")
        self._list(MINE)

    def _list(self, source: str) -> None:
        assert self.api is not None
        self.rows = self.api.get("classes/attempts" if source == CLASS else "attempts")
        self.detail.value = ""
        self.picker.options = [(_label(row), row["id"]) for row in self.rows]
        self.picker.value = None
        if not self.rows:
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
