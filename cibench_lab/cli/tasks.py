"""`cibench-lab tasks ...`: list and inspect tasks."""

from __future__ import annotations

import json
import sys

from ..tasks.model import Task
from .common import library


def cmd_list(args) -> int:
    rows = [t.summary() for t in library(args).select(None)]
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    for r in rows:
        print(f"{r['id']:<50} {r['language']:<3} {r['steps']:>3} steps  {r['title']}")
    return 0


def task_admin_view(task: Task) -> dict:
    """Everything about a task, reference material included (admin view)."""
    return {
        **task.summary(),
        "intro": task.intro,
        "path": str(task.path),
        "content_hash": task.content_hash,
        "data_files": list(task.data_files),
        "steps": [
            {
                "index": s.index,
                "kind": s.kind,
                "detected_kind": s.reference.kind,
                "instruction": s.instruction,
                "thought": s.thought,
                "modules": list(s.modules),
                "code": s.code,
                "reference_output": s.reference.summary(),
                "prompt": s.prompt,
            }
            for s in task.steps
        ],
    }


def cmd_show(args) -> int:
    try:
        task = library(args).get(args.id)
    except KeyError as err:
        print(f"error: {err.args[0]}", file=sys.stderr)
        return 2
    view = task_admin_view(task)
    if args.json:
        print(json.dumps(view, indent=2, ensure_ascii=False))
        return 0
    print(f"{task.id} — {task.title} ({len(task.steps)} steps)\n{task.intro}\n")
    for s in view["steps"]:
        print(
            f"--- step {s['index'] + 1} [{s['kind']}]\n{s['prompt']}reference:\n{s['code']}\n"
            f"output: {s['reference_output']}\n"
        )
    return 0


def register(sub) -> None:
    tasks = sub.add_parser("tasks", help="list and inspect tasks").add_subparsers(dest="sub", required=True)
    tl = tasks.add_parser("list", help="list the tasks")
    tl.add_argument("--json", action="store_true", help="JSON output")
    tl.set_defaults(fn=cmd_list)
    ts = tasks.add_parser("show", help="one task with its references and prompts (admin view)")
    ts.add_argument("id")
    ts.add_argument("--json", action="store_true", help="JSON output")
    ts.set_defaults(fn=cmd_show)
