"""The attempt notebook the server writes: named after the task's split and language, trusted."""

from __future__ import annotations

import json
from pathlib import PurePosixPath

import nbformat
import pytest
from sqlalchemy import select

from cibench_lab.play.attempt import Attempts, NewAttempt
from cibench_lab.play.settings import PlaySettings
from cibench_lab.play.workspace import notebook_name
from cibench_lab.store import Store
from cibench_lab.store.tables import Turn
from cibench_lab.tasks.library import TaskLibrary, builtin_dir

SAME_NAME = "pandas/economics_unemployment"  # one task in three splits


def _same_named_in_three_splits(root):
    """The built-in task in its two template splits, and as a generation task of the same name
    (the built-in generation split holds no copy of a template task)."""
    for split in ("cibench_template", "cibench_template_chinese"):
        source = builtin_dir() / split / f"{SAME_NAME}.ipynb"
        (root / split / SAME_NAME).parent.mkdir(parents=True)
        (root / split / f"{SAME_NAME}.ipynb").write_bytes(source.read_bytes())
    nb = nbformat.read(builtin_dir() / "cibench_template" / f"{SAME_NAME}.ipynb", as_version=4)
    for key in ("step_types", "modules"):
        nb.metadata.pop(key)
    (root / "cibench_generation" / SAME_NAME).parent.mkdir(parents=True)
    nbformat.write(nb, root / "cibench_generation" / f"{SAME_NAME}.ipynb")
    (root / "datasources" / "data").mkdir(parents=True)
    for rel in nb.metadata["cibench_lab"]["data_files"]:
        (root / "datasources" / rel).write_bytes((builtin_dir() / "datasources" / rel).read_bytes())
    return TaskLibrary.load([root])


@pytest.mark.fast
def test_same_named_tasks_get_different_notebook_names(tmp_path):
    library = _same_named_in_three_splits(tmp_path)
    splits = ("cibench_template", "cibench_template_chinese", "cibench_generation")
    names = [notebook_name(library.get(f"{split}/{SAME_NAME}")) for split in splits]
    assert names == [
        "economics_unemployment.template-en.ipynb",
        "economics_unemployment.template-zh.ipynb",
        "economics_unemployment.generation-en.ipynb",
    ]


@pytest.mark.fast
def test_a_second_attempt_of_a_task_gets_its_own_notebook_name(tmp_path):
    """Two attempts of one task open two tabs: from the second on, the name carries the attempt's
    number among the participant's attempts of that task, right after the stem."""
    library = TaskLibrary.load([builtin_dir()])
    attempts = Attempts(Store(f"sqlite:///{tmp_path / 'r.sqlite'}"), library)
    task = library.get(f"cibench_template/{SAME_NAME}")
    other = library.get("cibench_template/pandas/tips_ratio_by_group")

    def start(who, t=task):
        return attempts.create(NewAttempt(t, "e2e", "human", who, PlaySettings(), {}))

    ada = [start("ada"), start("ada")]
    bob, ada_other, ada_third = start("bob"), start("ada", other), start("ada")
    assert [attempts.number(a) for a in (*ada, ada_third, bob, ada_other)] == [1, 2, 3, 1, 1]
    names = [notebook_name(task, attempts.number(a)) for a in (*ada, ada_third)]
    assert names == [
        "economics_unemployment.template-en.ipynb",
        "economics_unemployment-2.template-en.ipynb",
        "economics_unemployment-3.template-en.ipynb",
    ]


async def test_the_notebook_opens_trusted_under_its_name(start_attempt, jp_fetch):
    b = await start_attempt(task_id=f"cibench_template_chinese/{SAME_NAME}")
    path = b.attempt["notebook_path"]
    assert PurePosixPath(path).name == "economics_unemployment.template-zh.ipynb"
    resp = await jp_fetch("api", "contents", *path.split("/"))  # what JupyterLab loads
    cells = json.loads(resp.body)["content"]["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    assert code and all(c["metadata"].get("trusted") is True for c in code), code
    again = await start_attempt(task_id=f"cibench_template_chinese/{SAME_NAME}")  # a second tab
    assert PurePosixPath(again.attempt["notebook_path"]).name == "economics_unemployment-2.template-zh.ipynb"


async def test_the_notebook_records_the_kernels_language_info(start_attempt, jp_root_dir):
    """JupyterLab writes the kernel's language_info into the notebook when it connects: the
    server wrote the same, so opening the notebook leaves it unmodified (not dirty)."""
    b = await start_attempt()
    reply = await b.kc.kernel_info(reply=True, timeout=30)
    written = nbformat.read(str(jp_root_dir / b.attempt["notebook_path"]), as_version=4)
    assert written.metadata["language_info"] == reply["content"]["language_info"]
    assert written.metadata["language_info"]["version"]  # the real one, not a stub


def _stderr(serverapp, attempt_id: str, step: int) -> list[str]:
    store = serverapp.web_app.settings["cibench_lab"].store
    with store.session() as s:
        q = select(Turn.outputs).where(Turn.attempt_id == attempt_id, Turn.step == step)
        outputs = [o for turn in s.scalars(q) for o in turn]
    return [o["text"] for o in outputs if o.get("name") == "stderr"]


#: Builds and fits a small Keras model with the process's stderr (fd 2, where TensorFlow's C++
#: side logs) sent to a file, then prints what reached it: only the probe written first.
TF_CODE = """\
import os, tempfile
_log, _fd2 = tempfile.TemporaryFile(), os.dup(2)
os.dup2(_log.fileno(), 2)
os.write(2, b"probe\\n")
import tensorflow as tf
model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
model.compile(optimizer="adam", loss="mse")
model.fit([[0.0, 1.0]], [[1.0]], epochs=1, verbose=0)
os.dup2(_fd2, 2)
_log.seek(0)
print("fd 2:", _log.read())
"""


async def test_tensorflow_prints_no_startup_log_in_a_participants_output(start_attempt, jp_serverapp):
    """Nothing TensorFlow logs at start reaches the participant: not on Python's stderr (a
    stderr output), not on the process's (which ipykernel forwards outside pytest)."""
    b = await start_attempt(task_id="cibench_template/tensorflow/digits_keras_classifier")
    code, r = await b.turn(0, TF_CODE)
    assert code == 200 and r["grade"]["detail"] == "ran without error", r
    assert _stderr(jp_serverapp, b.attempt["id"], 0) == []
    store = jp_serverapp.web_app.settings["cibench_lab"].store
    with store.session() as s:
        outputs = s.scalar(select(Turn.outputs).where(Turn.attempt_id == b.attempt["id"]))
    assert [o.get("text") for o in outputs] == ["fd 2: b'probe\\n'\n"]
