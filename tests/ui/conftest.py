"""Browser tests: a real `jupyter lab` process and Debian's chromium driven by Playwright."""

from __future__ import annotations

from pathlib import Path

import pytest

from .lab import CHROMIUM, TOKEN, LabServer, launch_chromium

__all__ = ["TOKEN", "LabServer"]  # the tests import them from here


@pytest.fixture
def lab_server(tmp_path):
    root = tmp_path / "workspace"
    root.mkdir()
    server = LabServer(root, tmp_path / "results.sqlite")
    server.start()
    yield server
    server.kill()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"browser tests need {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import expect

    # an assertion waits as long as an action (Playwright's own default is 5 s): on two loaded cores a
    # panel's state can take longer than that to settle, and a wait that ends early is a false failure
    expect.set_options(timeout=30_000)
    with sync_playwright() as pw:
        b = launch_chromium(pw)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    context.close()


@pytest.fixture(autouse=True)
def jp_asyncio_loop():
    """Browser tests need no server-side event loop (pytest-jupyter's autouse loop would
    be picked up, and later closed under, Playwright's sync driver)."""
    yield None


@pytest.fixture(autouse=True)
def jp_server_cleanup():
    """No in-process Jupyter server here: the browser tests run `jupyter lab` as a process."""
    yield
