"""Who plays on this server now: the handlers' participant.

A server plays for one participant: its own (``CIBenchLabApp.participant``; the JupyterHub user
under JupyterHub). On a shared lab machine a study with ``participant_code`` signs a person in
with the code they enter at its consent: the code is the participant — of every route, and of
the kernels the lab restores (``LabConfig.participant``) — until they hand over (``POST
studies/{id}/handover``) or the server restarts; the next person enters theirs.

Such a seat is **shared**: whoever sits at it between two participants is nobody in particular, so
while no code is signed in it holds the participant role only — never the roles of the server's
own user (often a researcher or an instructor). A researcher at a shared seat shows the researcher
key (``KEY_HEADER``, checked against ``CIBenchLabApp.researcher_key_sha256``), or reads the results
on their own server or with the command line (docs/studies.md).
"""

from __future__ import annotations

import hashlib
import hmac
import re

from ..errors import BadInput, Conflict
from ..lab.play import LabConfig

CODE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
KEY_HEADER = "X-CIBench-Researcher-Key"
KEY_HASH = re.compile(r"^[0-9a-f]{64}$")


def check_key_hash(value: str) -> str:
    """``CIBenchLabApp.researcher_key_sha256`` as set: empty, or 64 lower-case hex digits."""
    if value and not KEY_HASH.match(value):
        raise BadInput("CIBenchLabApp.researcher_key_sha256: the key's SHA-256, 64 hex digits (or empty)")
    return value


class Seat:
    def __init__(self, config: LabConfig, shared: bool = False, key_hash: str = ""):
        """``shared``: a study signs participants in with codes here; ``key_hash``: the researcher
        key's SHA-256 (hex; empty: no key opens the server's roles at a shared seat)."""
        self.config = config
        self.server = config.participant  # the server's own participant
        self.shared = shared
        self.key_hash = check_key_hash(key_hash)

    @property
    def name(self) -> str:
        return self.config.participant

    @property
    def code(self) -> str | None:
        """The participant code signed in, or None (the server's participant plays)."""
        return None if self.config.participant == self.server else self.config.participant

    def holds_server_roles(self, key: str | None) -> bool:
        """Whether the caller at this seat holds the roles of the server's own user: never while a
        code is signed in; at a shared seat only with the researcher key."""
        if self.code is not None:
            return False
        return not self.shared or self.admits(key)

    def admits(self, key: str | None) -> bool:
        """``key`` is the researcher key (compared in constant time; no key is set: none is)."""
        if not self.key_hash or not key:
            return False
        digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()
        return hmac.compare_digest(digest, self.key_hash)

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
