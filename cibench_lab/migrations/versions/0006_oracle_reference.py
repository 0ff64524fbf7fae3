"""Oracle references in a table of their own: ``oracle_reference``, its rows moved out of ``event``.

Before, what a step's reference printed (oracle mode) was an ``event`` of kind ``oracle`` whose detail
held ``step``, ``code``, ``outputs``, ``error``, ``status`` and, when known, ``source``. Upgrading moves
each such event into a row of its own with the event's id and time (so the latest of a step stays the
latest); an ``oracle`` event holding anything else stays an event (nothing is lost). Downgrading
moves the rows back into events, their detail as the code before wrote it (new event ids, at the end).
On PostgreSQL the table gets the ``event`` table's row-level security policies (revision 0005).

Revision ID: 0006
Revises: 0005
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

KIND = "oracle"
FIELDS = ("source", "step", "code", "outputs", "error", "status")  # a detail's keys, in written order
BATCH = 500

event = sa.table(
    "event",
    sa.column("id", sa.Integer),
    sa.column("attempt_id", sa.String),
    sa.column("kind", sa.String),
    sa.column("at", sa.DateTime),
    sa.column("detail", sa.JSON),
)
reference = sa.table(
    "oracle_reference",
    sa.column("id", sa.Integer),
    sa.column("attempt_id", sa.String),
    sa.column("step", sa.Integer),
    sa.column("source", sa.Text),
    sa.column("code", sa.Text),
    sa.column("outputs", sa.JSON),
    sa.column("error", sa.Boolean),
    sa.column("status", sa.String),
    sa.column("at", sa.DateTime),
)
OWN_ATTEMPTS = "(SELECT a.id FROM attempt a WHERE a.participant_id = (SELECT cibench_own_participant()))"


def upgrade() -> None:
    op.create_table(
        "oracle_reference",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("attempt_id", sa.String(32), nullable=False),
        sa.Column("step", sa.Integer(), nullable=False),
        sa.Column("source", sa.Text(), nullable=True),
        sa.Column("code", sa.Text(), nullable=True),
        sa.Column("outputs", sa.JSON(), nullable=False),
        sa.Column("error", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["attempt_id"], ["attempt.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_oracle_reference_attempt_step", "oracle_reference", ["attempt_id", "step"])
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE oracle_reference ENABLE ROW LEVEL SECURITY")
        readable = "attempt_id IN (SELECT id FROM attempt)"
        op.execute(f"CREATE POLICY cibench_read ON oracle_reference FOR SELECT USING ({readable})")
        mine = f"attempt_id IN {OWN_ATTEMPTS}"
        policy = "CREATE POLICY cibench_write ON oracle_reference FOR ALL"
        op.execute(f"{policy} USING ({mine}) WITH CHECK ({mine})")
    _move_events()


def as_row(attempt_id: str, at: Any, detail: Any) -> dict[str, Any] | None:
    """An ``oracle`` event's row of ``oracle_reference``; None when its detail is not one this
    table holds whole (it stays an event)."""
    if not isinstance(detail, dict) or not set(detail) <= set(FIELDS):
        return None
    step, outputs, error, status = (detail.get(k) for k in ("step", "outputs", "error", "status"))
    source, code = detail.get("source"), detail.get("code")
    if type(step) is not int or not isinstance(outputs, list) or not isinstance(error, bool):
        return None
    if not isinstance(status, str) or not all(isinstance(v, str | None) for v in (source, code)):
        return None
    return {"attempt_id": attempt_id, "step": step, "source": source, "code": code} | {
        "outputs": outputs,
        "error": error,
        "status": status,
        "at": at,
    }


def as_detail(row: Any) -> dict[str, Any]:
    """An ``oracle_reference`` row as the ``oracle`` event's detail the code before wrote."""
    detail = {k: getattr(row, k) for k in FIELDS}
    return {k: v for k, v in detail.items() if v is not None or k not in ("source", "code")}


def _move_events() -> None:
    bind = op.get_bind()
    q = sa.select(event.c.id, event.c.attempt_id, event.c.at, event.c.detail).where(event.c.kind == KIND)
    moved: list[int] = []
    rows: list[dict[str, Any]] = []
    for event_id, attempt_id, at, detail in bind.execute(q.order_by(event.c.id)):
        row = as_row(attempt_id, at, detail)
        if row is not None:
            moved.append(event_id)
            rows.append({"id": event_id, **row})
    for i in range(0, len(rows), BATCH):
        bind.execute(sa.insert(reference), rows[i : i + BATCH])
    for i in range(0, len(moved), BATCH):
        bind.execute(sa.delete(event).where(event.c.id.in_(moved[i : i + BATCH])))
    if moved and bind.dialect.name == "postgresql":  # the ids given: new rows number on after them
        op.execute(
            "SELECT setval(pg_get_serial_sequence('oracle_reference', 'id'), max(id)) FROM oracle_reference"
        )


def downgrade() -> None:
    _restore_events()
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP POLICY cibench_write ON oracle_reference")
        op.execute("DROP POLICY cibench_read ON oracle_reference")
    op.drop_index("ix_oracle_reference_attempt_step", table_name="oracle_reference")
    op.drop_table("oracle_reference")


def _restore_events() -> None:
    """Each reference back as its ``oracle`` event: with its id when no event has that id (a moved
    event gets its own back), else a new one."""
    bind = op.get_bind()
    taken = set(bind.scalars(sa.select(event.c.id)))
    kept: list[dict[str, Any]] = []
    renumbered: list[dict[str, Any]] = []
    for r in bind.execute(sa.select(reference).order_by(reference.c.id)):
        row = {"attempt_id": r.attempt_id, "kind": KIND, "at": r.at, "detail": as_detail(r)}
        if r.id in taken:
            renumbered.append(row)
        else:
            kept.append({"id": r.id, **row})
    for part in (kept, renumbered):
        for i in range(0, len(part), BATCH):
            bind.execute(sa.insert(event), part[i : i + BATCH])
    if kept and bind.dialect.name == "postgresql":  # new events number on after every id given
        seq = bind.scalar(sa.text("SELECT pg_get_serial_sequence('event', 'id')"))
        newest = f"GREATEST((SELECT max(id) FROM event), (SELECT last_value FROM {seq}))"
        op.execute(f"SELECT setval('{seq}', {newest})")
