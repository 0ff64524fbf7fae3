"""Roles: who the caller is (``GET me``), the classes an instructor teaches (``GET classes``), the
attempts a role reads of others (a class's, a headless run's)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from .attempt import AttemptRow
from .common import Closed

Role = TypeAliasType("Role", Literal["participant", "instructor", "researcher"])


class Me(Closed):
    """The caller: the server's user, their roles (participant always) and the classes they belong to."""

    name: str
    roles: list[Role]
    classes: list[str] = Field(description="the classes the user belongs to (an instructor teaches them)")


class ClassInfo(Closed):
    """A class the caller teaches and its participants: its members (the server's setting and the hub
    group's) but its instructors."""

    name: str
    members: list[str]


class ClassAttemptRow(AttemptRow):
    """An attempt of a participant of a class the caller teaches (never a headless run's)."""

    participant: str = Field(description="whose attempt it is (their hub or server user name)")


class RunAttemptRow(AttemptRow):
    """An attempt of a headless run (``cibench-lab run``)."""

    participant: str = Field(description="the participant the run records it under (player:PLAYER)")
