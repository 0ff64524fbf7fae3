"""An attempt that is no longer open — done, or quit (:mod:`.quit`) — takes no kernel.

Its notebook is a record: the lab opens it read only with no kernel (src/notebook/closed.ts), the
server refuses to bind one to it (409), and a kernel started on its notebook anyway (JupyterLab's
kernel menu, an old tab) is stopped at once (``LabPlay._auto_bind``).  The one exception is the
kernel a just-finished oracle attempt already holds while its last reference is still to be
reported (``Culler.after`` waits for it): it stays bound until then, and is stopped after.
"""

from __future__ import annotations

from collections.abc import Container, Mapping

from ..errors import Conflict
from ..record.quit import ended_word
from ..store.tables import Attempt


def showing_last_reference(
    row: Attempt, kernel_id: str, prepared: Mapping[str, str], showing: Container[str]
) -> bool:
    """``kernel_id`` is the kernel a just-finished oracle attempt holds while its last reference is
    still to be reported (``showing``: the attempts the culler waits on for that report)."""
    return (
        row.status == "done"
        and row.mode == "oracle"
        and row.kernel_id == kernel_id
        and prepared.get(kernel_id) == row.id
        and row.id in showing
    )


def check_bindable(
    row: Attempt, kernel_id: str, prepared: Mapping[str, str], showing: Container[str]
) -> None:
    """Conflict unless ``kernel_id`` may be bound to the attempt ``row``: it is open, or the kernel
    shows a just-finished oracle attempt's last reference."""
    if row.status == "open" or showing_last_reference(row, kernel_id, prepared, showing):
        return
    raise Conflict(
        f"attempt {row.id} is {ended_word(row.status)}: its notebook is read only "
        "and no kernel can be bound to it"
    )
