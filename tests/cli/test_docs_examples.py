"""Every JSON and TOML example in the docs is one the product accepts: a study file loads and its tasks exist
(the loader the server uses, `studies/definition.py`), a model config builds its models
(`models/config.py`), a server config names real options with values the server takes. An example none of
these covers fails too, so a new one is checked once it is written."""

from __future__ import annotations

import json
import re
import sys
import textwrap
from typing import Any

import pytest
from docpages import PAGES, ROOT
from traitlets.config import Config

from cibench_lab.models.config import ModelRegistry
from cibench_lab.studies.definition import StudyDef, check_tasks, load_studies, parse_study
from cibench_lab.tasks.library import TaskLibrary, builtin_dir

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser, from PyPI (the test extra)
    import tomli as tomllib

pytestmark = pytest.mark.fast

FENCED = re.compile(r"^( *)```(json|toml)\n(.*?)^\1```", re.M | re.S)


def examples() -> list[tuple[str, str, Any]]:
    """(``page:line``, the language, the parsed example) of every JSON and TOML block in the docs."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for block in FENCED.finditer(text):
            where = f"{page.relative_to(ROOT)}:{text[: block.start()].count(chr(10)) + 1}"
            body = textwrap.dedent(block.group(3))
            data = json.loads(body) if block.group(2) == "json" else tomllib.loads(body)
            found.append((where, block.group(2), data))
    return found


EXAMPLES = examples()


@pytest.fixture(scope="module")
def library() -> TaskLibrary:
    return TaskLibrary.load([builtin_dir()])


def a_study(where: str, data: dict[str, Any], library: TaskLibrary) -> StudyDef:
    study = parse_study(data, where, default_id="example")
    check_tasks(study, library, where)
    return study


def test_the_docs_have_examples_of_each_kind():
    kinds = [kind(data) for _, _, data in EXAMPLES]
    assert {"study", "tasks", "models", "server"} <= set(kinds), list(zip(EXAMPLES, kinds, strict=True))


def kind(data: Any) -> str:
    if "consent" in data:
        return "study"  # a whole study file
    if set(data) == {"tasks"}:
        return "tasks"  # a fixed task list that replaces the page's study's draw
    if set(data) == {"models"}:
        return "models"  # --model-config, model_config_file
    if set(data) == {"CIBenchLabApp"}:
        return "server"  # jupyter_server_config.json
    return "unknown"


@pytest.mark.parametrize(("where", "lang", "data"), EXAMPLES, ids=[where for where, _, _ in EXAMPLES])
def test_a_documented_example_is_accepted(where, lang, data, library):
    what = kind(data)
    assert what != "unknown", f"{where}: a {lang} example this test does not know how to check"
    if what == "study":
        a_study(where, data, library)
    elif what == "tasks":
        page = where.rsplit(":", 1)[0]
        (study,) = [d for w, _, d in EXAMPLES if w.rsplit(":", 1)[0] == page and kind(d) == "study"]
        fixed = {k: v for k, v in study.items() if k != "draw"} | data
        assert [t.task for t in a_study(where, fixed, library).tasks or []] == [
            t["task"] for t in data["tasks"]
        ]
    elif what == "models":
        registry = ModelRegistry(data["models"])
        assert [m["name"] for m in registry.public()] == list(data["models"])
    else:
        a_server_config(where, data["CIBenchLabApp"], library)


def a_server_config(where: str, options: dict[str, Any], library: TaskLibrary) -> None:
    from cibench_lab.app.extension import CIBenchLabApp

    unknown = set(options) - set(CIBenchLabApp.class_traits(config=True))
    assert not unknown, f"{where}: not options of the server: {sorted(unknown)}"
    app = CIBenchLabApp(config=Config({"CIBenchLabApp": options}))  # a TraitError for a value it refuses
    ModelRegistry(app.models)
    load_studies([], app.studies, library)
