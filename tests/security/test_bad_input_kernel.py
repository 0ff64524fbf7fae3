"""Issue 26, item 9, where a kernel is needed: a kernel's malformed IOPub message is ignored (and
counted) — the turn is graded from the well-formed ones, the kernel keeps running — and a
teacher's solution with no ``data/`` folder becomes a task."""

from __future__ import annotations

from newtask import write_solution

from cibench_lab.cli import main
from cibench_lab.kernels.executor import KernelExecutor

#: A cell publishing, on its own IOPub, a display whose data is a list and a stream whose text is a
#: number (ipykernel's own session and socket, the parent its request's), then a well-formed print.
MALFORMED = """\
k = get_ipython().kernel
parent = k.get_parent('shell')
k.session.send(k.iopub_socket, 'display_data', {'data': [1, 2], 'metadata': {}}, parent=parent)
k.session.send(k.iopub_socket, 'stream', {'name': 'stdout', 'text': 5}, parent=parent)
k.session.send(k.iopub_socket, 'error', {'ename': 1, 'evalue': None, 'traceback': 'x'}, parent=parent)
probe = 'x'
print('after')
"""


async def test_a_malformed_iopub_message_is_ignored_in_the_lab(start_attempt, jp_serverapp):
    browser = await start_attempt()
    kernel = jp_serverapp.kernel_manager.get_kernel(browser.kernel_id)
    pid = kernel.provisioner.process.pid
    code, turn = await browser.turn(0, MALFORMED)
    assert code == 200 and turn["grade"]["passed"], turn
    code, turns = await browser.api("GET", f"attempts/{browser.attempt['id']}/turns")
    assert (turns[0]["status"], turns[0]["error"]) == ("ok", False), turns
    assert turns[0]["outputs"] == [{"output_type": "stream", "name": "stdout", "text": "after\n"}]
    assert turns[0]["malformed"] == 3, turns  # shown in the turn's facts (panel/turns.ts: turnFacts)
    code, turn = await browser.turn(0, "print(probe)")  # the same kernel goes on
    assert code == 200 and turn["grade"]["passed"], turn
    assert kernel.provisioner.process.pid == pid


async def test_a_malformed_iopub_message_is_ignored_headless(tmp_path):
    executor = KernelExecutor(tmp_path, timeout=30)
    await executor.start()
    try:
        pid = executor.pid
        ex = await executor.run(MALFORMED)
        assert (ex.status, ex.error, [o.get("text") for o in ex.outputs]) == ("ok", False, ["after\n"])
        assert ex.facts() == {"malformed": 3}
        ex = await executor.run("print(probe)")
        assert ex.status == "ok" and ex.outputs[0]["text"] == "x\n" and executor.pid == pid
    finally:
        await executor.shutdown()


def test_a_solution_with_no_data_folder_becomes_a_task(tmp_path, capsys):
    cells = [
        "# Sums\n\nSome sums of small numbers.",
        (
            "Make a pandas Series `xs` of the numbers 1 to 5.",
            "import pandas as pd\nxs = pd.Series(range(1, 6))",
        ),
        ("Print the sum of `xs`.", "print(int(xs.sum()))"),
    ]
    nb = write_solution(tmp_path / "teacher", cells, name="sums.ipynb", data=False)
    rc = main(["tasks", "new", str(nb), "--into", str(tmp_path / "tasks")])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "Traceback" not in err and "FileNotFoundError" not in err
    assert "written classroom/pandas/sums" in out, out
