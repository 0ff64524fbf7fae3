"""Times with their time zone on PostgreSQL: every time column becomes ``timestamp with time zone``.

The code holds aware UTC times (``cibench_lab.store.times``). The naive values stored so far were UTC,
so each is converted as a UTC time (``AT TIME ZONE 'UTC'``): the instants stay the same. Downgrading
turns them back into naive UTC. SQLite keeps its naive UTC text as it is (nothing to do).

Revision ID: 0007
Revises: 0006
"""

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

TIME_COLUMNS = {
    "participant": ("created_at",),
    "study": ("created_at",),
    "enrolment": ("consent_at", "created_at", "finished_at"),
    "run": ("created_at",),
    "run_lease": ("acquired_at", "heartbeat_at"),
    "attempt": ("created_at", "finished_at"),
    "step": ("opened_at", "settled_at"),
    "turn": ("started_at", "finished_at"),
    "event": ("at",),
    "oracle_reference": ("at",),
    "class_member": ("created_at",),
}


def _retype(to: str) -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, columns in TIME_COLUMNS.items():
        changes = ", ".join(f"ALTER COLUMN {c} TYPE {to} USING {c} AT TIME ZONE 'UTC'" for c in columns)
        op.execute(f"ALTER TABLE {table} {changes}")


def upgrade() -> None:
    _retype("timestamp with time zone")


def downgrade() -> None:
    _retype("timestamp without time zone")
