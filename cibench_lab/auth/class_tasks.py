"""A class's task list (``CIBenchLabApp.class_tasks``; docs/teach/reference.md, *The class's task
list*): the teacher names the tasks each class plays — task ids or shell-style patterns
(``classroom/*``: every task a teacher makes in the lab) — and a participant of such a class sees
the tasks of their classes' lists only: ``GET tasks`` lists no other, and ``GET tasks/{id}`` and
``POST attempts`` refuse another (403). An instructor or a researcher sees every task; so does a
user in no class with a list. A study's plan is its own (its tasks start whatever the list).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from ..errors import BadInput, Forbidden
from .roles import INSTRUCTOR, RESEARCHER, Identity, check_class_name

SETTING = "CIBenchLabApp.class_tasks"


@dataclass(frozen=True)
class ClassTasks:
    """Each class's task ids and patterns (a class not named: no list)."""

    lists: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def of(cls, value: Mapping[str, object]) -> ClassTasks:
        """The lists from the trait's value; BadInput naming the setting when one is malformed."""
        lists: dict[str, tuple[str, ...]] = {}
        for name, tasks in value.items():
            check_class_name(name, SETTING)
            if not isinstance(tasks, list | tuple) or not all(isinstance(t, str) and t for t in tasks):
                raise BadInput(f"{SETTING}[{name!r}]: a list of task ids or patterns (got {tasks!r})")
            lists[name] = tuple(tasks)
        return cls(lists)

    def classes_of(self, who: Identity) -> tuple[str, ...]:
        """The classes whose lists bound what ``who`` sees (none: every task)."""
        if who.has(INSTRUCTOR) or who.has(RESEARCHER):
            return ()
        return tuple(c for c in who.classes if c in self.lists)

    def allows(self, who: Identity, task_id: str) -> bool:
        """Whether ``who`` may see and start ``task_id``."""
        classes = self.classes_of(who)
        if not classes:
            return True
        return any(fnmatchcase(task_id, pattern) for c in classes for pattern in self.lists[c])

    def check(self, who: Identity, task_id: str) -> None:
        """Forbidden, naming the task and the classes, unless ``who`` may see it."""
        if not self.allows(who, task_id):
            classes = ", ".join(self.classes_of(who))
            raise Forbidden(f"task {task_id!r} is not one of your class's tasks ({classes})")
