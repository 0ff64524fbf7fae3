"""Run leases: one process plays a run name at a time.

A run is played under a ``run_lease`` row (the run name, the holder's ``host:pid`` and
random token, a heartbeat).  Taking it is one insert under the name's primary key, or — when
the holder's heartbeat is older than :func:`stale_after` (it was killed) — one conditional
update that only one process can win; either way the database decides, on SQLite and
PostgreSQL alike.  The holder renews the heartbeat from a thread of its own every few
seconds and deletes the row at the end.  A holder whose lease was taken over (it was
suspended past the staleness) stops at its next renewal.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from ..errors import Conflict
from ..store import Store
from ..store.tables import RunLease, utcnow

log = logging.getLogger(__name__)

STALE_ENV = "CIBENCH_LAB_RUN_LEASE_STALE"  # seconds; for tests (default 60)
STALE = 60.0


class RunBusy(Conflict):
    """Another live process holds the run's lease (the message names it)."""


def stale_after() -> float:
    """Seconds without a heartbeat after which a lease may be taken over."""
    try:
        return max(0.5, float(os.environ.get(STALE_ENV) or STALE))
    except ValueError:
        return STALE


def busy_message(name: str, holder: str, since: dt.datetime) -> str:
    return (
        f"run {name} is being played by {holder} since {since:%Y-%m-%d %H:%M:%S} UTC; "
        "wait, or use another --run name"
    )


@dataclass
class Lease:
    """This process's lease of run ``name`` (:meth:`take` it, then :meth:`hold` it)."""

    store: Store
    name: str
    holder: str = field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}")
    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    stale: float = field(default_factory=stale_after)

    def take(self, tries: int = 5) -> None:
        """Hold the run's lease, or RunBusy naming the live holder."""
        for _ in range(tries):
            if self._insert() or self._take_over():
                return
            current = self._current()
            if current is not None:
                raise RunBusy(busy_message(self.name, current.holder, current.acquired_at))
        raise RunBusy(f"run {self.name}: its lease kept changing hands; try again")

    def _insert(self) -> bool:
        try:
            with self.store.session() as s:
                s.add(RunLease(name=self.name, holder=self.holder, token=self.token))
                s.flush()
            return True
        except IntegrityError:  # held, or being taken: see whether it is stale
            return False

    def _take_over(self) -> bool:
        now = utcnow()
        with self.store.session() as s:
            taken = s.execute(
                update(RunLease)
                .where(RunLease.name == self.name, RunLease.heartbeat_at < now - _seconds(self.stale))
                .values(holder=self.holder, token=self.token, acquired_at=now, heartbeat_at=now)
            )
        if taken.rowcount:  # type: ignore[attr-defined]
            log.warning("cibench-lab: run %s: took over a lease whose holder stopped renewing it", self.name)
        return bool(taken.rowcount)  # type: ignore[attr-defined]

    def _current(self) -> RunLease | None:
        with self.store.session() as s:
            return s.scalar(select(RunLease).where(RunLease.name == self.name))

    def renew(self) -> bool:
        """Refresh the heartbeat; False when the lease is no longer ours."""
        with self.store.session() as s:
            done = s.execute(
                update(RunLease)
                .where(RunLease.name == self.name, RunLease.token == self.token)
                .values(heartbeat_at=utcnow())
            )
        return bool(done.rowcount)  # type: ignore[attr-defined]

    def release(self) -> None:
        with self.store.session() as s:
            s.execute(delete(RunLease).where(RunLease.name == self.name, RunLease.token == self.token))

    def holder_now(self) -> str:
        current = self._current()
        return current.holder if current is not None else "nobody"

    def hold(self, on_lost: Callable[[], object]) -> Heartbeat:
        """Renew the lease from a thread until the heartbeat is stopped; ``on_lost`` (called
        from that thread) when another process took it over."""
        beat = Heartbeat(self, on_lost)
        beat.start()
        return beat


def _seconds(n: float) -> dt.timedelta:
    return dt.timedelta(seconds=n)


class Heartbeat(threading.Thread):
    """Renews a lease every ``stale / 6`` seconds (10 s at the default 60)."""

    def __init__(self, lease: Lease, on_lost: Callable[[], object]):
        super().__init__(name=f"cibench-lease-{lease.name}", daemon=True)
        self.lease, self.on_lost = lease, on_lost
        self.stopped = threading.Event()
        self.lost = False

    def run(self) -> None:
        while not self.stopped.wait(self.lease.stale / 6):
            try:
                mine = self.lease.renew()
            except SQLAlchemyError as err:  # the database is away for now: try again next beat
                log.warning("cibench-lab: run %s: renewing its lease failed: %s", self.lease.name, err)
                continue
            if not mine:
                self.lost = True
                self.on_lost()
                return

    def stop(self) -> None:
        self.stopped.set()
        self.join()
