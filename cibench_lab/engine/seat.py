"""Who plays on this server now: the handlers' participant.

A server plays for one participant: its own (``CIBenchLabApp.participant``; the JupyterHub user
under JupyterHub). On a shared lab machine a study with ``participant_code`` signs a person in
with the code they enter at its consent: the code is the participant — of every route, and of
the kernels the lab restores (``LabConfig.participant``) — until they hand over (``POST
studies/{id}/handover``) or the server restarts; the next person enters theirs.
"""

from __future__ import annotations

import re

from .errors import BadInput, Conflict
from .lab import LabConfig

CODE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class Seat:
    def __init__(self, config: LabConfig):
        self.config = config
        self.server = config.participant  # the server's own participant

    @property
    def name(self) -> str:
        return self.config.participant

    @property
    def code(self) -> str | None:
        """The participant code signed in, or None (the server's participant plays)."""
        return None if self.config.participant == self.server else self.config.participant

    def check(self, code: object) -> str:
        """``code`` as the participant to sign in: well formed, and nobody else signed in."""
        if not isinstance(code, str) or not CODE.match(code):
            raise BadInput("code: 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit")
        if code == self.server:
            raise BadInput("code: that is this server's own user, not a participant code")
        if self.code not in (None, code):
            raise Conflict(f"participant {self.code} is signed in on this server: hand over first")
        return code

    def sign_in(self, code: object) -> None:
        self.config.participant = self.check(code)

    def hand_over(self) -> None:
        self.config.participant = self.server
