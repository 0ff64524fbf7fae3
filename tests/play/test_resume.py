"""Resume: a new kernel for an attempt gets the attempt's state back before play goes on."""

from __future__ import annotations

from conftest import SECRET_CODE
from sqlalchemy import select

from cibench_lab.store.tables import Event, OracleReference


def restores(serverapp, attempt_id: str, kind: str = "restore") -> list[dict]:
    """The attempt's ``kind`` events' details; ``oracle``: its reference runs (a table of their own)."""
    store = serverapp.web_app.settings["cibench_lab"].store
    with store.session() as s:
        if kind == "oracle":
            refs = select(OracleReference).where(OracleReference.attempt_id == attempt_id)
            return [r.detail() for r in s.scalars(refs.order_by(OracleReference.id))]
        q = select(Event.detail).where(Event.attempt_id == attempt_id, Event.kind == kind)
        return list(s.scalars(q))


async def test_kernel_restart_restores_state_end_to_end(start_attempt, api, jp_serverapp):
    b = await start_attempt()
    await b.turn(0, "probe = 'r' * 17")
    await b.next(0)
    await b.turn(1, "print('alpha beta')")
    km = jp_serverapp.kernel_manager
    await km.restart_kernel(b.kernel_id)
    b.close()
    code, bound = await api("POST", f"attempts/{b.attempt['id']}/kernel", {"kernel_id": b.kernel_id})
    assert code == 200, bound
    # restored by the server as soon as the kernel came back (or by this bind: once either way)
    assert [r["cells"] for r in restores(jp_serverapp, b.attempt["id"])] == [2]
    b.kc = km.get_kernel(b.kernel_id).client()
    b.kc.start_channels()
    await b.next(1)
    await b.turn(2, "print(6 * 7)")
    await b.next(2)
    code, r = await b.turn(3, "print(len(probe))")  # `probe` only exists if state was restored
    assert code == 200 and r["grade"]["detail"] == "number matched", r
    code, view = await api("GET", f"attempts/{b.attempt['id']}")
    assert [s["turns"] for s in view["steps"]] == [1, 1, 1, 1]


async def test_new_session_after_server_loss_restores_oracle_references(start_attempt, api, jp_serverapp):
    b = await start_attempt(mode="oracle")
    await b.turn(0, "probe = 'wrong length'")
    await b.next(0)
    # the kernel goes away (as when the server is killed) and the notebook reopens on a new one
    km = jp_serverapp.kernel_manager
    await km.shutdown_kernel(b.kernel_id)
    b.close()
    session = await jp_serverapp.session_manager.create_session(
        path=b.attempt["notebook_path"], type="notebook", kernel_name="cibench-lab"
    )
    new_id = session["kernel"]["id"]
    code, bound = await api("POST", f"attempts/{b.attempt['id']}/kernel", {"kernel_id": new_id})
    assert code == 200
    assert [r["cells"] for r in restores(jp_serverapp, b.attempt["id"])] == [1]
    # no oracle report came for step 0: the restore kept what the new kernel's reference run printed
    refs = restores(jp_serverapp, b.attempt["id"], "oracle")
    assert [(r["step"], r["source"], r["code"], r["error"]) for r in refs] == [
        (0, "restore", f"probe = '{SECRET_CODE}'", False)
    ]
    b.kernel_id = new_id
    b.kc = km.get_kernel(new_id).client()
    b.kc.start_channels()
    await b.turn(1, "print('alpha beta')")
    await b.next(1)
    await b.turn(2, "print(6 * 7)")
    await b.next(2)
    code, r = await b.turn(3, "print(len(probe))")  # 17 only with the reference's probe
    assert code == 200 and r["grade"]["detail"] == "number matched", r


async def test_a_late_kernel_start_event_does_not_prepare_the_kernel_again(start_attempt, jp_serverapp):
    """Start binds the new kernel itself; when the kernel-start event arrives after that, the
    kernel is not restored again (a run made meanwhile would be refused as 'during restore')."""
    import asyncio

    b = await start_attempt()
    lab = jp_serverapp.web_app.settings["cibench_lab"].lab
    prepared = lab.prepared_at[b.kernel_id]
    lab.on_kernel_action("start", b.kernel_id)
    await asyncio.sleep(1.0)
    assert lab.prepared_at[b.kernel_id] == prepared and not lab.background
    code, r = await b.turn(0, "probe = 'p' * 17")
    assert code == 200 and r["grade"]["exec"] == 1, r
