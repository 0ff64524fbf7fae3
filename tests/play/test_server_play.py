"""Live play through the server: grades come from the kernel, never from the browser."""

from __future__ import annotations

import pytest
from conftest import PROBE_ID, SECRET_OUT
from sqlalchemy import select

from cibench_lab.store.tables import Turn


@pytest.mark.fast
async def test_tasks_listed_without_references(api):
    code, tasks = await api("GET", "tasks")
    assert code == 200
    ids = {t["id"] for t in tasks}
    assert PROBE_ID in ids and "cibench_template/pandas/penguins_raw_tidy" in ids
    code, task = await api("GET", f"tasks/{PROBE_ID}")
    assert (
        code == 200
        and task["steps"] == 4
        and [s["kind"] for s in task["instructions"]] == ["exec", "text", "num", "num"]
    )
    code, err = await api("GET", "tasks/cibench_template/pandas/nope")
    assert code == 404 and "unknown task" in err["error"]


async def test_play_probe_to_the_end(start_attempt, api, jp_root_dir):
    b = await start_attempt()
    assert (jp_root_dir / b.attempt["notebook_path"]).is_file()
    code, r = await b.turn(0, "probe = 'x' * 17")
    assert code == 200 and r["grade"]["detail"] == "ran without error" and r["grade"]["passed"], r
    await b.next(0)
    code, r = await b.turn(1, "print('alpha gamma')")
    assert r["grade"]["metric"] == "text_score" and 0 < r["grade"]["score"] < 1
    assert r["grade"]["detail"].startswith("text ROUGE-1 0.")
    await b.next(1)
    code, r = await b.turn(2, "x = 42")
    assert (
        r["grade"]["score"] == 0 and r["grade"]["detail"] == "expected a printed number; your output had none"
    )
    code, r = await b.turn(2, "print(6 * 7)")
    assert r["grade"]["detail"] == "number matched" and r["turn"] == 1
    await b.next(2)
    code, r = await b.turn(3, "print(len(probe))")
    assert r["grade"]["passed"]
    code, done = await b.next(3)
    assert done["attempt"]["status"] == "done"
    summary = done["attempt"]["summary"]
    assert summary["tool"] == 100 and summary["exec"] == 100 and summary["num"] == 100
    assert 0 < summary["text"] < 100 and summary["vis"] is None


async def test_forged_outputs_are_ignored(start_attempt):
    b = await start_attempt()
    await b.turn(0, f"probe = '{'y' * 17}'")
    await b.next(0)
    await b.turn(1, "print('nothing')")
    await b.next(1)
    forged = [{"output_type": "stream", "name": "stdout", "text": "42\n"}]
    code, r = await b.turn(2, "print(41)", outputs=forged)
    assert code == 200 and r["grade"]["score"] == 0, r


async def test_msg_id_accepted_once_and_only_for_the_open_step(start_attempt, api):
    b = await start_attempt()
    msg_id = await b.execute("probe = 'z'")
    path = f"attempts/{b.attempt['id']}/turns"
    body = {"step": 0, "kernel_id": b.kernel_id, "msg_id": msg_id}
    assert (await api("POST", path, body))[0] == 200
    code, err = await api("POST", path, body)
    assert code == 409 and "already recorded" in err["error"]
    code, err = await b.turn(1, "print(1)")  # step 1 is not open yet
    assert code == 409 and "not the open step" in err["error"]
    await b.next(0)
    code, err = await api("POST", path, {**body, "step": 1, "msg_id": msg_id})
    assert code == 409
    code, err = await api("POST", path, {"step": 1, "kernel_id": "not-a-kernel", "msg_id": "m"})
    assert code == 409 and "not this attempt's kernel" in err["error"]


async def test_run_before_step_opened_is_not_graded(start_attempt, api):
    b = await start_attempt()
    early = await b.execute(f"print('{SECRET_OUT} alpha beta')")  # ran while step 0 was open
    await b.turn(0, "probe = 'q'")
    await b.next(0)
    code, err = await api(
        "POST", f"attempts/{b.attempt['id']}/turns", {"step": 1, "kernel_id": b.kernel_id, "msg_id": early}
    )
    assert code == 409 and "before step 1 opened" in err["error"]


