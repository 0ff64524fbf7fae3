"""Who the caller is: participant, instructor, researcher, the classes they belong to, whom they may read.

A user's roles are the union of the server's settings (``CIBenchLabApp.instructors``, ``researchers``:
user names; ``class_members``: {class: [member user names]}) and their JupyterHub groups
(``cibench-instructors``, ``cibench-researchers``, ``cibench-class-<class>``), read through the hub's API
(``auth/hub.py``; a hub that does not answer leaves the settings' roles). Every user is a participant
and reads their own attempts; an instructor teaches each class they belong to and reads its
participants' (its members but its instructors);
a researcher reads every participant's record of a study. Each route requires one role
(``handlers/base.py: Route.role``); the database holds the same rule for its rows (docs/teach/reference.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..errors import BadInput
from .hub import Hub

PARTICIPANT, INSTRUCTOR, RESEARCHER = "participant", "instructor", "researcher"
ROLES = (PARTICIPANT, INSTRUCTOR, RESEARCHER)
INSTRUCTORS_GROUP = "cibench-instructors"
RESEARCHERS_GROUP = "cibench-researchers"
CLASS_GROUP = "cibench-class-"  # + the class name
CLASS_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$")
CLASS_NAME_RULE = "1-63 letters, digits, '_', '.' or '-', starting with a letter or digit"


def check_class_name(name: object, where: str) -> str:
    if not isinstance(name, str) or not CLASS_NAME.match(name):
        raise BadInput(f"{where}: a class name is {CLASS_NAME_RULE} (got {name!r})")
    return name


@dataclass(frozen=True)
class RoleSettings:
    """The server's own word on roles (``CIBenchLabApp.instructors``, ``researchers``, ``class_members``)."""

    instructors: frozenset[str] = frozenset()
    researchers: frozenset[str] = frozenset()
    classes: Mapping[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def of(
        cls, instructors: Iterable[str], researchers: Iterable[str], classes: Mapping[str, object]
    ) -> RoleSettings:
        """The settings from the traits' values; BadInput naming the trait when a class is malformed."""
        members: dict[str, frozenset[str]] = {}
        for name, users in classes.items():
            check_class_name(name, "CIBenchLabApp.class_members")
            if not isinstance(users, list | tuple) or not all(isinstance(u, str) for u in users):
                raise BadInput(f"CIBenchLabApp.class_members[{name!r}]: a list of user names")
            members[name] = frozenset(users)
        return cls(frozenset(instructors), frozenset(researchers), members)


@dataclass(frozen=True)
class Identity:
    """A user's roles (``participant`` always) and the classes they belong to, sorted."""

    name: str
    roles: tuple[str, ...]
    classes: tuple[str, ...]

    def has(self, role: str) -> bool:
        return role in self.roles

    @property
    def taught(self) -> tuple[str, ...]:
        """The classes this user teaches: every class they belong to, when an instructor."""
        return self.classes if self.has(INSTRUCTOR) else ()

    def as_dict(self) -> dict:
        return {"name": self.name, "roles": list(self.roles), "classes": list(self.classes)}


def identity(name: str, settings: RoleSettings = RoleSettings(), groups: Iterable[str] = ()) -> Identity:
    """``name``'s identity from the settings and their hub ``groups`` (none: a participant only)."""
    groups = set(groups)
    roles = [PARTICIPANT]
    if name in settings.instructors or INSTRUCTORS_GROUP in groups:
        roles.append(INSTRUCTOR)
    if name in settings.researchers or RESEARCHERS_GROUP in groups:
        roles.append(RESEARCHER)
    classes = {c for c, members in settings.classes.items() if name in members}
    classes |= {g.removeprefix(CLASS_GROUP) for g in groups if g.startswith(CLASS_GROUP)}
    return Identity(name, tuple(roles), tuple(sorted(c for c in classes if CLASS_NAME.match(c))))


class Roles:
    """Identities and class members from the settings, united with the hub's groups when it runs one."""

    def __init__(self, settings: RoleSettings, hub: Hub | None = None):
        self.settings = settings
        self.hub = hub

    async def of(self, name: str) -> Identity:
        """``name``'s identity (the hub's groups: cached; a hub that does not answer adds none)."""
        groups = await self.hub.groups_of(name) if self.hub is not None else None
        return identity(name, self.settings, groups or ())

    async def members(self, class_name: str) -> list[str]:
        """Everyone in the class, sorted: the setting's and the hub group's (its teachers too)."""
        found = set(self.settings.classes.get(class_name, ()))
        if self.hub is not None:
            found |= set(await self.hub.members_of(CLASS_GROUP + class_name) or ())
        return sorted(found)

    async def instructors(self) -> frozenset[str]:
        """The users the server knows hold the instructor role: the setting's and the hub group's
        (``cibench-instructors``; a hub that does not tell adds none)."""
        found = set(self.settings.instructors)
        if self.hub is not None:
            found |= set(await self.hub.members_of(INSTRUCTORS_GROUP) or ())
        return frozenset(found)

    async def participants(self, class_name: str, who: Identity) -> list[str]:
        """The class's participants as its instructor ``who`` sees them, sorted: its members but
        its instructors (``who`` and every other member with the instructor role, who teaches it)."""
        teachers = await self.instructors() | {who.name}
        return [name for name in await self.members(class_name) if name not in teachers]

    async def classes(self, who: Identity) -> dict[str, list[str]]:
        """The classes ``who`` teaches, each with its participants ({} unless an instructor)."""
        return {c: await self.participants(c, who) for c in who.taught}

    async def readable(self, who: Identity) -> frozenset[str]:
        """The participants whose attempts ``who`` reads as an instructor: those of each class they
        teach (their own attempts are theirs, not a class's)."""
        names: set[str] = set()
        for members in (await self.classes(who)).values():
            names.update(members)
        return frozenset(names)
