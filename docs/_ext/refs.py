"""The site's generated references: directives that write Markdown from the code, parsed in place.

- ``{cibench-options}``: every configurable trait of ``CIBenchLabApp`` (``cibench_lab/app/traits.py``),
  in the order they are declared, with its type, default and help — the help is the only text;
- ``{cibench-lab-settings}``: the lab's settings and keyboard shortcuts from ``schema/plugin.json``.

Each directive renders Markdown and hands it to MyST (``nested_parse`` in a MyST page parses Markdown), so
the pages look like the hand-written ones and nothing here is restated by hand.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective
from traitlets import Bool, Dict, Enum, Float, Int, List, TraitType, Unicode

ROOT = Path(__file__).resolve().parents[2]
PLUGIN_SCHEMA = ROOT / "schema" / "plugin.json"
SPECIAL = re.compile(r"([<>*\[\]|])")  # Markdown would read these outside code spans


def markdown_text(text: str) -> str:
    """``text`` (a help string) as Markdown: code spans kept, ``<dir>``, ``*``, ``[…]`` and ``|`` escaped."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code spans at all
        return SPECIAL.sub(r"\\\1", text)
    return "`".join(part if i % 2 else SPECIAL.sub(r"\\\1", part) for i, part in enumerate(parts))


def config_traits(cls: type) -> list[tuple[str, TraitType]]:
    """``cls``'s own configurable traits, in the order the class declares them."""
    return [
        (name, value)
        for name, value in vars(cls).items()
        if isinstance(value, TraitType) and value.metadata.get("config")
    ]


def trait_type(trait: TraitType) -> str:
    """What a trait takes, in words."""
    if isinstance(trait, Enum):
        return "one of " + ", ".join(f"`{v}`" for v in trait.values or [])
    if isinstance(trait, List):
        return "a list of strings"
    if isinstance(trait, Dict):
        return "a table (dict)"
    kinds = {Bool: "true or false", Int: "a whole number", Float: "a number", Unicode: "a string"}
    return next((words for kind, words in kinds.items() if isinstance(trait, kind)), type(trait).__name__)


def trait_default(trait: TraitType) -> str:
    value = trait.default()
    if value == "":
        return "empty"
    return f"`{json.dumps(value)}`"


def option_markdown(section: str, name: str, trait: TraitType) -> list[str]:
    """One option as a definition list entry with a target (``option-NAME``)."""
    return [
        f"(option-{name})=",
        f"`{name}`",
        f": {trait_type(trait)}; default {trait_default(trait)}. `--{section}.{name}=…`",
        "",
        f"  {markdown_text(trait.help)}",
        "",
    ]


class _Markdown(SphinxDirective):
    """A directive whose output is Markdown it writes (``lines``), parsed where it stands."""

    def lines(self) -> list[str]:
        raise NotImplementedError

    def run(self) -> list[nodes.Node]:
        container = nodes.container()
        self.state.nested_parse(StringList(self.lines(), source=self.get_source_info()[0]), 0, container)
        return container.children


class OptionsDirective(_Markdown):
    """Every ``CIBenchLabApp`` option, generated from the traits."""

    def lines(self) -> list[str]:
        from cibench_lab.app.traits import CIBenchLabTraits

        self.env.note_dependency(str(ROOT / "cibench_lab" / "app" / "traits.py"))
        out: list[str] = []
        for name, trait in config_traits(CIBenchLabTraits):
            out += option_markdown("CIBenchLabApp", name, trait)
        return out


def setting_row(name: str, spec: dict[str, Any]) -> str:
    kind = spec.get("type", "")
    choices = spec.get("enum") or [choice["const"] for choice in spec.get("oneOf", [])]
    if choices:
        kind = " \\| ".join(f"`{v}`" for v in choices)
    elif "minimum" in spec:
        kind += f" ≥ {spec['minimum']}"
    cells = [f"`{name}`", kind, f"`{json.dumps(spec.get('default'))}`", markdown_text(spec.get("title", ""))]
    cells.append(markdown_text(spec.get("description", "")))
    return "| " + " | ".join(cells) + " |"


class LabSettingsDirective(_Markdown):
    """The lab's settings (*Settings → CIBench*) and shortcuts, generated from ``schema/plugin.json``."""

    def lines(self) -> list[str]:
        self.env.note_dependency(str(PLUGIN_SCHEMA))
        schema = json.loads(PLUGIN_SCHEMA.read_text(encoding="utf-8"))
        out = [markdown_text(schema["description"]), ""]
        out += ["| setting | takes | default | title | what it does |", "| --- | --- | --- | --- | --- |"]
        out += [setting_row(name, spec) for name, spec in schema["properties"].items()]
        out += [
            "",
            "Keyboard shortcuts it adds (JupyterLab's *Settings → Keyboard Shortcuts* can change them):",
            "",
        ]
        out += ["| command | keys | where |", "| --- | --- | --- |"]
        for short in schema.get("jupyter.lab.shortcuts", []):
            keys = " ".join(short["keys"]).replace("Accel", "Ctrl")
            out.append(f"| `{short['command']}` | {keys} | `{short['selector']}` |")
        return out


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("cibench-options", OptionsDirective)
    app.add_directive("cibench-lab-settings", LabSettingsDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