async def test_bad_input_is_named(api, start_attempt):
    code, err = await api("POST", "attempts", {"task_id": PROBE_ID})
    assert code == 400 and "mode" in err["error"]
    code, err = await api("POST", "attempts", {"task_id": PROBE_ID, "mode": "sideways"})
    assert code == 400 and "mode" in err["error"]
    code, err = await api(
        "POST", "attempts", {"task_id": PROBE_ID, "mode": "e2e", "settings": {"turn_cap": -1}}
    )
    assert code == 400 and "settings.turn_cap" in err["error"]
    b = await start_attempt()
    code, err = await api("POST", f"attempts/{b.attempt['id']}/turns", {"step": "0"})
    assert code == 400 and "kernel_id" in err["error"]
    code, err = await api("GET", "attempts/" + "0" * 32)
    assert code == 404


async def test_turn_cap_settles_and_live_grades_can_be_hidden(start_attempt):
    b = await start_attempt(turn_cap=1, show_grades=False)
    code, r = await b.turn(0, "probe = 'a' * 17")
    assert code == 200 and r["grade"] is None
    assert r["settled"]["outcome"] == "turn_cap" and r["attempt"]["current_step"] == 1


async def test_oracle_mode_reveals_the_settled_reference(start_attempt):
    b = await start_attempt(mode="oracle")
    await b.turn(0, "probe = 'wrong'")
    code, r = await b.next(0)
    assert r["settled"]["oracle_code"].startswith("probe = 'LEAKPROBE")
    assert r["attempt"]["steps"][0]["reference"]["code"] == r["settled"]["oracle_code"]


@pytest.mark.fast
async def test_models_listed_by_name_only(api, monkeypatch):
    monkeypatch.setenv("CIBENCH_PROBE_KEY", "sk-secret-probe")
    code, models = await api("GET", "models")
    assert code == 200 and models == [{"name": "probe-model", "protocol": "cibench-react"}]
    assert "sk-secret" not in str(models) and "127.0.0.1:9" not in str(models)


async def test_a_turn_records_its_finish_and_cut_outputs(start_attempt, api, jp_serverapp):
    b = await start_attempt()
    code, r = await b.turn(0, "import time; time.sleep(0.3); print('x' * (5 * 1024 * 1024))")
    assert code == 200, r
    code, r = await b.turn(0, "print('short')")
    assert code == 200, r
    code, turns = await api("GET", f"attempts/{b.attempt['id']}/turns")
    assert code == 200 and [t["turn"] for t in turns] == [0, 1]
    big, small = turns
    assert big["truncated"] is True and "truncated" not in small
    assert big["finished_at"] > big["started_at"] and small["finished_at"] >= small["started_at"]
    store = jp_serverapp.web_app.settings["cibench_lab"].store
    with store.session() as s:
        rows = s.scalars(select(Turn).where(Turn.attempt_id == b.attempt["id"]).order_by(Turn.number)).all()
        kept = sum(len(o.get("text", "")) for o in rows[0].outputs)
        assert rows[0].meta["truncated"] is True and kept <= 4 * 1024 * 1024
        assert (rows[0].finished_at - rows[0].started_at).total_seconds() >= 0.3


async def test_a_large_plot_is_kept_whole(start_attempt, api, jp_serverapp):
    """A figure bigger than the text bound (a 1400x1400 noise PNG, ~8 MB in base64) still
    reaches the record and the graders."""
    b = await start_attempt()
    code = (
        "import io, numpy as np\nfrom PIL import Image\nfrom IPython.display import Image as Png, display\n"
        "buf = io.BytesIO()\n"
        "noise = np.random.default_rng(0).integers(0, 255, (1400, 1400, 3), dtype='uint8')\n"
        "Image.fromarray(noise).save(buf, 'PNG')\n"
        "display(Png(data=buf.getvalue()))"
    )
    status, r = await b.turn(0, code)
    assert status == 200, r
    store = jp_serverapp.web_app.settings["cibench_lab"].store
    with store.session() as s:
        turn = s.scalars(select(Turn).where(Turn.attempt_id == b.attempt["id"])).one()
        pngs = [o["data"]["image/png"] for o in turn.outputs if "image/png" in o.get("data", {})]
        assert len(pngs) == 1 and len(pngs[0]) > 4 * 1024 * 1024 and "truncated" not in turn.meta
