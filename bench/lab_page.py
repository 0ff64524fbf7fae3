"""The page side of bench/lab.py: UI actions in the lab and the in-page probes (lab_probe.js).

Relies on the lab's own DOM and on these CIBench selectors only: .jp-CIBench-filter,
.jp-CIBench-task, .jp-CIBench-start, .jp-CIBench-answer[data-step=N] and the badge classes
(read by the probe).
"""

from __future__ import annotations

import json
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

PROBE = Path(__file__).with_name("lab_probe.js")
PANEL_TAB = '.jp-SideBar .lm-TabBar-tab[data-id="cibench-lab-panel"]'
WORKSPACE = "cibench-bench"  # one lab workspace, so a reload restores the attempt's notebook
PLAIN_CODE = "bench_plain = 1"
RUN_TIMEOUT_MS = 120_000  # one run, the first of a kind included (imports, the first plot)
START_TIMEOUT_MS = 180_000  # one Start: a sandboxed kernel on a busy machine


class Deadline:
    """The whole run's time bound (--timeout): checked before every start and run."""

    def __init__(self, seconds: float):
        self.seconds, self.end = seconds, time.monotonic() + seconds

    def check(self, doing: str) -> None:
        if time.monotonic() > self.end:
            raise TimeoutError(f"--timeout {self.seconds:.0f} s reached while {doing}")


class Api:
    """The server's REST API with the server's token (reads, and the settles between steps)."""

    def __init__(self, url: str, token: str):
        self.base, self.token = f"{url}/cibench-lab/api", token

    def call(self, method: str, path: str, body: dict | None = None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"{self.base}/{path}", data=data, method=method)
        req.add_header("Authorization", f"token {self.token}")
        req.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(req, timeout=60) as resp:
            return json.loads(resp.read())

    def attempt_ids(self) -> set[str]:
        return {row["id"] for row in self.call("GET", "attempts")}

    def sandboxed_view(self, attempt_id: str) -> dict:
        """The attempt's view; SystemExit unless it says its kernel is sandboxed."""
        view = self.call("GET", f"attempts/{attempt_id}")
        sandbox = view.get("sandbox") or {}
        if sandbox.get("enabled") is not True:
            raise SystemExit(
                f"bench/lab.py: attempt {attempt_id} says the kernel sandbox is off ({sandbox!r}); "
                "this benchmark measures the lab as people get it, sandbox on"
            )
        return view


