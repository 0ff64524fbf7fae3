"""``Results()``: the notebook's user's results, browsed through the server's REST API.

Sources → studies and runs → attempts → an attempt's steps and turns.  Every answer is the
server's: a participant lists their own attempts, an instructor also their classes' (``GET
classes/attempts``, the source it opens on), a researcher the headless runs' (``GET
runs/attempts``) and the studies' participants (``GET studies/{id}/participants``, each
participant's attempts opened by ``GET studies/{id}/attempts/{attempt_id}``) — each source offered
when the user holds the role its list route requires in the server's own OpenAPI document, so the
server's rule decides; the study (titled by ``GET studies``) or headless run each listed attempt
belongs to makes the level between; and a step's reference shows only where the server's view
holds one (the reveal policy).  The server is the kernel's own, or one named outright
(``Results(url=..., token=...)``, with a study's researcher key: a proctored study's server, whose
sandboxed kernels cannot run the widget; docs/results.md).  Anything that stops it — no server, a
refusal — is a sentence in the widget, never a traceback."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import ipywidgets as w

from .client import Api
from .render import ERROR_COLOR, attempt_html, participants_html, seconds_words
from .where import Server, Unavailable, find_server

ALL, NONE = "all", "none"  # every listed attempt; those in no study and no run
API_PATH = "/cibench-lab/api/"  # the routes' prefix in the OpenAPI document


@dataclass(frozen=True)
class Source:
    """Attempts the server may let the user read: the list's route, one attempt's, and its turns'
    (None: the attempt's steps hold them, as the class view's record does)."""

    key: str
    label: str
    rows: str
    view: str
    turns: str | None

    def readable(self, roles: list[str], openapi: dict[str, Any]) -> bool:
        """Whether ``roles`` hold one the server requires of the list's route (``x-role``)."""
        needs = openapi.get("paths", {}).get(API_PATH + self.rows, {}).get("get", {}).get("x-role")
        return bool(set([needs] if isinstance(needs, str) else needs or ()) & set(roles))


SOURCES = (
    Source("mine", "My attempts", "attempts", "attempts/{id}", "attempts/{id}/turns"),
    Source("class", "My classes' attempts", "classes/attempts", "classes/attempts/{id}", None),
    Source(
        "runs", "Headless runs' attempts", "runs/attempts", "runs/attempts/{id}", "runs/attempts/{id}/turns"
    ),
    # listed study by study (studies/view.py participants_view: each plan item's attempt)
    Source(
        "study",
        "Study participants' attempts",
        "studies/{study_id}/participants",
        "studies/{study}/attempts/{id}",
        None,
    ),
)
MINE, CLASS, RUNS, STUDY = (source.key for source in SOURCES)
BY_KEY = {source.key: source for source in SOURCES}


