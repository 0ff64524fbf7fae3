"""Rendering follows the dataset: official-format folders rendered by a stock kernel of today
(matplotlib-inline's defaults: 100 dpi) and by the old inline backend (72 dpi, 6x4 in,
transparent) import with their rendering detected, verify with 0 drift under it, and the
`cibench` profile then gives OpenCompass's own SSIM on the same turn code.

The folders are made at test time the way CIBench's were: a plotting notebook executed top to
bottom by nbclient in a plain ``python -m ipykernel_launcher`` kernel (no cibench-lab start
code), the legacy one configured with matplotlib-inline 0.1.3's ``InlineBackend.rc``.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import shutil
from pathlib import Path

import nbformat
import numpy as np
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from cibench_lab.authoring.verify import verify_tasks
from cibench_lab.cli import main
from cibench_lab.grading import TurnOutput, grade
from cibench_lab.kernels.executor import KernelExecutor
from cibench_lab.kernels.interpreter import kernel_python
from cibench_lab.play.attempt import Attempts
from cibench_lab.players import ReferencePlayer
from cibench_lab.runs.local import run_tasks
from cibench_lab.runs.spec import RunSpec
from cibench_lab.store import Store
from cibench_lab.tasks import sidecar
from cibench_lab.tasks.library import TaskLibrary
from cibench_lab.tasks.plot import FIGURE_MIME
from cibench_lab.tasks.rendering import PRESETS, STOCK_72, Rendering, TaskRendering

TASK_ID = "cibench_template/matplotlib/points"
STEPS = [
    ("exec", "Load data/points.csv with pandas.", "import pandas as pd\ndf = pd.read_csv('data/points.csv')"),
    (
        "vis",
        "Plot y against x as a line with the title 'y by x'.",
        "import matplotlib.pyplot as plt\nplt.plot(df['x'], df['y'])\nplt.title('y by x')\nplt.show()",
    ),
    ("vis", "Draw a bar chart of y by x with pandas.", "df.plot.bar(x='x', y='y')\nplt.show()"),
    ("num", "How many rows are there?", "print(len(df))"),
]
#: A turn for step 2 that is close to the reference but not the same picture.
TURN = "import matplotlib.pyplot as plt\nplt.plot(df['x'], df['y'], 'r--')\nplt.title('y by x')\nplt.show()"
LEGACY_RC = dict(PRESETS["legacy-inline"][1], **{"figure.dpi": 72})


def stock_kernels(root: Path) -> KernelSpecManager:
    """Two plain IPython kernels: ``stock`` (today's matplotlib-inline: no rcParams) and
    ``legacy`` (its IPYTHONDIR sets the old InlineBackend.rc, as matplotlib-inline 0.1.3 did).
    Both run the task kernel's Python, so they differ from ours in rendering settings only
    (another matplotlib draws other pixels whatever the settings)."""
    profile = root / "ipython-legacy" / "profile_default"
    profile.mkdir(parents=True)
    (profile / "ipython_kernel_config.py").write_text(f"c.InlineBackend.rc = {LEGACY_RC!r}\n")
    # --matplotlib=inline: as our kernelspec, so that the first figure is a PNG (kernels/spec.py)
    argv = [kernel_python(), "-m", "ipykernel_launcher", "-f", "{connection_file}", "--matplotlib=inline"]
    inline = {"MPLBACKEND": "module://matplotlib_inline.backend_inline"}  # what ipykernel sets
    for name, env in (("stock", inline), ("legacy", {**inline, "IPYTHONDIR": str(profile.parent)})):
        spec = root / "kernels" / name
        spec.mkdir(parents=True)
        kernel = {"argv": argv, "display_name": name, "language": "python", "env": env}
        (spec / "kernel.json").write_text(json.dumps(kernel))
    return KernelSpecManager(kernel_dirs=[str(root / "kernels")])


def official_folder(dest: Path, kernel: str, ksm: KernelSpecManager) -> Path:
    """CIBench's layout (``<split>/<lib>/<task>.ipynb`` + ``datasources/``), outputs recorded by
    running the notebook in ``kernel`` inside a copy of ``datasources/``."""
    data = dest / "datasources" / "data"
    data.mkdir(parents=True)
    (data / "points.csv").write_text("x,y\n" + "".join(f"{i},{(i * 7) % 11}\n" for i in range(12)))
    cells = []
    for _, instruction, code in STEPS:
        cells += [new_markdown_cell(instruction), new_code_cell(code)]
    nb = new_notebook(cells=cells, metadata={"step_types": [k for k, _, _ in STEPS]})
    work = dest.parent / f"{dest.name}-run"
    shutil.copytree(dest / "datasources", work)
    km = KernelManager(kernel_name=kernel, kernel_spec_manager=ksm)
    NotebookClient(nb, km=km, timeout=60, resources={"metadata": {"path": str(work)}}).execute()
    path = dest / TASK_ID.rsplit("/", 1)[0] / "points.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, path)
    return dest


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("rendering")
    ksm = stock_kernels(root)
    return {k: official_folder(root / f"{k}-dataset", k, ksm) for k in ("stock", "legacy")}


@pytest.fixture
def imported(folders, tmp_path, monkeypatch) -> dict[str, Path]:
    """Each folder imported (``tasks import``) into its own task directory."""
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter"))
    dirs = {}
    for kind, folder in folders.items():
        into = tmp_path / f"tasks-{kind}"
        assert main(["--task-dir", str(into), "tasks", "import", str(folder), "--into", str(into)]) == 0
        dirs[kind] = into
    return dirs


def load(task_dir: Path):
    return TaskLibrary.load([task_dir]).get(TASK_ID)


def test_import_detects_the_rendering_and_says_verify_must_confirm_it(folders, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter"))
    expected = {"stock": Rendering("stock", 100.0), "legacy": Rendering("legacy-inline", 72.0)}
    for kind, folder in folders.items():
        into = tmp_path / f"tasks-{kind}"
        assert main(["tasks", "import", str(folder), "--into", str(into)]) == 0
        out = capsys.readouterr().out
        name = expected[kind].name
        assert f"rendering  {TASK_ID}: {name} (detected from the PNGs' pHYs; 2 of 2 PNGs at" in out
        assert "1 tasks' rendering is unconfirmed: `cibench-lab tasks verify` confirms it" in out
        assert f"{TASK_ID}: {name} " in out and ": unconfirmed; plots graded by SSIM until verify" in out
        task = load(into)
        assert task.rendering.rendering == expected[kind] and task.rendering.needs_verify
        assert (into / TASK_ID).with_suffix(".ipynb").read_bytes() == (folder / TASK_ID).with_suffix(
            ".ipynb"
        ).read_bytes(), "the notebook is imported unchanged"
        assert sidecar.read(into)[TASK_ID] == task.rendering


def test_both_datasets_verify_with_0_drift_and_the_old_forced_72_dpi_drifts(folders, imported, capsys):
    for task_dir in imported.values():
        argv = ["--task-dir", str(task_dir), "tasks", "verify", "--no-progress"]
        assert main(argv) == 0, capsys.readouterr()
        out = capsys.readouterr().out
        assert "1 tasks, 4 steps: 0 drifted steps" in out
        assert f"rendering  {TASK_ID}: " in out and " confirmed -> " in out
        task = load(task_dir)
        assert task.rendering.verified and not task.rendering.needs_verify
    # Importing the same folders again keeps what verify confirmed.
    for kind, task_dir in imported.items():
        assert (
            main(
                ["--task-dir", str(task_dir), "tasks", "import", str(folders[kind]), "--into", str(task_dir)]
            )
            == 0
        )
        assert "unconfirmed" not in capsys.readouterr().out
        assert load(task_dir).rendering.verified
    # Without the change every kernel forced 72 dpi and matplotlib's defaults: both drift on every plot.
    tasks = [load(d) for d in imported.values()]
    for v in asyncio.run(verify_tasks(tasks, rendering=STOCK_72)):
        assert sorted({d.step for d in v.drifts}) == [1, 2], (v.task_id, v.drifts)


def test_a_wrong_unconfirmed_rendering_is_replaced_by_the_one_that_verifies(imported, capsys):
    task_dir = imported["legacy"]
    wrong = TaskRendering(STOCK_72, "pHYs", detail="recorded wrong on purpose")
    sidecar.update(task_dir, {TASK_ID: wrong})
    assert load(task_dir).rendering == wrong
    assert main(["--task-dir", str(task_dir), "tasks", "verify", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "rendering: stock:72 drifts on vis step(s) 2, 3; legacy-inline verifies" in out
    fixed = load(task_dir).rendering
    assert fixed.rendering == Rendering("legacy-inline", 72.0) and fixed.verified


def decoded(b64: str) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(base64.b64decode(b64))))


def opencompass_vis_similarity(pred_b64: str, target_b64: str) -> float:
    """OpenCompass's ``CIBenchEvaluator.vis_similarity_step``, written from its source."""
    from skimage.metrics import structural_similarity
    from skimage.transform import resize

    img2 = decoded(target_b64)
    img1 = (255 * resize(decoded(pred_b64), img2.shape[:2])).astype(np.uint8)
    return float(structural_similarity(img1, img2, channel_axis=-1))


def png_of(outputs: list[dict]) -> str:
    return next(o["data"]["image/png"] for o in outputs if "image/png" in o.get("data", {}))


async def played(task, rendering: Rendering, folder: Path) -> TurnOutput:
    """The task's first step, then ``TURN`` for its second, on our kernel under ``rendering``."""
    from cibench_lab.play.workspace import copy_data

    copy_data(task, folder)
    ex = KernelExecutor(folder, timeout=60, rendering=rendering)
    await ex.start()
    try:
        await ex.run(task.steps[0].code)
        turn = await ex.run(TURN)
    finally:
        await ex.shutdown()
    return TurnOutput(TURN, turn.outputs, turn.error, turn.status)


def stock_turn_png(folder: Path, kernel: str, ksm: KernelSpecManager) -> str:
    """The same turn code run the OpenCompass way: a plain kernel, no start code of ours."""
    nb = new_notebook(cells=[new_code_cell(STEPS[0][2]), new_code_cell(TURN)])
    km = KernelManager(kernel_name=kernel, kernel_spec_manager=ksm)
    NotebookClient(
        nb, km=km, timeout=60, resources={"metadata": {"path": str(folder / "datasources")}}
    ).execute()
    return png_of(nb.cells[1].outputs)


def test_the_cibench_profile_gives_opencompass_scores_on_the_same_turn(folders, tmp_path):
    ksm = stock_kernels(tmp_path / "kernels")
    for kind, folder in folders.items():
        task = load(folder)
        step = task.steps[1]
        ours = asyncio.run(played(task, task.rendering.rendering, tmp_path / f"ours-{kind}"))
        theirs = opencompass_vis_similarity(stock_turn_png(folder, kind, ksm), step.reference.value or "")
        score = grade(step, [ours], "cibench").score
        assert 0.3 < theirs < 0.999, "the turn is a near miss, not the reference itself"
        assert score == pytest.approx(theirs, abs=1e-9), kind
        old = asyncio.run(played(task, STOCK_72, tmp_path / f"old-{kind}"))
        assert abs(grade(step, [old], "cibench").score - theirs) > 0.01, "the forced 72 dpi scored otherwise"


def test_a_headless_run_plays_each_dataset_under_its_rendering(folders, tmp_path):
    for i, folder in enumerate(folders.values()):
        library = TaskLibrary.load([folder])
        attempts = Attempts(Store(f"sqlite:///{tmp_path / f'r{i}.sqlite'}"), library)
        (attempt_id,) = asyncio.run(
            run_tasks(attempts, library.select(None), RunSpec(ReferencePlayer(), "e2e", "ref"))
        )
        row, task = attempts.load(attempt_id)
        assert row.environment["rendering"] == {
            **task.rendering.rendering.record(),
            "basis": "pHYs",
            "verified": False,
        }
        assert row.summary["cibench"]["vis"] == 100.0 and row.summary["fair"]["vis"] == 100.0, (
            task.id,
            row.summary,
        )


def test_build_runs_a_task_we_write_under_its_rendering_and_records_it(folders, tmp_path):
    from cibench_lab.authoring.build import main as build_main

    root = tmp_path / "ours"
    shutil.copytree(folders["stock"], root, ignore=shutil.ignore_patterns(".cibench-lab"))
    path = (root / TASK_ID).with_suffix(".ipynb")
    nb = nbformat.read(path, as_version=4)
    nb.metadata["cibench_lab"] = {"schema_version": 1, "title": "Points", "language": "en"}
    nb.metadata["modules"] = ["pandas", "matplotlib", "pandas", "pandas"]
    nb.metadata["kernelspec"] = {
        "name": "cibench-lab",
        "display_name": "Python 3 (CIBench)",
        "language": "python",
    }
    nbformat.write(nb, path)
    before = [c.outputs for c in nb.cells if c.cell_type == "code"]
    assert build_main([str(path)]) == 0
    built = nbformat.read(path, as_version=4)
    assert built.metadata["cibench_lab"]["rendering"] == {"preset": "stock", "dpi": 100.0}
    rebuilt = [c.outputs for c in built.cells if c.cell_type == "code"]
    assert (
        sum(FIGURE_MIME in o.get("data", {}) for cell in rebuilt for o in cell) == 2
    )  # a build captures them
    assert [_without_figures(c) for c in rebuilt] == before, "rebuilt at the PNGs' 100 dpi"
    assert load(root).rendering == TaskRendering(Rendering.of("stock"), "declared")


def test_verify_records_the_reference_figures_so_fair_grades_an_imported_plot_structurally(
    imported, tmp_path, capsys
):
    """An imported official notebook has no figure structure: its plots are graded by SSIM until
    verify records the fresh structures; an edited notebook drops them."""
    from cibench_lab.grading.figure import read_figure
    from cibench_lab.tasks import reference_figures

    task_dir = imported["stock"]
    task = load(task_dir)
    turn = asyncio.run(played(task, task.rendering.rendering, tmp_path / "turn"))
    before = grade(task.steps[1], [turn], "fair")
    assert "SSIM" in before.detail and "the reference has no plot structure" in before.detail

    assert main(["--task-dir", str(task_dir), "tasks", "verify", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert f"figures    {TASK_ID}: 2 reference figure structures recorded -> " in out
    assert "2 reference figures recorded" in out
    recorded = reference_figures.read(task_dir, TASK_ID, task.content_hash)
    assert sorted(recorded) == [1, 2] and all(read_figure(b) for b in recorded.values())
    assert (task_dir / ".cibench-lab" / "figures" / f"{TASK_ID}.json").is_file()

    reloaded = load(task_dir)
    after = grade(reloaded.steps[1], [turn], "fair")
    assert "data matches" in after.detail and "SSIM" not in after.detail, after.detail
    assert after.passed and reloaded.steps[0].outputs == task.steps[0].outputs

    notebook = (task_dir / TASK_ID).with_suffix(".ipynb")
    nb = nbformat.read(notebook, as_version=4)
    nb.cells[0].source += "\n"
    nbformat.write(nb, notebook)
    edited = load(task_dir)
    assert edited.content_hash != task.content_hash
    assert "the reference has no plot structure" in grade(edited.steps[1], [turn], "fair").detail


def _without_figures(outputs: list) -> list:
    """Outputs as a stock kernel gives them: without the figure structure our start code adds."""
    return [
        {**o, "data": {k: v for k, v in o["data"].items() if k != FIGURE_MIME}} if "data" in o else o
        for o in outputs
    ]
