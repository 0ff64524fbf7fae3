"""Room for the server's ZMQ sockets: every kernel the server talks to shares one context.

All kernel clients of a Jupyter server (the websockets', the activity monitor's, the
server's own hidden runs and captures) open their sockets in the kernel manager's one ZMQ
context, whose default limit is 1,023 sockets.  A closed socket stays counted until its
linger ends, and a heartbeat that misses under load closes and reopens its socket every
second, so a busy server meets the limit long before its file-descriptor limit: a Start
then fails with ``ZMQError: Too many open files``.  The limit is set before the context
opens its first socket (libzmq reads it then), in proportion to the process's file limit.
"""

from __future__ import annotations

import resource
from typing import Any

import zmq

#: The most sockets asked for; each open one also holds file descriptors (its mailbox, its TCP).
MOST_SOCKETS = 16384


def socket_room(context: Any) -> int:
    """Raise ``context``'s socket limit to the open-file limit (at most :data:`MOST_SOCKETS`,
    never below its own: the descriptors are then the limit); the limit now in force."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    files = soft if soft != resource.RLIM_INFINITY else 2 * MOST_SOCKETS
    current = int(context.get(zmq.MAX_SOCKETS))
    wanted = min(MOST_SOCKETS, files)
    if wanted > current:
        context.set(zmq.MAX_SOCKETS, wanted)
    return max(wanted, current)
