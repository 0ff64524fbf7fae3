"""``POST tasks``: the lab's "Make a CIBench Task from This Notebook" (authoring/new.py does it)."""

from __future__ import annotations

from pathlib import Path

from ..authoring.new import NewTaskOptions, new_task
from ..errors import BadInput, Forbidden
from ..tasks.links import LinkRefused, check_no_link
from . import schemas as s
from .services import Services


def under_root(root: Path, value: str, name: str, attempts: Path) -> Path:
    """``value``, a path relative to the server root, resolved; BadInput when it leads out of it
    (or is no path the OS takes: a name too long, say), Forbidden when it goes through a link in the
    attempts folder (a kernel's)."""
    shown = value if len(value) <= 80 else f"{value[:77]}..."
    try:
        path = check_no_link(root / value.strip().lstrip("/"), attempts, f"{name}: {shown!r}")
        path.is_file()  # a name the OS refuses says so here, once
    except LinkRefused as err:
        raise Forbidden(str(err)) from None
    except OSError as err:
        raise BadInput(f"{name}: {shown!r}: {err.strerror or 'not a path this server can open'}") from None
    if not path.is_relative_to(root):
        raise BadInput(f"{name}: {shown!r} is outside the server root")
    return path


async def make_task(services: Services, body: s.NewTaskRequest) -> dict:
    """Check or make the task of the request's notebook; added to the server's library when written."""
    root, attempts = services.lab.config.root_dir, services.lab.config.attempts_path
    notebook = under_root(root, body.notebook, "notebook", attempts)
    if notebook.suffix != ".ipynb" or not notebook.is_file():
        raise BadInput(f"notebook: no notebook {body.notebook!r} under the server root")
    data = under_root(root, body.data, "data", attempts) if body.data is not None else None
    timeout = services.lab.config.turn_timeout
    options = NewTaskOptions(body.lib, body.lang, data, body.check, timeout, root, attempts)
    result = await new_task(notebook, services.new_tasks_dir, options)
    if result.written:
        services.library.refresh(services.new_tasks_dir, result.task_id)
    return result.view(root, services.new_tasks_dir)
