"""The lab in Chinese, through the UI only: a participant switches JupyterLab to 中文 (Settings → Language,
with JupyterLab's zh-CN language pack installed) and the CIBench panel, a study's consent form and a run's
badge speak Chinese, from the catalog cibench_lab ships (cibench_lab/locale/zh_CN, found through the
``jupyterlab.locale`` entry point); the study's own words (its title, its consent text) stay the study's."""

from __future__ import annotations

import re
from importlib.metadata import entry_points

import pytest
from playwright.sync_api import Page, expect

from .lab import TOKEN
from .lab import configured_lab as start_lab
from .test_lab_play import badge, run_in_cell

STUDY = """
id = "pilot"
title = "Pilot study"
protocol = "practice"
consent = '''
We record the code you run, its outputs and your working time.
'''
tasks = [
  { task = "cibench_template/pandas/tips_ratio_by_group" },
]
"""


def installed(group: str, name: str) -> bool:
    return any(ep.name == name for ep in entry_points(group=group))


@pytest.fixture
def study_lab(tmp_path):
    # the lab offers a language only with its pack, and finds our catalog only through our entry point
    if not installed("jupyterlab.languagepack", "zh_CN"):
        pytest.fail("this test needs JupyterLab's Chinese: pip install jupyterlab-language-pack-zh-CN")
    if not installed("jupyterlab.locale", "cibench_lab"):
        pytest.fail("cibench_lab's jupyterlab.locale entry point is not installed: pip install -e '.[test]'")
    path = tmp_path / "pilot.toml"
    path.write_text(STUDY)
    server = start_lab(tmp_path, {"study_files": [str(path)]})
    yield server
    server.kill()


def switch_language(page: Page, language: re.Pattern) -> None:
    """Settings → Language → ``language``, then the lab's own prompt to reload."""
    page.get_by_role("menuitem", name="Settings", exact=True).click()
    # a submenu's item has no role of its own (Lumino's): found by its label
    page.locator(".lm-Menu-item", has_text=re.compile("^Language")).hover()
    page.locator(".lm-Menu-item", has_text=language).click()
    with page.expect_navigation(timeout=60_000):
        page.locator(".jp-Dialog").get_by_role("button", name="Change and reload").click()
    page.wait_for_selector(".jp-LabShell", timeout=60_000)


def test_the_panel_the_consent_form_and_a_badge_speak_chinese(page: Page, study_lab):
    page.goto(f"{study_lab.url}/lab?token={TOKEN}")
    page.wait_for_selector(".jp-LabShell")
    switch_language(page, re.compile("中文"))
    expect(page.get_by_role("menuitem", name="设置", exact=True)).to_be_visible()  # JupyterLab's own pack

    # the panel: its tab, its heading tools and its task list
    tab = page.locator('.jp-SideBar .lm-TabBar-tab[data-id="cibench-lab-panel"]')
    if not page.locator(".jp-CIBench-panel").is_visible():
        tab.click()
    panel = page.locator(".jp-CIBench-panel")
    expect(panel.get_by_role("button", name="刷新")).to_be_visible()
    expect(panel.get_by_label("筛选任务", exact=True)).to_be_visible()
    expect(panel.locator(".jp-CIBench-count")).to_have_text(re.compile(r"^\d+ 个任务$"))
    start = panel.get_by_role("button", name="开始", exact=True)
    expect(start).to_be_disabled()
    expect(start).to_have_accessible_description("请先选择一个任务")

    # the study: its consent form in Chinese around the organiser's own (English) text
    panel.locator('.jp-CIBench-studies [data-study="pilot"]').click()
    view = page.locator(".jp-CIBench-studyView")
    expect(view.locator(".jp-CIBench-studyTitle")).to_have_text("Pilot study")
    form = view.get_by_role("form", name="知情同意")
    expect(form.get_by_role("region", name="知情同意书")).to_contain_text("We record the code you run")
    expect(view.locator(".jp-CIBench-attempt-meta")).to_have_text(
        "练习：边做边评分，每个步骤保留你最好的一次运行"
    )
    form.get_by_label("我已阅读以上内容并同意参与").check()
    form.get_by_role("button", name="同意并继续").click()
    expect(view.get_by_role("status")).to_have_text("任务 1/1 · 下一个")

    # a run's badge: the pass word and the grade rule in Chinese
    view.get_by_role("button", name="开始下一个任务").click()
    page.wait_for_selector(".jp-NotebookPanel .jp-CIBench-answer", timeout=60_000)
    expect(page.locator(".jp-CIBench-panel")).to_have_attribute("aria-busy", "false")
    run_in_cell(page, 0, "print('hi')")
    expect(badge(page, 0)).to_have_attribute("data-state", "final", timeout=60_000)
    expect(badge(page, 0).locator(".jp-CIBench-badge-word")).to_have_text(re.compile("^(通过|未通过)$"))
    expect(badge(page, 0).locator(".jp-CIBench-badge-rule")).to_have_text(re.compile("^保留最佳一次运行"))
    expect(page.locator(".jp-CIBench-actionBar .jp-CIBench-next")).to_have_text("下一步")
