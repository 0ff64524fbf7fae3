"""The documentation site builds with no warning (`bash scripts/docs`'s Sphinx command, into a temporary
folder), every link inside it lands on a page and an anchor that exist, and its generated references hold
everything the code defines: each server option (the traits), each command-line option (the argparse
parser), each REST route (docs/openapi.json) and each lab setting (schema/plugin.json). The README stays a
landing page. The build takes about half a minute on two loaded cores."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from docpages import ROOT

README_LIMIT = 5 * 1024
AUDIENCES = ["play", "research", "teach", "operate", "develop", "reference"]


class Page(HTMLParser):
    """A built page's element ids and the targets of its links."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(str(found["id"]))
        if tag == "a" and found.get("href"):
            self.links.append(str(found["href"]))


def words(html: str) -> str:
    """A page's text: its tags dropped, its entities read."""
    return unescape(re.sub(r"<[^>]+>", "", html))


def parsed(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    pytest.importorskip("sphinx", reason="the docs extra: EXTRAS=',docs' bash scripts/setup")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
        + ["-d", str(out / "doctrees"), "docs", str(out / "html")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0 and "WARNING" not in done.stderr, done.stderr[-4000:]
    return out / "html"


def test_every_link_in_the_site_lands_on_a_page_and_an_anchor(site):
    pages = {path: parsed(path) for path in site.rglob("*.html") if "_static" not in path.parts}
    broken = []
    for path, page in pages.items():
        for href in page.links:
            url = urlsplit(href)
            if url.scheme or url.netloc or href.startswith("mailto:"):
                continue
            target = (path.parent / unquote(url.path)).resolve() if url.path else path
            if target.suffix != ".html":
                if not target.exists():
                    broken.append(f"{path.relative_to(site)}: {href}")
                continue
            landing = pages.get(target)
            if landing is None or (url.fragment and unquote(url.fragment) not in landing.ids):
                broken.append(f"{path.relative_to(site)}: {href}")
    assert not broken, broken


def test_the_options_page_holds_every_trait(site):
    from cibench_lab.app.traits import CIBenchLabTraits

    html = (site / "reference" / "options.html").read_text(encoding="utf-8")
    ids = parsed(site / "reference" / "options.html").ids
    traits = CIBenchLabTraits.class_own_traits(config=True)
    assert len(traits) >= 40
    for name, trait in traits.items():
        assert f"option-{name.replace('_', '-')}" in ids, name
        first_words = " ".join(trait.help.replace("`", "").split()[:6])
        assert first_words in " ".join(words(html).split()), name


def parsers(parser: argparse.ArgumentParser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from parsers(sub)


def test_the_command_line_page_holds_every_command_and_option(site):
    from cibench_lab.cli import build_parser

    text = words((site / "reference" / "cli.html").read_text(encoding="utf-8"))
    every = list(parsers(build_parser()))
    assert len(every) >= 15
    missing = [
        f"{p.prog}: {option}"
        for p in every
        for action in p._actions
        for option in action.option_strings
        if option.startswith("--") and option not in text
    ]
    missing += [p.prog for p in every if p.prog.removeprefix("cibench-lab ") not in text]
    assert not missing, missing


def test_the_rest_page_holds_every_route(site):
    text = (site / "reference" / "rest.html").read_text(encoding="utf-8")
    document = json.loads((ROOT / "docs" / "openapi.json").read_text(encoding="utf-8"))
    missing = [
        f"{method.upper()} {path}"
        for path, operations in document["paths"].items()
        for method in operations
        if method in ("get", "post", "put", "patch", "delete")
        and not re.search(rf"{method.upper()}\s*(<[^>]+>\s*)*{re.escape(path)}", text)
    ]
    assert not missing, missing


def test_the_lab_settings_page_holds_every_setting_and_shortcut(site):
    text = (site / "reference" / "lab-settings.html").read_text(encoding="utf-8")
    schema = json.loads((ROOT / "schema" / "plugin.json").read_text(encoding="utf-8"))
    for name, spec in schema["properties"].items():
        assert f'<span class="pre">{name}</span>' in text, name
        assert spec["description"][:60] in words(text), name
    for shortcut in schema["jupyter.lab.shortcuts"]:
        assert shortcut["command"] in text


@pytest.mark.fast
def test_the_readme_is_a_landing_page():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode()) <= README_LIMIT, len(readme.encode())
    first_block = readme.split("```bash\n", 1)[1].split("```", 1)[0].splitlines()
    assert [line.split("#")[0].strip() for line in first_block] == ["bash scripts/play", "bash scripts/test"]
    for audience in AUDIENCES:
        assert f"](docs/{audience}/index.md)" in readme, audience
        assert (ROOT / "docs" / audience / "index.md").exists()
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", readme)
    assert images and all((ROOT / image).stat().st_size < 200_000 for image in images), images
