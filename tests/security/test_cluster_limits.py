"""A distributed run's kernels run under the run's kernel limits (``--kernel-max-processes`` ...), not
the defaults: each worker configures its kernels' sandbox from the job, limits included."""

from __future__ import annotations

import nbformat
import pytest
from conftest import PROBE_ID, write_probe_task
from dask_cluster import LocalCluster
from sqlalchemy import select

from cibench_lab.cli import main
from cibench_lab.store import Store
from cibench_lab.store.tables import Turn

MB = 1024 * 1024
KINDS = ("NPROC", "AS", "FSIZE")
SHOW = (
    "import resource\nprobe = 'x'\n"
    f"print('LIMITS', *(resource.getrlimit(getattr(resource, 'RLIMIT_' + k))[0] for k in {KINDS}))"
)


@pytest.fixture
def cluster(tmp_path):
    local = LocalCluster(tmp_path / "cluster", workers=1).start()
    try:
        yield local
    finally:
        local.stop()


def test_a_workers_kernels_take_the_runs_limits(cluster, tmp_path):
    tasks = tmp_path / "tasks"
    path = write_probe_task(tasks)  # its first step's reference shows the kernel's limits
    nb = nbformat.read(str(path), as_version=4)
    nb.cells[1].source = SHOW
    nbformat.write(nb, str(path))
    db = f"sqlite:///{tmp_path / 'r.sqlite'}"
    limits = ["--kernel-max-processes", "77", "--kernel-memory-mb", "5000", "--kernel-file-mb", "9"]
    argv = [
        "--task-dir",
        str(tasks),
        "--db",
        db,
        "run",
        "--player",
        "reference",
        "--tasks",
        PROBE_ID,
    ]
    argv += ["--scheduler-file", str(cluster.scheduler_file), "--no-progress", *limits]
    main(argv)
    store = Store(db)
    with store.session() as s:
        outputs = s.scalars(select(Turn.outputs).where(Turn.step == 0)).one()
    store.dispose()
    text = "".join(o.get("text", "") for o in outputs)
    assert f"LIMITS 77 {5000 * MB} {9 * MB}" in text, outputs
