"""``POST tasks`` answers name no folder of the server's: the task it wrote and a data file another task
uses are named relative to the server root (or, outside it, to ``new_tasks_dir``), never absolutely."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import server_config
from newtask import INTRO, LOAD, write_solution

pytestmark = pytest.mark.fast

MEAN = ("Print the mean of `tip`, rounded to 2 decimals.", "print(round(df['tip'].mean(), 2))")


@pytest.fixture
def made(request, tmp_path, jp_root_dir) -> Path:
    """``new_tasks_dir``: outside the server root, as the default is, or (``"root"``) under it."""
    return jp_root_dir / "class-tasks" if getattr(request, "param", "") == "root" else tmp_path / "made"


@pytest.fixture
def jp_server_config(tmp_path, task_root, made):
    teacher = {"participant": "teach", "instructors": ["teach"]}  # POST tasks is an instructor's
    return server_config(tmp_path, [task_root], new_tasks_dir=str(made), turn_timeout=60.0, **teacher)


def absolute(text: str, *folders: Path) -> bool:
    return any(str(f) in text for f in folders)


async def test_the_answers_name_no_server_folder(api, jp_root_dir, tmp_path):
    write_solution(jp_root_dir / "teacher", [INTRO, LOAD, MEAN])
    code, body = await api("POST", "tasks", {"notebook": "teacher/bills_week.ipynb"})
    assert code == 200 and body["written"], body
    assert body["path"] == "new_tasks_dir/classroom/pandas/bills_week.ipynb", body["path"]
    other = write_solution(jp_root_dir / "other", [INTRO, LOAD, MEAN], name="tips_week.ipynb")
    (other.parent / "data" / "bills.csv").write_text("day,total,tip\nMon,1.0,0.5\n")
    code, body = await api("POST", "tasks", {"notebook": "other/tips_week.ipynb", "check": True})
    assert code == 200 and body["refusals"], body
    said = " ".join(r["message"] for r in body["refusals"]) + body["path"]
    assert "another file of that name" in said and "new_tasks_dir/datasources/data/bills.csv" in said, said
    assert not absolute(said, tmp_path, jp_root_dir), said


@pytest.mark.parametrize("made", ["root"], indirect=True)
async def test_a_task_written_under_the_root_is_named_from_it(api, jp_root_dir):
    write_solution(jp_root_dir / "teacher", [INTRO, LOAD, MEAN])
    code, body = await api("POST", "tasks", {"notebook": "teacher/bills_week.ipynb"})
    assert code == 200 and body["written"], body
    assert body["path"] == "class-tasks/classroom/pandas/bills_week.ipynb", body["path"]
