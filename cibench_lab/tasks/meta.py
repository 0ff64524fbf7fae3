"""The `cibench_lab` notebook metadata: validated against the packaged JSON schema."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from .errors import TaskError

KEY = "cibench_lab"


@lru_cache(maxsize=1)
def _validator():
    import jsonschema  # slow to import; only needed for tasks with our metadata

    schema = json.loads(resources.files(__package__).joinpath("task.schema.json").read_text())
    return jsonschema.Draft202012Validator(schema)


def read_meta(meta: dict[str, Any], path: str, split: str, lib: str, stem: str) -> dict[str, Any]:
    """Our extra metadata with defaults filled in; TaskError names the bad field."""
    extra = meta.get(KEY)
    if extra is None:
        extra = {"schema_version": 1}
        declared = False
    else:
        declared = "language" in extra if isinstance(extra, dict) else False
        errors = sorted(_validator().iter_errors(extra), key=lambda e: list(e.path))
        if errors:
            err = errors[0]
            field = ".".join(str(p) for p in err.path) or "(object)"
            raise TaskError(path, f"metadata.{KEY}.{field}: {err.message}")
    language = extra.get("language") or ("zh" if "chinese" in split else "en")
    return {
        "title": extra.get("title") or stem.replace("_", " "),
        "intro": extra.get("intro", ""),
        "language": language,
        "language_from_path": not declared,
        "libraries": extra.get("libraries") or [lib],
        "data_files": extra.get("data_files") or [],
        "rendering": extra.get("rendering"),
    }