class Results(w.VBox):
    """Browse the attempts this notebook's user may read; pure ipywidgets (JupyterLab, Notebook)."""

    def __init__(
        self,
        url: str | None = None,
        token: str | None = None,
        researcher_key: str | None = None,
        *,
        environ: Mapping[str, str] | None = None,
        **kwargs: Any,
    ):
        """``url``, ``token``: a server named outright (default: the kernel's own, found in its
        environment); ``researcher_key``: a study's shared seat's (default:
        ``$CIBENCH_LAB_RESEARCHER_KEY``)."""
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
        self.participants: dict[str, list[dict[str, Any]]] = {}  # study id: its participants' records
        self.shown: list[dict[str, Any]] = []  # of those, the chosen study's or run's
        self.error: str | None = None
        self._attempt(lambda: self._connect(find_server(environ, url, token, researcher_key)))

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
        """List ``source``'s attempts: ``mine``, ``class`` (an instructor's classes) or ``runs``
        (the headless runs', for a researcher): one of the offered sources (another: a sentence
        saying which this user may list)."""
        offered = [key for _, key in self.source.options]
        if source not in offered:
            who = f"{self.me['name']} ({', '.join(self.me['roles'])})" if self.me else "this user"
            may = ", ".join(offered) or "none: the server did not answer"
            self._fail(f"{source!r} is not a source {who} may list; offered: {may}.")
            return
        self.source.value = source

    def list_group(self, key: str) -> None:
        """List the attempts of one of :attr:`groups` (its key)."""
        self.group.value = key

    def view_attempt(self, attempt_id: str) -> None:
        """Show one listed attempt's steps and turns (an attempt not listed: a sentence saying so)."""
        if attempt_id not in [value for _, value in self.picker.options]:
            self._fail(f"Attempt {attempt_id} is not listed here: list its source, study or run first.")
            return
        self.picker.value = attempt_id

    # ---- what the widgets do ----------------------------------------------------
    def _connect(self, server: Server) -> None:
        self.api = Api(server)
        self.me = self.api.get("me")
        roles = self.me["roles"]
        self.status.value = f"<b>{self.me['name']}</b> · {', '.join(roles)}"
        self.studies = {study["id"]: study["title"] for study in self.api.get("studies")}
        openapi = self.api.get("openapi.json")
        offered = [s for s in SOURCES if s.readable(roles, openapi) and (s.key != STUDY or self.studies)]
        self.source.options = [(_source_label(source, self.me), source.key) for source in offered]
        first = default_source([source.key for source in offered], roles)
        self.source.value = first
        self.source.observe(lambda change: self._attempt(lambda: self._list(change["new"])), "value")
        self.group.observe(lambda change: self._attempt(lambda: self._show(change["new"])), "value")
        self.picker.observe(lambda change: self._attempt(lambda: self._open(change["new"])), "value")
        self._list(first)

    def _list(self, source: str) -> None:
        assert self.api is not None
        self.rows = self._study_rows() if source == STUDY else self.api.get(BY_KEY[source].rows)
        listed = [f"study:{study_id}" for study_id in self.participants] if source == STUDY else []
        self.group.options = group_options(self.rows, self.studies, listed)
        self.group.value = ALL
        self._show(ALL)  # also when the value stayed (no change to observe)

    def _study_rows(self) -> list[dict[str, Any]]:
        """Every started plan item of every study's participants, as attempt rows (the studies
        ``GET studies`` lists; a study whose participants the server refuses is its sentence)."""
        assert self.api is not None
        rows: list[dict[str, Any]] = []
        for study_id in self.studies:
            records = self.api.get(f"studies/{study_id}/participants")
            self.participants[study_id] = records
            for record in records:
                rows.extend(
                    study_row(study_id, record, item) for item in record["items"] if item["attempt_id"]
                )
        return rows

    def _show(self, key: str | None) -> None:
        self.shown = [row for row in self.rows if key in (ALL, None) or group_of(row) == key]
        self.detail.value = ""
        self.picker.options = [(attempt_label(row), row["id"]) for row in self.shown]
        self.picker.value = None
        if self.source.value == STUDY and key and key.startswith("study:"):
            self.detail.value = participants_html(self.participants.get(key.removeprefix("study:"), []))
        elif not self.shown:
            self.detail.value = "<p>No attempts yet.</p>"

    def _open(self, attempt_id: str | None) -> None:
        if attempt_id is None or self.api is None:
            return
        source = BY_KEY[self.source.value]
        row = next((row for row in self.shown if row["id"] == attempt_id), {})
        view = self.api.get(source.view.format(id=attempt_id, study=row.get("study_id")))
        if source.turns is None:  # the class view's record: each step holds its turns
            turns = [turn for step in view["steps"] for turn in step["turns"]]
        else:
            turns = self.api.get(source.turns.format(id=attempt_id))
        self.detail.value = attempt_html(view, turns, row.get("participant") or self._my_name())

    def _my_name(self) -> str | None:
        """The user's name: whose attempts ``mine`` lists."""
        return self.me["name"] if self.me and self.source.value == MINE else None

    def _attempt(self, work: Callable[[], object]) -> None:
        """Run ``work``; what stops it becomes the widget's one sentence."""
        try:
            work()
            self.error = None
        except Unavailable as err:
            self._fail(str(err))

    def _fail(self, sentence: str) -> None:
        self.error = sentence
        self.status.value = f"<p style='color:{ERROR_COLOR}'>{_escape(sentence)}</p>"


