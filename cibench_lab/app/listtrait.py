"""A list option of names or paths that reads a JSON list given as its one command-line value.

A server extension's options reach it untyped on ``jupyter lab``'s command line (the server does
not know our classes when it parses them), so ``--CIBenchLabApp.researchers='["root"]'`` arrives as
the one name ``["root"]``. An entry that looks like a list is read as one (JSON, or a Python list
of strings); anything else there is an error naming the option and the form that works.
"""

from __future__ import annotations

import ast
import json
from typing import Any

from traitlets import List, TraitError, Unicode


class NameList(List):
    """``List(Unicode())`` whose entries written as a list (``'["a", "b"]'``) are that list's items."""

    def __init__(self, **kwargs: Any):
        super().__init__(Unicode(), **kwargs)

    def validate(self, obj: Any, value: Any) -> Any:
        if isinstance(value, list | tuple):
            value = [item for entry in value for item in self._entry(entry)]
        return super().validate(obj, value)

    def _entry(self, entry: Any) -> list[Any]:
        if not isinstance(entry, str) or not entry.strip().startswith("["):
            return [entry]
        items = _as_list(entry.strip())
        if items is None or not all(isinstance(item, str) for item in items):
            option = f"--CIBenchLabApp.{self.name}"
            raise TraitError(
                f"CIBenchLabApp.{self.name}: {entry!r} is not a list of strings; on the command line "
                f"repeat the option, one value each: {option}=a {option}=b"
            )
        return items


def _as_list(text: str) -> list[Any] | None:
    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(text)
        except (ValueError, SyntaxError):
            continue
        return value if isinstance(value, list) else None
    return None
