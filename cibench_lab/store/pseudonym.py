"""Pseudonyms for people in exports and reports: stable within a study, unlinkable across studies.

A participant's pseudonym is ``p-`` and the first 12 hex digits of HMAC-SHA256 of their name under the
study's ``salt`` (``study.salt``, drawn when the study is first recorded). Without the salt, which stays in
the results database, a pseudonym cannot be turned back into a name by trying names.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

PREFIX = "p-"
DIGITS = 12


def new_salt() -> str:
    """A fresh salt for a study (64 hex digits)."""
    return secrets.token_hex(32)


def pseudonym(salt: str, name: str) -> str:
    digest = hmac.new(salt.encode(), name.encode(), hashlib.sha256).hexdigest()
    return PREFIX + digest[:DIGITS]