def default_source(offered: list[str], roles: list[str]) -> str:
    """The source listed first: an instructor's classes' attempts (a teacher has few of their
    own), a researcher's studies' participants', else the user's own."""
    if "instructor" in roles and CLASS in offered:
        return CLASS
    return STUDY if "researcher" in roles and STUDY in offered else MINE


def study_row(study_id: str, record: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    """A participant's plan item (``GET studies/{id}/participants``) as an attempt row."""
    return {
        "id": item["attempt_id"],
        "participant": record["participant"],
        "task_id": item["task_id"],
        "title": item["title"],
        "status": item["status"],
        "study_id": study_id,
        "item": item["index"],
        "n_items": len(record["items"]),
        "working_seconds": item["working_seconds"],
        "created_at": record["consent_at"] or "",
    }


def group_of(row: dict[str, Any]) -> str:
    """The key of the study or run an attempt row belongs to (``none``: neither)."""
    if row.get("run"):
        return f"run:{row['run']}"
    return f"study:{row['study_id']}" if row.get("study_id") else NONE


def group_options(
    rows: list[dict[str, Any]], studies: dict[str, str], also: Iterable[str] = ()
) -> list[tuple[str, str]]:
    """All, then each study and run the rows belong to (studies by title) and each key of
    ``also`` (a study whose participants have no attempt yet), then the rest; each with its count
    of attempts."""
    counts: dict[str, int] = dict.fromkeys(also, 0)
    for row in rows:
        counts[group_of(row)] = counts.get(group_of(row), 0) + 1

    def label(key: str) -> str:
        kind, _, name = key.partition(":")
        said = {"study": f"Study: {studies.get(name, name)}", "run": f"Run: {name}"}.get(kind)
        return f"{said or 'In no study or run'} ({counts[key]})"

    keys = sorted(k for k in counts if k != NONE) + ([NONE] if NONE in counts else [])
    return [(f"All ({len(rows)})", ALL), *((label(k), k) for k in keys)]


def _source_label(source: Source, me: dict[str, Any]) -> str:
    return f"{source.label} ({', '.join(me['classes'])})" if source.key == CLASS else source.label


def attempt_label(row: dict[str, Any]) -> str:
    """An attempt row as the picker lists it: who, the task, its status, how far or how it
    ended (:func:`passed_words`; a study's: which task of the plan and the time worked), when."""
    who = f"{row['participant']} · " if "participant" in row else ""
    if "item" in row:  # a study participant's plan item
        progress = f"task {row['item'] + 1} of {row['n_items']} · {seconds_words(row['working_seconds'])}"
    else:
        progress = passed_words(row) or f"step {row['current_step'] + 1} of {row['n_steps']}"
    return f"{who}{row['title'] or row['task_id']} · {row['status']} · {progress} · {row['created_at'][:16]}"


def passed_words(row: dict[str, Any]) -> str | None:
    """A finished attempt's passed steps as the lab's attempt list says them (src/panel/words.ts
    passedCount): ``9/12 passed``; a step not graded (e.g. a figure no judge
    rated) is neither passed nor missed: ``0/1 passed · 1 not graded``, and ``not graded`` when
    none was. None for an open attempt (no count yet)."""
    if row.get("passed") is None:
        return None
    none = row.get("not_graded") or 0
    if none >= row["n_steps"]:
        return "not graded"
    count = f"{row['passed']}/{row['n_steps'] - none} passed"
    return f"{count} · {none} not graded" if none else count


def _escape(text: str) -> str:
    from html import escape

    return escape(text)
