"""Task templates: one workflow written once, instantiated over interchangeable datasets.

A template is a CIBench-format notebook whose markdown and code cells (and the
string fields of ``metadata.cibench_lab``) hold ``{{name}}`` placeholders, next to
a datasets table ``<name>.datasets.json``::

    {"template": "tips_eda.ipynb",             # relative to the table
     "lib": "pandas",                           # -> <split>/<lib>/<stem>
     "translations": {"cibench_template_chinese": "tips_eda.zh.ipynb"},   # optional
     "instances": [
       {"stem": "tips_eda_tips", "params": {"file": "data/tips.csv", "target": "tip"},
        "meta": {"title": "...", "intro": "...", "data_files": ["data/tips.csv"],
                 "data_source": "...", "licence": "..."}}]}

Instantiation substitutes the parameters (``{{name}}`` -> ``str(value)``), merges
``meta`` into ``metadata.cibench_lab``, records ``template = {name, params}``,
clears outputs and writes ``<into>/<split>/<lib>/<stem>.ipynb`` for the template
(split ``cibench_template``) and for each translation -- unless the task lint
(:mod:`cibench_lab.tasks.lint`) flags any of them: then none is written.  References are then
recorded by executing the notebooks (``python -m cibench_lab.authoring.build PATH...``,
or ``cibench-lab tasks build TABLE...`` for both at once).
An unknown or unused placeholder is an error naming the file and the cell.

Extensions (all optional):

- ``"variants": {"cibench_generation": "tips_eda.ipynb"}`` — more splits, like
  ``translations``.  A split's language is ``zh`` when its name contains
  ``chinese``, else ``en``; a ``cibench_generation*`` split is written without
  ``step_types`` and ``modules`` (the generation split's kinds are detected from
  the reference outputs, and the official loader refuses ``modules`` alone).
- ``"splits": ["cibench_template", "cibench_generation"]`` in an instance —
  write that instance to these splits only (default: every split of the table).
- ``"meta_zh": {"title": "...", "intro": "..."}`` in an instance — merged over
  ``meta`` in the Chinese splits (placeholders allowed).
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
from pathlib import Path
from typing import Any

import nbformat

from .errors import TaskError

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def substitute(text: str, params: dict[str, Any], path: str, cell: int | None, used: set[str]) -> str:
    def repl(match: re.Match) -> str:
        key = match.group(1)
        if key not in params:
            raise TaskError(path, f"placeholder {{{{{key}}}}} has no value in the datasets table", cell)
        used.add(key)
        return str(params[key])

    return PLACEHOLDER.sub(repl, text)


def instantiate(template: Path, instance: dict[str, Any], used: set[str]) -> nbformat.NotebookNode:
    """One instance of a template notebook, outputs cleared.

    The parameter names it uses are added to ``used``: a parameter unused by one split may
    be used by another, so the table checks them over all its splits (``build_table``).
    """
    name = str(template)
    try:
        nb = nbformat.read(str(template), as_version=4)
    except (OSError, ValueError) as err:
        raise TaskError(name, f"not a readable template notebook ({err})") from None
    params = dict(instance.get("params") or {})
    for i, cell in enumerate(nb.cells):
        cell.source = substitute(cell.source, params, name, i, used)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    meta = copy.deepcopy(nb.metadata.get("cibench_lab") or {"schema_version": 1})
    meta.update(copy.deepcopy(instance.get("meta") or {}))
    for key, value in list(meta.items()):
        if isinstance(value, str):
            meta[key] = substitute(value, params, name, None, used)
        elif isinstance(value, list):
            meta[key] = [substitute(v, params, name, None, used) if isinstance(v, str) else v for v in value]
    meta["schema_version"] = 1
    meta["template"] = {"name": template.stem.split(".")[0], "params": params}
    nb.metadata["cibench_lab"] = meta
    return nb


def table_sources(table: Path, spec: dict[str, Any]) -> dict[str, Path]:
    """Split -> template notebook, for every split the table names."""
    sources = {"cibench_template": table.parent / spec["template"]}
    for key in ("translations", "variants"):
        sources.update({split: table.parent / f for split, f in (spec.get(key) or {}).items()})
    return sources


def for_split(nb: nbformat.NotebookNode, split: str, instance: dict[str, Any]) -> nbformat.NotebookNode:
    """Adjust an instance to its split: language, and no step_types in the generation split."""
    meta = nb.metadata["cibench_lab"]
    meta["language"] = "zh" if "chinese" in split else "en"
    if meta["language"] == "zh":
        params = dict(instance.get("params") or {})
        for key, value in (instance.get("meta_zh") or {}).items():
            meta[key] = substitute(value, params, split, None, set()) if isinstance(value, str) else value
    if split.startswith("cibench_generation"):
        nb.metadata.pop("step_types", None)
        nb.metadata.pop("modules", None)
    return nb


def _lint(notebooks: dict[Path, nbformat.NotebookNode], lib: str) -> None:
    """Refuse the whole table when the lint flags any of its notebooks (none is written)."""
    from .lint import lint_text, refusal

    flags = []
    for out, nb in notebooks.items():
        flags += lint_text(nbformat.writes(nb), out, f"{out.parent.parent.name}/{lib}/{out.stem}")
    if flags:
        raise TaskError(str(next(iter(notebooks))), refusal(flags) + "\n(nothing written)")


def build_table(table: Path, into: Path, lint: bool = True) -> list[Path]:
    """Write every instance (and translation / variant) of a datasets table; return the paths.

    With ``lint`` (the default) nothing is written when the task lint flags any instance."""
    try:
        spec = json.loads(table.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise TaskError(str(table), f"not a readable datasets table ({err})") from None
    sources = table_sources(table, spec)
    pending: dict[Path, nbformat.NotebookNode] = {}
    for instance in spec["instances"]:
        splits = instance.get("splits") or list(sources)
        unknown = set(splits) - set(sources)
        if unknown:
            raise TaskError(str(table), f"instance {instance['stem']!r} names unknown split(s) {unknown}")
        used: set[str] = set()
        notebooks = {
            split: for_split(instantiate(sources[split], instance, used), split, instance) for split in splits
        }
        unused = set(instance.get("params") or {}) - used
        if unused:
            raise TaskError(
                str(table), f"instance {instance['stem']!r}: unused parameter(s) {', '.join(sorted(unused))}"
            )
        for split, nb in notebooks.items():
            pending[into / split / spec["lib"] / f"{instance['stem']}.ipynb"] = nb
    if lint and pending:
        _lint(pending, spec["lib"])
    for out, nb in pending.items():
        out.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, str(out))
    return list(pending)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m cibench_lab.tasks.template", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("tables", nargs="+", type=Path, help="<name>.datasets.json files")
    p.add_argument("--into", type=Path, required=True, help="task directory to write into")
    args = p.parse_args(argv)
    try:
        for table in args.tables:
            for path in build_table(table, args.into):
                print(path)
    except TaskError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
