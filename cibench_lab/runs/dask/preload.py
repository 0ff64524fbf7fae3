"""A Dask worker made ready to play attempts when it starts:
``dask worker --preload cibench_lab.runs.dask.preload ...``.

Without the preload a worker gets ready inside the first run it serves: the driver's
:class:`.reaper.KernelReaper` starts its grading processes when the run connects, and its first
attempt imports the play modules (the step driver, the kernel client, the players) and the
text-grading libraries — seconds of CPU, on every worker, counted in that run's time.  With it
they happen as the worker starts; the reaper's own set-up, when a run registers it, then finds
everything in place.
"""

from __future__ import annotations

from typing import Any


def dask_setup(worker: Any) -> None:
    """Dask's preload hook, on the worker's event loop as it starts."""
    from ...players import make_player  # noqa: F401 - imported now, not by the first attempt
    from . import worker as remote

    remote.prepare_worker(worker.state.nthreads)
    remote.warm_grader(worker.state.nthreads)
