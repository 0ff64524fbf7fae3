"""An enrolled study's definition does not change (studies/change.py): a consent under a
changed definition is refused and the recorded one stays; a server started with a changed study
file exits naming the file and the field; a new title is allowed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import PROBE_ID

from cibench_lab.errors import Conflict
from cibench_lab.store import Store
from cibench_lab.store.tables import Enrolment, Study
from cibench_lab.studies.change import changed_field, check_recorded
from cibench_lab.studies.definition import StudyError, read_study_file
from cibench_lab.studies.enrolment import enrol, record_study
from cibench_lab.tasks.library import TaskLibrary, builtin_dir

PILOT = f"""
title = "Pilot"
protocol = "model-parity"
consent = "We record your code and your time."
idle_threshold = 120
tasks = [{{ task = "{PROBE_ID}" }}]
"""


def study_file(tmp_path: Path, text: str = PILOT, name: str = "pilot.toml") -> Path:
    path = tmp_path / "studies" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def store(tmp_path):
    s = Store(f"sqlite:///{tmp_path / 'results.sqlite'}")
    yield s
    s.dispose()


@pytest.mark.fast
def test_only_a_new_title_is_free_and_the_first_change_is_named(tmp_path):
    first = read_study_file(study_file(tmp_path)).record()
    retitled = read_study_file(study_file(tmp_path, PILOT.replace('"Pilot"', '"Pilot, renamed"')))
    assert changed_field(first, retitled) is None
    practice = read_study_file(study_file(tmp_path, PILOT.replace("model-parity", "practice")))
    assert changed_field(first, practice) == "protocol"
    idle = read_study_file(study_file(tmp_path, PILOT.replace("= 120", "= 60")))
    assert changed_field(first, idle) == "idle_threshold"
    other = read_study_file(study_file(tmp_path, PILOT.replace(PROBE_ID, PROBE_ID + "x")))
    assert changed_field(first, other) == "tasks[0].task"
    older = {k: v for k, v in first.items() if k != "participant_code"}  # recorded before the field existed
    assert changed_field(older, read_study_file(study_file(tmp_path))) is None


@pytest.mark.fast
def test_a_consent_under_a_changed_definition_is_refused_and_the_record_stays(tmp_path, store):
    library = TaskLibrary.load([builtin_dir()])
    path = study_file(tmp_path)
    first = read_study_file(path)
    assert enrol(store, library, first, "ana", {})
    changed = read_study_file(study_file(tmp_path, PILOT.replace("model-parity", "practice")))
    with pytest.raises(Conflict) as err:
        enrol(store, library, changed, "ben", {})
    assert str(err.value).startswith(
        f"{path}: protocol: study 'pilot' has enrolled participants under 'model-parity' (now 'practice')"
    )
    with pytest.raises(StudyError, match=r"pilot\.toml: protocol: "):
        check_recorded(store, {"pilot": changed})
    check_recorded(store, {"pilot": first})  # as recorded: no complaint
    with store.session() as s:
        row = s.get(Study, "pilot")
        assert row is not None and row.config["protocol"] == "model-parity"
        assert [e.participant_id for e in s.query(Enrolment)] != []  # ana's enrolment stays
        assert s.query(Enrolment).count() == 1  # ben was not enrolled
    record_study(store, first)  # the recorded definition itself is fine


def test_the_server_refuses_a_changed_enrolled_study_file_in_one_line(tmp_path):
    from test_faults import CHILD_TIMEOUT, a_database, a_task, env_for, free_port, refusal, server_argv

    root = tmp_path / "root"
    root.mkdir()
    url = a_database(tmp_path)
    path = study_file(tmp_path)
    recorded = Store(url)
    record_study(recorded, read_study_file(path))  # the first participant consented to this
    recorded.dispose()
    path.write_text(PILOT.replace("= 120", "= 90"))
    tasks = [str(a_task(tmp_path))]
    files = [str(path)]
    argv = server_argv(tmp_path, root, free_port(), database_url=url, task_dirs=tasks, study_files=files)
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=CHILD_TIMEOUT, env=env_for(tmp_path))
    assert refusal(proc).startswith(
        f"{path}: idle_threshold: study 'pilot' has enrolled participants under 120 (now 90)"
    ), proc.stderr[-2000:]
