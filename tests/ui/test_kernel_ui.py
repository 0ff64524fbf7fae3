"""A person's run always reaches the attempt's kernel: a run right after Start waits for the
kernel the server started (no "Select Kernel" dialog), and a run on a kernel the server just
stopped waits for a fresh one with the attempt's state restored. Driven through the UI."""

from __future__ import annotations

import json
import re
import urllib.request

from playwright.sync_api import Page, expect

from .lab import TOKEN
from .test_lab_play import answer_cell, badge, open_lab, open_panel, press_next, run_in_cell, start_task
from .test_play_cells import PENGUINS, steps_of, stored


def rest(server, method: str, path: str):
    """The Jupyter server's REST API with the token (as a script outside the page would)."""
    request = urllib.request.Request(
        f"{server.url}{path}", method=method, headers={"Authorization": f"token {TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        body = reply.read()
    return json.loads(body) if body else None


SESSION_READS = re.compile(r"/api/(sessions|contents/.*/checkpoints)(\?.*)?$")


def hold_session_reads(page: Page) -> list:
    """Hold the page's GETs of the running sessions and of a notebook's checkpoints (JupyterLab
    reads both before it connects a notebook to its session) until `release`."""
    held: list = []

    def hold(route):
        if route.request.method == "GET":
            held.append(route)
        else:
            route.continue_()

    page.route(SESSION_READS, hold)
    return held


def release(page: Page, held: list) -> None:
    for route in held:
        route.continue_()
    page.unroute(SESSION_READS)


def final_or_dialog(page: Page, step: int):
    """The step's graded badge, or any dialog: whichever comes first."""
    final = answer_cell(page, step).locator('.jp-CIBench-badge[data-state="final"]')
    return final.or_(page.locator(".jp-Dialog")).first


def test_a_run_right_after_start_waits_for_the_attempts_kernel(page: Page, lab_server):
    """The lab's reads of the notebook's checkpoints and of the running sessions are held until the
    run is pressed: it comes before the notebook's session is connected to the kernel the server
    started, every time (by hand: Start, then Shift+Enter within a second)."""
    open_lab(page, lab_server.url)
    open_panel(page)
    held = hold_session_reads(page)
    start_task(page, "penguins_raw_tidy", "end-to-end")
    answer_cell(page, 0).locator(".cm-content").click()
    page.keyboard.insert_text(steps_of(PENGUINS)[0])
    page.keyboard.press("Shift+Enter")
    release(page, held)
    expect(final_or_dialog(page, 0)).to_be_visible(timeout=60_000)
    expect(page.locator(".jp-Dialog")).to_have_count(0)
    expect(badge(page, 0)).to_have_text(re.compile("passed · ran without error"))
    # the run went to the kernel the server started for the attempt, and no other kernel started
    view = stored(page, f"attempts/{stored(page, 'attempts')[0]['id']}")
    assert [k["id"] for k in rest(lab_server, "GET", "/api/kernels")] == [view["kernel_id"]]
    assert view["steps"][0]["turns"] == 1


def test_a_run_on_a_kernel_just_stopped_by_the_server_is_revived_and_graded(page: Page, lab_server):
    """The server shuts the attempt's kernel down and the person runs at once, before JupyterLab
    noticed: the run waits for a fresh kernel with the attempt's state, then runs there."""
    open_lab(page, lab_server.url)
    open_panel(page)
    start_task(page, "penguins_raw_tidy", "end-to-end")
    code = steps_of(PENGUINS)
    run_in_cell(page, 0, code[0])
    expect(badge(page, 0)).to_have_attribute("data-state", "final", timeout=60_000)
    press_next(page)
    answer_cell(page, 1).locator(".cm-content").click()
    page.keyboard.insert_text(code[1])  # builds on step 1's `raw`: passes only on a restored kernel
    attempt = f"attempts/{stored(page, 'attempts')[0]['id']}"
    old = stored(page, attempt)["kernel_id"]
    rest(lab_server, "DELETE", f"/api/kernels/{old}")
    page.keyboard.press("Shift+Enter")
    expect(final_or_dialog(page, 1)).to_be_visible(timeout=90_000)
    expect(page.locator(".jp-Dialog")).to_have_count(0)
    expect(badge(page, 1)).to_have_text(re.compile(r"passed · text ROUGE-1 1\.00"))
    # the note says so, and no longer asks to run the cell again: the run was not lost
    note = page.locator(".jp-CIBench-kernelNote-text")
    expect(note).to_have_text("Kernel stopped — restored")
    view = stored(page, attempt)
    assert view["kernel"] == "running" and view["kernel_id"] != old
    assert [k["id"] for k in rest(lab_server, "GET", "/api/kernels")] == [view["kernel_id"]]
    assert view["steps"][1]["turns"] == 1