@dataclass
class Lab:
    """One browser page on the server's lab."""

    page: Page
    url: str
    token: str
    tries: list[str] = field(default_factory=list)

    def open(self) -> None:
        self.page.goto(f"{self.url}/lab/workspaces/{WORKSPACE}?token={self.token}")
        self.page.wait_for_selector(".jp-LabShell")
        self.page.wait_for_function("() => window.cibenchBench && cibenchBench.appReady()")
        self.page.evaluate("() => jupyterapp.restored.then(() => true)")

    def show_panel(self) -> None:
        tab = self.page.locator(PANEL_TAB)
        if "lm-mod-current" not in (tab.get_attribute("class") or ""):
            tab.click()

    def visible(self, selector: str, ms: float) -> bool:
        try:
            self.page.locator(selector).first.wait_for(state="visible", timeout=ms)
            return True
        except PlaywrightError:
            return False

    def to_task_list(self) -> None:
        """Make the panel show its task list: as it is, by its "All tasks" button, or on a fresh page."""
        for way, wait_ms in (
            ("as is", 300),
            ("all tasks", 5_000),
            ("fresh page", 5_000),
            ("all tasks", 5_000),
        ):
            if way == "fresh page":
                self.tries.append(way)
                self.open()
            elif way == "all tasks":
                back = self.page.get_by_role("button", name="All tasks")
                if back.count():
                    back.first.click()
            self.show_panel()
            if self.visible(".jp-CIBench-filter", wait_ms):
                return
        raise RuntimeError("the panel's task list (.jp-CIBench-filter) never showed")

    def choose(self, task_id: str) -> None:
        """Make the panel show `task_id` with its Start button (from the task list)."""
        self.to_task_list()
        page = self.page
        filt = page.locator(".jp-CIBench-filter")
        filt.fill(task_id.rsplit("/", 1)[-1])
        rows = page.locator(".jp-CIBench-task")
        rows.first.wait_for()
        index = page.evaluate(
            """(id) => [...document.querySelectorAll('.jp-CIBench-task')]
                .findIndex(el => el.dataset.taskId === id || el.title === id)""",
            task_id,
        )
        rows.nth(max(index, 0)).click()
        page.locator(".jp-CIBench-start").wait_for()

    def start(self, api: Api, task_id: str) -> tuple[dict, str]:
        """Press Start; the probe's record of it and the new attempt's id."""
        self.choose(task_id)
        before = api.attempt_ids()
        self.page.evaluate("() => cibenchBench.armStart()")
        self.page.locator(".jp-CIBench-start").click()
        try:
            self.page.wait_for_function("() => cibenchBench.start.ready !== null", timeout=START_TIMEOUT_MS)
        except PlaywrightError as err:
            state = self.page.evaluate("() => cibenchBench.start")
            raise RuntimeError(f"a start never got ready: {state}") from err
        new = api.attempt_ids() - before
        if len(new) != 1:
            raise RuntimeError(f"Start made {len(new)} attempts, expected one")
        return self.page.evaluate("() => cibenchBench.start"), new.pop()

    def close_started(self) -> None:
        if not self.page.evaluate("() => cibenchBench.closeStarted()"):
            raise RuntimeError("the started attempt's notebook was not found to close")

    # ---- cells -----------------------------------------------------------------------
    def answer(self, step: int):
        return self.page.locator(f'.jp-NotebookPanel:visible .jp-CIBench-answer[data-step="{step}"]')

    def plain(self):
        return self.page.locator('.jp-NotebookPanel:visible [data-cibench-bench="plain"]')

    def type_answer(self, step: int, code: str) -> None:
        self.answer(step).locator(".cm-content").click()
        self.page.keyboard.press("Control+a")
        self.page.keyboard.press("Delete")
        self.page.keyboard.insert_text(code)

    def add_plain_cell(self, step: int) -> None:
        """A new code cell below the answer cell (keyboard: Esc, B), holding PLAIN_CODE."""
        self.answer(step).locator(".cm-content").click()
        self.page.keyboard.press("Escape")
        self.page.keyboard.press("b")
        self.page.evaluate("() => cibenchBench.markPlain()")
        self.page.keyboard.press("Enter")
        self.page.keyboard.insert_text(PLAIN_CODE)
        self.page.keyboard.press("Escape")

    def run(self, step: int, plain: bool) -> dict:
        """Run the answer (or plain) cell with Ctrl+Enter; the probe's record of the run."""
        self.page.evaluate("([s, p]) => cibenchBench.armRun(s, p)", [step, plain])
        cell = self.plain() if plain else self.answer(step)
        cell.locator(".cm-content").click()
        self.page.keyboard.press("Control+Enter")
        try:
            self.page.wait_for_function("() => cibenchBench.run.done", timeout=RUN_TIMEOUT_MS)
        except PlaywrightError as err:
            state = self.page.evaluate("() => { cibenchBench.disarm(); return cibenchBench.run; }")
            what = "plain cell" if plain else f"step {step + 1}'s answer cell"
            raise RuntimeError(f"a run of the {what} did not finish with a final badge: {state}") from err
        return self.page.evaluate("() => cibenchBench.run")

    def reopen_at(self, notebook_path: str, step: int) -> None:
        """Reload the page, open the attempt's notebook, wait for `step`'s cell and the kernel."""
        self.page.evaluate("() => cibenchBench.save()")
        self.open()
        self.page.evaluate("(path) => jupyterapp.commands.execute('docmanager:open', {path})", notebook_path)
        self.wait_step(step, since=0)

    def now(self) -> float:
        return self.page.evaluate("() => performance.now()")

    def wait_step(self, step: int, since: float) -> None:
        self.page.wait_for_function(
            "([s, t]) => cibenchBench.stepReady(s, t)", arg=[step, since], timeout=START_TIMEOUT_MS
        )


def new_lab(browser, url: str, token: str) -> Lab:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.add_init_script(path=str(PROBE))
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.on("dialog", lambda dialog: dialog.accept())
    lab = Lab(page, url, token)
    lab.open()
    return lab
