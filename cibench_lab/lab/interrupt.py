"""A lab turn over ``turn_timeout``: its kernel interrupted, and restarted when it ignores that.

The restart path (``LabPlay.on_kernel_action``) restores the attempt's state on the kernel;
the turn records how it was stopped (``stopped``: ``interrupted`` or ``restarted``).
"""

from __future__ import annotations

import logging
from typing import Any

from ..kernels.execution import Execution

log = logging.getLogger(__name__)


async def stop_turn(kernel_manager: Any, kernel_id: str, ex: Execution, grace: float) -> None:
    """Interrupt the kernel running ``ex``; restart it when still busy after ``grace`` seconds."""
    km = kernel_manager
    log.info("cibench-lab: a turn on kernel %s timed out; interrupting it", kernel_id)
    try:
        await km.interrupt_kernel(kernel_id)
    except Exception:  # gone meanwhile: the restarter tells the capture
        log.warning("cibench-lab: interrupting kernel %s failed", kernel_id, exc_info=True)
    if await ex.wait(grace):
        if ex.status != "dead":
            ex.timed_out("interrupted")
        return
    log.warning("cibench-lab: kernel %s ignored the interrupt; restarting it", kernel_id)
    try:
        await km.restart_kernel(kernel_id, now=True)
    except Exception:
        log.exception("cibench-lab: restarting kernel %s failed", kernel_id)
        ex.timed_out(None)
    else:
        ex.timed_out("restarted")
