"""Baseline: the schema cibench-lab created with create_all before migrations.

Written out operation by operation (never from the models, which move on): a database
made before migrations is stamped at this revision, a new one is created by it.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    _participant_and_run()
    _attempt()
    _step_and_turn()
    _event()


def _participant_and_run() -> None:
    op.create_table(
        "participant",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("player", sa.String(200), nullable=False),
        sa.Column("mode", sa.String(10), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )


def _attempt() -> None:
    op.create_table(
        "attempt",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("task_id", sa.String(300), nullable=False),
        sa.Column("task_hash", sa.String(64), nullable=False),
        sa.Column("mode", sa.String(10), nullable=False),
        sa.Column("player", sa.String(200), nullable=False),
        sa.Column("participant_id", sa.Integer(), nullable=True),
        sa.Column("run_id", sa.Integer(), nullable=True),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("environment", sa.JSON(), nullable=False),
        sa.Column("workdir", sa.Text(), nullable=False),
        sa.Column("notebook_path", sa.Text(), nullable=False),
        sa.Column("kernel_id", sa.String(64), nullable=True),
        sa.Column("n_steps", sa.Integer(), nullable=False),
        sa.Column("current_step", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("summary", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["participant_id"], ["participant.id"]),
        sa.ForeignKeyConstraint(["run_id"], ["run.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_attempt_run_id", "attempt", ["run_id"])
    op.create_index("ix_attempt_task_id", "attempt", ["task_id"])


def _step_and_turn() -> None:
    op.create_table(
        "step",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("attempt_id", sa.String(32), nullable=False),
        sa.Column("index", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("opened_at", sa.DateTime(), nullable=False),
        sa.Column("settled_at", sa.DateTime(), nullable=True),
        sa.Column("outcome", sa.String(20), nullable=True),
        sa.Column("grade", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("attempt_id", "index"),
        sa.ForeignKeyConstraint(["attempt_id"], ["attempt.id"]),
    )
    op.create_table(
        "turn",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("attempt_id", sa.String(32), nullable=False),
        sa.Column("step", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("msg_id", sa.String(100), nullable=True),
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("outputs", sa.JSON(), nullable=False),
        sa.Column("error", sa.Boolean(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=False),
        sa.Column("grade", sa.JSON(), nullable=False),
        sa.Column("meta", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("attempt_id", "msg_id"),
        sa.ForeignKeyConstraint(["attempt_id"], ["attempt.id"]),
    )
    op.create_index("ix_turn_attempt_step", "turn", ["attempt_id", "step"])


def _event() -> None:
    op.create_table(
        "event",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("attempt_id", sa.String(32), nullable=False),
        sa.Column("kind", sa.String(30), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["attempt_id"], ["attempt.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_event_attempt_id", "event", ["attempt_id"])


def downgrade() -> None:
    for table in ("event", "turn", "step", "attempt", "run", "participant"):
        op.drop_table(table)
