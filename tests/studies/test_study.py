"""A study's definition (studies/definition.py): loading JSON and TOML, errors naming the file and the
field, the protocol presets, the questionnaire's answers, and the plan's draw (studies/plan.py)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from cibench_lab.errors import BadInput
from cibench_lab.play.settings import PlaySettings
from cibench_lab.studies.definition import (
    PRESETS,
    SETTLE_NOTE,
    StudyError,
    check_server,
    load_studies,
    parse_study,
    read_study_file,
)
from cibench_lab.studies.plan import drawn, make_plan
from cibench_lab.tasks.library import TaskLibrary, builtin_dir

pytestmark = pytest.mark.fast

BASE = {"title": "Pilot", "consent": "You agree.", "protocol": "practice"}
ONE = [{"task": "cibench_template/pandas/tips_ratio_by_group"}]

PILOT_TOML = """
title = "Pilot: people on CIBench"
protocol = "model-parity"
consent = '''
We record your code, its outputs and your time.
'''
idle_threshold = 120
participant_code = true

[[questionnaire]]
name = "expertise"
label = "Your Python expertise"
type = "choice"
choices = ["beginner", "intermediate", "expert"]
required = true

[[questionnaire]]
name = "years"
label = "Years of Python"
type = "number"
min = 0

[draw]
n = 4
split = "cibench_template"
"""


@pytest.fixture(scope="module")
def library() -> TaskLibrary:
    return TaskLibrary.load([builtin_dir()])


def refused(data: dict, source: str = "studies/pilot.toml") -> str:
    with pytest.raises(StudyError) as err:
        parse_study(data, source, default_id="pilot")
    return str(err.value)


def test_a_toml_file_loads_with_its_stem_as_id(tmp_path, library):
    path = tmp_path / "pilot.toml"
    path.write_text(PILOT_TOML)
    study = read_study_file(path)
    assert study.id == "pilot" and study.protocol == "model-parity" and study.draw and study.draw.n == 4
    assert [q.name for q in study.questionnaire] == ["expertise", "years"]
    assert study.questionnaire[1].min == 0 and study.participant_code
    loaded = load_studies([str(path)], {"practice-1": {**BASE, "tasks": ONE}}, library)
    assert sorted(loaded) == ["pilot", "practice-1"]


def test_a_json_file_loads_and_an_id_inside_wins_over_the_stem(tmp_path):
    path = tmp_path / "file-name.json"
    path.write_text(json.dumps({**BASE, "id": "s1", "tasks": ONE}))
    assert read_study_file(path).id == "s1"


@pytest.mark.parametrize(
    "data,says",
    [
        ({**BASE, "draw": {"n": 0}}, "studies/pilot.toml: draw.n: must be ≥ 1"),
        ({**BASE, "protocol": "exam", "tasks": ONE}, "protocol: must be 'model-parity' or 'practice'"),
        (BASE, "studies/pilot.toml: tasks/draw: give exactly one: a task list or a draw"),
        ({**BASE, "tasks": ONE, "draw": {"n": 1}}, "tasks/draw: give exactly one"),
        ({**BASE, "tasks": []}, "tasks: the list is empty"),
        ({**BASE, "tasks": [{"mode": "e2e"}]}, "studies/pilot.toml: tasks[0].task: required"),
        ({**BASE, "tasks": ONE, "colour": "red"}, "studies/pilot.toml: colour: unknown field"),
        ({**BASE, "title": "", "tasks": ONE}, "title: must not be empty"),
        ({**BASE, "tasks": ONE, "idle_threshold": "5"}, "idle_threshold: must be a whole number"),
        ({**BASE, "tasks": ONE, "proctored": "yes"}, "proctored: must be true or false"),
        (
            {**BASE, "protocol": "model-parity", "tasks": [*ONE, {"task": "x/y/z", "mode": "oracle"}]},
            "studies/pilot.toml: tasks[1].mode: model-parity plays end-to-end (e2e) only",
        ),
        (
            {**BASE, "tasks": ONE, "questionnaire": [{"name": "e", "label": "E", "type": "choice"}]},
            "studies/pilot.toml: questionnaire[0].choices: a choice question needs at least one choice",
        ),
        (
            {**BASE, "tasks": ONE, "questionnaire": [{"name": "2x", "label": "E", "type": "text"}]},
            "questionnaire[0].name: must be letters",
        ),
        (
            {
                **BASE,
                "tasks": ONE,
                "questionnaire": [{"name": "a", "label": "A", "type": "text"}] * 2,
            },
            "questionnaire: the name 'a' is used twice",
        ),
    ],
)
def test_a_bad_definition_names_its_file_and_field(data, says):
    assert says in refused(data)


def test_unknown_tasks_and_a_draw_too_large_name_the_entry(library):
    with pytest.raises(
        StudyError, match=r"^CIBenchLabApp.studies\[s\]: tasks\[1\].task: unknown task 'a/b/c'$"
    ):
        load_studies([], {"s": {**BASE, "tasks": [*ONE, {"task": "a/b/c"}]}}, library)
    with pytest.raises(
        StudyError, match=r"draw.n: 99 tasks to draw, \d+ in split 'cibench_template' and libs pandas"
    ):
        load_studies(
            [], {"s": {**BASE, "draw": {"n": 99, "split": "cibench_template", "libs": ["pandas"]}}}, library
        )


def test_a_study_id_twice_or_a_key_that_differs_is_refused(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({**BASE, "tasks": ONE}))
    with pytest.raises(StudyError, match=r"studies\[s\]: id: study 's' is already defined by .*s.json"):
        load_studies([str(path)], {"s": {**BASE, "tasks": ONE}})
    with pytest.raises(StudyError, match=r"studies\[a\]: id: 'b' differs from its key 'a'"):
        load_studies([], {"a": {**BASE, "id": "b", "tasks": ONE}})


def test_unreadable_files_are_one_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("title = ")
    with pytest.raises(StudyError, match=r"bad.toml: not valid TOML"):
        read_study_file(bad)
    with pytest.raises(StudyError, match=r"missing.json: No such file"):
        read_study_file(tmp_path / "missing.json")


def test_the_presets_lock_the_protocols_settings():
    parity = parse_study({**BASE, "protocol": "model-parity", "tasks": ONE, "idle_threshold": 90}, "s", "s")
    assert parity.settings == PlaySettings(
        show_grades=False, turn_cap=3, pause_after=90, reveal="never", max_turn=3, grade_rule="settling"
    )
    practice = parse_study({**BASE, "tasks": ONE}, "s", "s").settings
    assert (practice.show_grades, practice.grade_rule, practice.reveal, practice.turn_cap) == (
        True,
        "best",
        "after-step",
        0,
    )
    for preset in PRESETS.values():
        preset.validate()


def test_model_parity_consent_says_who_settles_once():
    parity = parse_study({**BASE, "protocol": "model-parity", "tasks": ONE}, "s", "s")
    assert parity.consent_text() == f"You agree.\n\n{SETTLE_NOTE}"
    already = parse_study(
        {**BASE, "protocol": "model-parity", "tasks": ONE, "consent": "Hi. " + SETTLE_NOTE}, "s", "s"
    )
    assert already.consent_text().count("first run without an error") == 1
    assert parse_study({**BASE, "tasks": ONE}, "s", "s").consent_text() == "You agree."
    assert parity.record()["consent_shown"] == parity.consent_text()


def test_the_proctored_study_needs_a_proctored_server_and_the_cull_after_the_idle_threshold():
    studies = {"p": parse_study({**BASE, "tasks": ONE, "proctored": True}, "s", "p")}
    with pytest.raises(StudyError, match=r"study 'p' requires the proctored preset.*proctored=True"):
        check_server(studies, proctored=False, kernel_idle_cull=1800)
    check_server(studies, proctored=True, kernel_idle_cull=1800)
    idle = {"q": parse_study({**BASE, "tasks": ONE, "idle_threshold": 4000}, "s", "q")}
    with pytest.raises(StudyError, match=r"study 'q': idle_threshold: must be less than .*kernel_idle_cull"):
        check_server(idle, proctored=False, kernel_idle_cull=1800)


def test_answers_are_checked_against_the_questionnaire(tmp_path):
    path = tmp_path / "pilot.toml"
    path.write_text(PILOT_TOML + '\n[[questionnaire]]\nname = "notes"\nlabel = "Notes"\ntype = "text"\n')
    study = read_study_file(path)
    assert study.check_answers({"expertise": "expert", "years": 3.5, "notes": "  hi "}) == {
        "expertise": "expert",
        "years": 3.5,
        "notes": "hi",
    }
    assert study.check_answers({"expertise": "beginner", "years": None, "notes": ""}) == {
        "expertise": "beginner"
    }
    with pytest.raises(BadInput) as err:
        study.check_answers({"expertise": "guru", "years": "3", "shoe": 42})
    assert str(err.value) == (
        "answers.shoe: not a question of this study; answers.expertise: must be one of beginner, "
        "intermediate, expert; answers.years: must be a number"
    )
    with pytest.raises(BadInput, match=r"^answers.expertise: required; answers.years: must be ≥ 0$"):
        study.check_answers({"years": -1})
    with pytest.raises(BadInput, match=r"answers.years: must be a number"):
        study.check_answers({"expertise": "expert", "years": True})


def test_a_draw_is_deterministic_given_its_seed_and_balanced_across_libraries(library):
    study = parse_study({**BASE, "draw": {"n": 9, "split": "cibench_template"}}, "s", "s")
    assert study.draw is not None
    first = make_plan(study, library, 7)
    assert first == make_plan(study, library, 7)
    assert first != make_plan(study, library, 8)
    ids = [item["task_id"] for item in first]
    assert len(set(ids)) == 9 and all(i.startswith("cibench_template/") for i in ids)
    assert {item["mode"] for item in first} == {"e2e"}
    libs = Counter(i.split("/")[1] for i in ids)
    n_libs = len({t.lib for t in library.tasks.values() if t.split == "cibench_template"})
    assert n_libs >= 9 and max(libs.values()) == 1  # 9 drawn over ≥ 9 libraries: one each
    many = drawn(study.draw.model_copy(update={"n": 2 * n_libs}), library, 3)
    counts = Counter(i.split("/")[1] for i in many)
    assert set(counts.values()) == {2}, counts  # two rounds: every library twice


def test_a_draw_over_chosen_libraries_and_a_fixed_list(library):
    study = parse_study({**BASE, "draw": {"n": 4, "libs": ["pandas", "scipy"], "mode": "oracle"}}, "s", "s")
    plan = make_plan(study, library, 11)
    assert Counter(p["task_id"].split("/")[1] for p in plan) == {"pandas": 2, "scipy": 2}
    assert {p["mode"] for p in plan} == {"oracle"}
    fixed = parse_study({**BASE, "tasks": [*ONE, {"task": "x/y/z", "mode": "oracle"}]}, "s", "s")
    assert make_plan(fixed, library, None) == [
        {"task_id": ONE[0]["task"], "mode": "e2e"},
        {"task_id": "x/y/z", "mode": "oracle"},
    ]


def test_the_documented_example_loads(tmp_path, library):
    """docs/studies.md's full example (its first TOML block) is a study the server accepts."""
    doc = (Path(__file__).parent.parent.parent / "docs" / "studies.md").read_text()
    example = doc.split("```toml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "pilot.toml"
    path.write_text(example)
    (study,) = load_studies([str(path)], {}, library).values()
    assert (study.id, study.protocol, study.proctored, study.participant_code) == (
        "pilot",
        "model-parity",
        True,
        True,
    )
    assert (
        [q.name for q in study.questionnaire] == ["expertise", "years"] and study.draw and study.draw.n == 4
    )
    assert len(make_plan(study, library, 1)) == 4
