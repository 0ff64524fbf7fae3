"""Studies: the study, each participant's enrolment, an attempt's study and protocol, a step's note.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "study",
        sa.Column("id", sa.String(100), nullable=False),
        sa.Column("title", sa.String(300), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("salt", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "enrolment",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("study_id", sa.String(100), nullable=False),
        sa.Column("participant_id", sa.Integer(), nullable=False),
        sa.Column("consent_at", sa.DateTime(), nullable=True),
        sa.Column("answers", sa.JSON(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=True),
        sa.Column("plan", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["participant_id"], ["participant.id"]),
        sa.ForeignKeyConstraint(["study_id"], ["study.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("study_id", "participant_id"),
    )
    op.create_index("ix_enrolment_study_id", "enrolment", ["study_id"])
    # SQLite: a plain ADD COLUMN … REFERENCES (a batch copy of `attempt` breaks the rows referring to it)
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE attempt ADD COLUMN study_id VARCHAR(100) REFERENCES study (id)")
    else:
        op.add_column("attempt", sa.Column("study_id", sa.String(100), nullable=True))
        op.create_foreign_key("fk_attempt_study_id_study", "attempt", "study", ["study_id"], ["id"])
    op.add_column("attempt", sa.Column("protocol", sa.String(30), nullable=True))
    op.create_index("ix_attempt_study_id", "attempt", ["study_id"])
    op.add_column("step", sa.Column("note", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("step", "note")
    op.drop_index("ix_attempt_study_id", table_name="attempt")
    if op.get_bind().dialect.name != "sqlite":
        op.drop_constraint("fk_attempt_study_id_study", "attempt", type_="foreignkey")
    op.drop_column("attempt", "protocol")
    op.drop_column("attempt", "study_id")
    op.drop_index("ix_enrolment_study_id", table_name="enrolment")
    op.drop_table("enrolment")
    op.drop_table("study")
