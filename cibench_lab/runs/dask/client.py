"""Distributed runs: a run's attempts played on the workers of a Dask cluster.

The driver (``cibench-lab run --cluster ADDRESS`` or ``--scheduler-file FILE``) holds the run's
lease and alone writes the results database, as a local run does; it creates or reopens each
attempt there and submits one task per attempt (:func:`.remote.play_attempt`).  A worker says
hello and gets the attempt's rows from the driver, plays the attempt on its own kernels and
sends what changed after every transition (:mod:`.stream`); the driver applies them
(:func:`.replica.apply`, keyed, so a copy applied twice changes nothing) and draws the progress
from them.  A worker lost mid-attempt: Dask starts the task again on another worker, whose hello
gets every row the lost one sent, and it goes on from them.  Resume is the driver's: the same
``--run`` again skips finished attempts and reopens the others from the results database.

Connecting: Dask's security configuration (``distributed.comm.tls.*``) or the ``--tls-*``
files; a scheduler off this machine is refused without TLS unless ``insecure``.
"""

from __future__ import annotations

import ipaddress
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ...errors import BadInput
from ...tasks.model import Task

if TYPE_CHECKING:  # distributed is imported where a run connects, not to start the CLI
    from distributed import Client
    from distributed.security import Security

log = logging.getLogger(__name__)
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")
WAIT_WORKERS = 60.0  # seconds a run waits for the cluster's first worker


@dataclass(frozen=True)
class ClusterOptions:
    address: str | None = None
    scheduler_file: str | None = None
    tls_ca_file: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    insecure: bool = False


@dataclass(frozen=True)
class JobOptions:
    """What every attempt's job carries besides the attempt (:class:`.remote.Job`)."""

    player: str
    model_options: dict[str, Any]
    hide_env: tuple[str, ...]
    judge: dict[str, str]
    sandbox: dict[str, Any]  # enabled, network, limits (KernelLimits.flag())
    grading_workers: int


def scheduler_address(options: ClusterOptions) -> str:
    """The scheduler's address (from the scheduler file when one is named); BadInput when none."""
    if options.scheduler_file:
        try:
            return str(json.loads(Path(options.scheduler_file).read_text())["address"])
        except (OSError, ValueError, KeyError) as err:
            raise BadInput(
                f"--scheduler-file {options.scheduler_file}: no scheduler address ({err})"
            ) from None
    if not options.address:
        raise BadInput("--cluster: give the scheduler's address (tcp://HOST:PORT or tls://HOST:PORT)")
    return options.address


def is_local(address: str) -> bool:
    """Whether the address is this machine's (loopback, or an in-process/ipc address)."""
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    if parts.scheme in ("inproc", "ipc"):
        return True
    host = parts.hostname or ""
    if host in LOCAL_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def security(options: ClusterOptions, address: str) -> Security:
    """The Security to connect with; BadInput for a non-local scheduler without TLS."""
    from distributed.security import Security

    files = {"tls_ca_file": options.tls_ca_file, "tls_client_cert": options.tls_cert}
    files["tls_client_key"] = options.tls_key
    given = {k: v for k, v in files.items() if v}
    sec = Security(require_encryption=True, **given) if given else Security()
    tls = address.startswith("tls://") and bool(getattr(sec, "tls_ca_file", None))
    if address.startswith("tls://") and not tls:
        raise BadInput(f"--cluster {address}: a tls:// address needs --tls-ca-file (or Dask's TLS settings)")
    if not tls and not is_local(address) and not options.insecure:
        raise BadInput(
            f"--cluster {address}: a scheduler on another machine needs TLS (a tls:// address and "
            "--tls-ca-file/--tls-cert/--tls-key, or Dask's distributed.comm.tls settings); "
            "--insecure to connect without"
        )
    return sec


async def connect(options: ClusterOptions, sandboxed: bool = True) -> Client:
    """An asynchronous Dask client of the cluster, with the kernel reapers registered and its
    workers checked (BadInput naming a worker that cannot play, and why)."""
    from distributed import Client

    from .reaper import KernelReaper, NannyReaper
    from .worker import check_worker

    address = scheduler_address(options)
    sec = security(options, address)
    try:
        client = await Client(address, security=sec, asynchronous=True, timeout=30)
    except OSError as err:
        raise BadInput(f"--cluster {address}: cannot reach the scheduler: {err}") from None
    try:
        await client.wait_for_workers(1, timeout=WAIT_WORKERS)
        await client.register_plugin(KernelReaper())  # idempotent: set up once per worker
        await client.register_plugin(NannyReaper())
        problems = {w: p for w, p in (await client.run(check_worker, sandboxed)).items() if p}
    except BaseException:
        await client.close()
        raise
    if problems:
        await client.close()
        worker, problem = next(iter(problems.items()))
        raise BadInput(f"--cluster {address}: worker {worker} cannot play attempts: {problem}")
    return client


def task_data(task: Task) -> dict[str, bytes]:
    """The task's data files, for a worker's own copy (paths relative to its datasources)."""
    if task.datasources is None:
        return {}
    root = task.datasources
    names = task.data_files or tuple(
        p.relative_to(root).as_posix() for p in sorted(root.rglob("*")) if p.is_file()
    )
    return {
        rel: (root / rel).read_bytes()
        for rel in names
        if (root / rel).resolve().is_relative_to(root.resolve())
    }
