"""Players: who proposes a step's code.  The protocol (:mod:`.base`), the reference,
replay (:mod:`.transcript`) and ``openai:NAME`` (:mod:`.model`) players, and the one
spec grammar + factory (:mod:`.spec`) that the command line and the lab share."""

from .base import (
    ACTIONS,
    Player,
    PlayerError,
    PlayerSession,
    Proposal,
    ReferencePlayer,
    StatelessSession,
    reference_refusal,
    unexecuted_turn,
)
from .spec import HUMAN, PlayerContext, SpecError, make_player, spec_of_choice

__all__ = [
    "ACTIONS",
    "HUMAN",
    "Player",
    "PlayerContext",
    "PlayerError",
    "PlayerSession",
    "Proposal",
    "ReferencePlayer",
    "SpecError",
    "StatelessSession",
    "make_player",
    "reference_refusal",
    "spec_of_choice",
    "unexecuted_turn",
]
