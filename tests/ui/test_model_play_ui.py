"""A model attached in the panel plays a task in the live notebook, driven only through the UI.

The model is our scripted OpenAI-compatible server on 127.0.0.1, which asserts every
request against the golden transcript recorded from OpenCompass's own agent: the
lab's Play all sends the original's messages byte for byte, observations read from
the notebook's kernel included.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from cibench_lab.tasks.library import builtin_dir

from .conftest import LabServer
from .test_lab_play import answer_cell, badge, open_lab, open_panel

TESTS = Path(__file__).parent.parent
sys.path.insert(0, str(TESTS))
from openai_server import ScriptedServer, exchanges_from_golden  # noqa: E402

KEY = "sk-ui-SECRET-key"
REACT = TESTS / "fixtures" / "react"


@pytest.fixture
def scripted():
    golden = json.loads((REACT / "golden_e2e.json").read_text())
    server = ScriptedServer(exchanges_from_golden(golden), model="scripted", key=KEY).start()
    yield server, golden
    server.stop()


@pytest.fixture
def model_lab(tmp_path, scripted, monkeypatch):
    server, _ = scripted
    monkeypatch.setenv("CIBENCH_UI_KEY", KEY)
    config = tmp_path / "lab_config.json"
    model = {"base_url": server.base_url, "api_key_env": "CIBENCH_UI_KEY", "backoff": 0.01}
    config.write_text(
        json.dumps(
            {
                "CIBenchLabApp": {
                    "task_dirs": [str(builtin_dir()), str(REACT / "tasks")],
                    "models": {"scripted": model},
                }
            }
        )
    )
    root = tmp_path / "workspace"
    root.mkdir()
    lab = LabServer(root, tmp_path / "results.sqlite", config)
    lab.start()
    yield lab
    lab.kill()


def start_with_the_model(page: Page, url: str, mode: str = "end-to-end") -> None:
    """Open the lab, pick the probe task, attach the scripted model, start."""
    open_lab(page, url)
    open_panel(page)
    page.locator(".jp-CIBench-filter").fill("react_probe")
    page.locator(".jp-CIBench-task").first.click()
    page.get_by_label("Player").select_option(label="scripted (cibench-react)")
    page.get_by_label(mode, exact=True).check()
    page.locator(".jp-CIBench-start").click()
    page.wait_for_selector(".jp-NotebookPanel .jp-CIBench-answer")


def test_an_attached_model_plays_a_task_in_the_notebook(page: Page, model_lab, scripted):
    server, golden = scripted
    start_with_the_model(page, model_lab.url)
    expect(page.locator(".jp-CIBench-attempt-meta")).to_contain_text("Player: model scripted")

    page.locator(".jp-CIBench-play-all").click()
    expect(page.locator(".jp-CIBench-summary")).to_be_visible(timeout=120_000)
    server.check()  # every request matched the golden transcript, and all were made

    # the model's code is in the cells, and the kernel ran it there
    first = answer_cell(page, 0)
    expect(first.locator(".cm-content")).to_contain_text("import pandas as pd")
    expect(badge(page, 0)).to_have_text(re.compile("ran without error"))
    expect(answer_cell(page, 1).locator(".cm-content")).to_contain_text("print(len(df))")
    expect(badge(page, 1)).to_have_text(re.compile(r"numbers? matched"))
    expect(badge(page, 4)).to_have_text(re.compile("final answer without code"))
    expect(page.locator(".jp-CIBench-summary tr", has_text="Tool")).to_contain_text("83.3")

    # each turn's prompt, raw reply, code, tokens and latency, from the panel
    page.get_by_role("button", name="Turns of Step 2").click()
    dialog = page.locator(".jp-Dialog")
    turns = dialog.locator(".jp-CIBench-turn")
    expect(turns).to_have_count(3)
    expect(turns.nth(0).locator(".jp-CIBench-turn-facts")).to_contain_text("ran nothing (no_action)")
    expect(turns.nth(0).locator(".jp-CIBench-turn-facts")).to_contain_text(re.compile(r"\d+ tokens"))
    turns.nth(1).locator(".jp-CIBench-turn-response summary").click()
    expect(turns.nth(1).locator(".jp-CIBench-turn-response pre")).to_have_text(golden["requests"][2]["reply"])
    turns.nth(1).locator(".jp-CIBench-turn-prompt summary").click()
    expect(turns.nth(1).locator(".jp-CIBench-turn-prompt pre")).to_contain_text("── system ──")
    turns.nth(1).locator(".jp-CIBench-turn-observation summary").click()
    expect(turns.nth(1).locator(".jp-CIBench-turn-observation pre")).to_contain_text("NameError")
    assert KEY not in dialog.inner_text()
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_have_count(0)

    # ... and from the cell's context menu
    answer_cell(page, 2).locator(".jp-InputArea-prompt").click(button="right")
    page.get_by_role("menuitem", name="CIBench: Show This Step's Turns").click()
    expect(page.locator(".jp-Dialog .jp-CIBench-turn")).to_have_count(3)
    page.locator(".jp-Dialog").get_by_role("button", name="Close").click()


def test_stop_then_play_on(page: Page, model_lab, scripted):
    server, _ = scripted
    server.exchanges[1]["faults"] = ["hang:60"]  # step 2's first request hangs
    start_with_the_model(page, model_lab.url)
    stop = page.locator(".jp-CIBench-stop")
    expect(stop).to_be_disabled()

    page.locator(".jp-CIBench-play-step").click()
    expect(badge(page, 0)).to_have_text(re.compile("ran without error"), timeout=60_000)
    expect(page.locator(".jp-CIBench-step-current")).to_contain_text("Step 2")
    expect(page.locator(".jp-CIBench-play-step")).to_be_enabled()

    page.locator(".jp-CIBench-play-step").click()
    status = page.locator(".jp-CIBench-autoplay-status")
    expect(status).to_have_text("Step 2: waiting for model scripted…")
    expect(page.locator(".jp-CIBench-play-all")).to_be_disabled()
    stop.click()
    expect(status).to_have_text("Stopped.")
    expect(page.locator(".jp-CIBench-error")).to_be_hidden()
    assert server.hanging.is_set()

    page.locator(".jp-CIBench-play-all").click()
    expect(page.locator(".jp-CIBench-summary")).to_be_visible(timeout=120_000)
    server.check()
    expect(page.locator(".jp-CIBench-summary tr", has_text="Tool")).to_contain_text("83.3")


def test_stop_interrupts_the_models_running_code(page: Page, model_lab, scripted):
    server, _ = scripted
    sleepy = (
        "Thought: Take a while.\nAction: IPythonInterpreter\n"
        "Action Input: ```python\nimport time\ntime.sleep(120)\n```"
    )
    server.exchanges[:] = [{"reply": sleepy, "served": 0, "done": False}]  # served in order
    start_with_the_model(page, model_lab.url)
    page.locator(".jp-CIBench-play-step").click()
    status = page.locator(".jp-CIBench-autoplay-status")
    running = re.compile(r"Step 1, turn 1: running model scripted's code… \(\d+ tokens, \d+\.\d\d s\)")
    expect(status).to_have_text(running, timeout=30_000)
    page.locator(".jp-CIBench-stop").click()
    expect(status).to_have_text("Stopped.", timeout=30_000)  # long before the 120 s sleep ends
    expect(badge(page, 0)).to_have_text(re.compile("raised an error"))
    expect(answer_cell(page, 0).locator(".jp-OutputArea-output")).to_contain_text("KeyboardInterrupt")
    expect(page.locator(".jp-CIBench-step-current")).to_contain_text("1 turn")  # the step goes on
    server.check()


def test_oracle_play_uses_the_references_the_notebook_ran(page: Page, model_lab, scripted, tmp_path):
    server, _ = scripted
    golden = json.loads((REACT / "golden_oracle.json").read_text())
    server.exchanges[:] = [dict(e, served=0, done=False) for e in exchanges_from_golden(golden)]
    start_with_the_model(page, model_lab.url, "oracle")
    page.locator(".jp-CIBench-play-all").click()
    expect(page.locator(".jp-CIBench-summary")).to_be_visible(timeout=120_000)
    server.check()  # the prompts held the reference outputs, as OpenCompass's oracle mode
    oracle = page.locator(".jp-NotebookPanel:visible .jp-CIBench-oracle")
    expect(oracle).to_have_count(len(golden["steps"]))  # the last one shows after the end
    # every reference the model saw was the one the notebook's kernel printed, reported by the browser
    with sqlite3.connect(tmp_path / "results.sqlite") as db:
        rows = db.execute("select source from oracle_reference order by id").fetchall()
    sources = [source for (source,) in rows]
    assert sources == ["notebook"] * (len(golden["steps"]) - 1)
