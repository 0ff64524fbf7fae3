"""Hidden work on a lab kernel: the start code and the restored state, run by the server itself.

For a person's attempt hidden runs do not enter the kernel's history (``store_history=False``):
their first run shows ``[1]``, as in any notebook, and restored cells leave no ``In``/``Out``
entries — but a benchmark's prior turn (a turn it plays before the person's first), an
already-run cell of the notebook, is ``[1]`` and the person's first run ``[2]``.  A player's are
counted, as the headless executor counts them: a traceback names its cell (``Cell In[3]``), and a
model's prompts are the same in the lab and headless.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from ..grading import TurnOutput
from ..kernels.executor import execute, ready

log = logging.getLogger(__name__)
#: How the session ids of the server's own clients begin: their runs are not the person's.
HIDDEN_SESSION = "cibench-lab-hidden-"


async def run_hidden(
    kernel_manager: Any,
    kernel_id: str,
    codes: list[str],
    timeout: float,
    counted: bool = False,
    counted_at: frozenset[int] = frozenset(),
) -> list[TurnOutput]:
    """Run ``codes`` one after another on the kernel, through a client of its own (in its
    history when ``counted``; the codes at ``counted_at`` always: a benchmark's prior turn,
    the notebook's ``[1]``)."""
    kernel = kernel_manager.get_kernel(kernel_id)
    kc = kernel.client(session=own_session(kernel.session))
    kc.start_channels(hb=False)  # a one-shot client: `ready` proves the kernel answers
    ran = []
    try:
        await ready(kc, kernel)
        for i, code in enumerate(codes):
            ex = await execute(kc, kernel, code, timeout, store_history=counted or i in counted_at)
            if ex.error:
                last = ex.outputs[-1:] if ex.outputs else ex.status
                log.warning("cibench-lab: hidden code failed on kernel %s: %s", kernel_id, last)
            ran.append(TurnOutput(code, ex.outputs, ex.error, ex.status))
    finally:
        kc.stop_channels()
    return ran


async def language_info(kernel_manager: Any, kernel_id: str) -> dict[str, Any]:
    """The kernel's ``language_info`` (its kernel_info reply), which JupyterLab writes into a
    notebook's metadata when the kernel connects."""
    kernel = kernel_manager.get_kernel(kernel_id)
    kc = kernel.client(session=own_session(kernel.session))
    kc.start_channels(hb=False)  # a one-shot client: `ready` proves the kernel answers
    try:
        content = await ready(kc, kernel)  # its answer is the kernel_info reply
    finally:
        kc.stop_channels()
    return content.get("language_info") or {"name": "python"}


def own_session(session: Any) -> Any:
    """The kernel manager's session under an id of its own: a kernel's shell answers a client
    by its identity (the session id), and of two clients connected under one id only one
    is answered (e.g. after a restart, another client of the same session reconnects first)."""
    own = session.clone()
    own.session = HIDDEN_SESSION + str(uuid.uuid4())
    return own


def is_hidden(session: str | None) -> bool:
    """Whether a request came from one of the server's own clients (:func:`own_session`)."""
    return bool(session) and str(session).startswith(HIDDEN_SESSION)
