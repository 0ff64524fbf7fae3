"""Run leases: one process plays a run name at a time (``cibench-lab run``).

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "run_lease",
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("holder", sa.String(300), nullable=False),
        sa.Column("token", sa.String(32), nullable=False),
        sa.Column("acquired_at", sa.DateTime(), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("run_lease")
