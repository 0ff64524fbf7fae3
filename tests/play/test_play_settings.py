"""The one PlaySettings: checked once, as it is made, each refusal naming the setting; an attempt's
recorded settings are trusted as recorded; the API's view of them names the same settings."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest

from cibench_lab.errors import BadInput
from cibench_lab.handlers.schemas import PlaySettingsView
from cibench_lab.play.settings import PlaySettings, attempt_settings

pytestmark = pytest.mark.fast


@pytest.mark.parametrize(
    ("override", "refusal"),
    [
        ({"turn_cap": -1}, "settings.turn_cap: must be a whole number >= 0"),
        ({"turn_cap": True}, "settings.turn_cap: must be a whole number >= 0"),
        ({"max_turn": "3"}, "settings.max_turn: must be a whole number >= 0"),
        ({"pause_after": 0}, "settings.pause_after: must be a whole number of seconds >= 1"),
        ({"show_grades": 1}, "settings.show_grades: must be true or false"),
        ({"reveal": "soon"}, "settings.reveal: must be one of after-step, after-task, never"),
        ({"grade_rule": "worst"}, "settings.grade_rule: must be one of best, settling"),
        ({"colour": "red", "turn_cap": -1}, "settings.colour: unknown setting (known: show_grades, "),
        # several wrong: the first in the order they were always checked in
        ({"reveal": "soon", "max_turn": -1, "pause_after": 0}, "settings.max_turn: "),
    ],
)
def test_a_setting_out_of_range_is_refused_by_name(override, refusal):
    with pytest.raises(BadInput) as err:
        PlaySettings.merge(PlaySettings(), override)
    assert str(err.value).startswith(refusal)


def test_made_settings_are_checked_and_frozen():
    with pytest.raises(ValueError, match="turn_cap"):
        PlaySettings(turn_cap=-2)
    settings = PlaySettings.merge(PlaySettings(), {"turn_cap": 2, "reveal": "never"})
    assert (settings.turn_cap, settings.reveal, settings.grade_rule) == (2, "never", "best")
    with pytest.raises(AttributeError):
        settings.turn_cap = 5  # type: ignore[misc]
    with pytest.raises(ValueError, match="pause_after"):
        replace(settings, pause_after=0)
    assert settings.as_dict() == {**PlaySettings().as_dict(), "turn_cap": 2, "reveal": "never"}


def test_recorded_settings_are_read_as_recorded():
    old = PlaySettings.recorded({"show_grades": True, "turn_cap": 0, "pause_after": 300, "reveal": "never"})
    assert old.grade_rule == "settling"  # recorded before grade_rule existed
    assert old == PlaySettings(reveal="never", grade_rule="settling")


def test_tighten_and_players_keep_their_rules():
    server = PlaySettings(turn_cap=3, reveal="never", grade_rule="settling")
    person = attempt_settings(server, {"turn_cap": 0, "reveal": "after-step"}, True, "tighten")
    assert (person.turn_cap, person.reveal, person.grade_rule) == (3, "never", "settling")
    assert attempt_settings(PlaySettings(), None, False).grade_rule == "settling"


def test_the_api_view_names_the_same_settings():
    assert list(PlaySettingsView.model_fields) == [f.name for f in fields(PlaySettings)]
    PlaySettingsView.model_validate(PlaySettings().as_dict())
