"""The classroom's trust model: class_member, and on PostgreSQL row-level security on the play tables.

Each single-user server connects as its own login role (``cibench-lab class grant``: ``class_member``
says which user a role is and their classes). The policies let a role read and write its own
participant's rows, an instructor also read the rows of the members of the classes they teach, a
researcher read every study's rows; a headless run's rows (``run_id`` set) are shared benchmark data
that every role reads. The table owner (who migrates, the admin's command line) is not restricted.
The functions the policies call run as the owner (SECURITY DEFINER, so a policy may read
``class_member`` and ``participant`` without a policy reading itself) and know the caller as
``session_user``: a server connects as its role, never through SET ROLE. On SQLite only the table.

Revision ID: 0005
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0003"
branch_labels = None
depends_on = None

#: (name, returns, body): the policies' helpers, each evaluated once per query where a policy wraps
#: it in a scalar subquery.
FUNCTIONS = (
    ("cibench_user", "text", "SELECT min(user_name) FROM class_member WHERE pg_role = session_user"),
    ("cibench_own_participant", "integer", "SELECT id FROM participant WHERE name = cibench_user()"),
    (
        "cibench_readable_participants",
        "SETOF integer",
        "SELECT p.id FROM participant p WHERE p.name = cibench_user() OR p.name IN ("
        " SELECT o.user_name FROM class_member t JOIN class_member o ON o.class_name = t.class_name"
        " WHERE t.pg_role = session_user AND t.role = 'instructor' AND t.class_name <> '')",
    ),
    (
        "cibench_is_researcher",
        "boolean",
        "SELECT EXISTS (SELECT 1 FROM class_member WHERE pg_role = session_user AND role = 'researcher')",
    ),
    (
        "cibench_taught_classes",
        "SETOF text",
        "SELECT class_name FROM class_member"
        " WHERE pg_role = session_user AND role = 'instructor' AND class_name <> ''",
    ),
    (
        "cibench_shared_participants",
        "SETOF integer",
        "SELECT participant_id FROM attempt WHERE run_id IS NOT NULL AND participant_id IS NOT NULL",
    ),
    (
        "cibench_study_participants",
        "SETOF integer",
        "SELECT participant_id FROM enrolment UNION"
        " SELECT participant_id FROM attempt WHERE study_id IS NOT NULL AND participant_id IS NOT NULL",
    ),
)

OWN = "(SELECT cibench_own_participant())"
READABLE = "(SELECT cibench_readable_participants())"
RESEARCHER = "(SELECT cibench_is_researcher())"
OWN_ATTEMPTS = f"(SELECT a.id FROM attempt a WHERE a.participant_id = {OWN})"

#: table -> (who reads, who writes: USING and WITH CHECK, the WITH CHECK's extra condition)
POLICIES = {
    "participant": (
        f"name = (SELECT cibench_user()) OR id IN {READABLE}"
        " OR id IN (SELECT cibench_shared_participants())"
        f" OR ({RESEARCHER} AND id IN (SELECT cibench_study_participants()))",
        "name = (SELECT cibench_user())",
        "",
    ),
    "attempt": (
        f"participant_id IN {READABLE} OR run_id IS NOT NULL OR (study_id IS NOT NULL AND {RESEARCHER})",
        f"participant_id = {OWN}",
        " AND run_id IS NULL",  # a role never writes into a shared run
    ),
    "step": ("attempt_id IN (SELECT id FROM attempt)", f"attempt_id IN {OWN_ATTEMPTS}", ""),
    "turn": ("attempt_id IN (SELECT id FROM attempt)", f"attempt_id IN {OWN_ATTEMPTS}", ""),
    "event": ("attempt_id IN (SELECT id FROM attempt)", f"attempt_id IN {OWN_ATTEMPTS}", ""),
    "enrolment": (f"participant_id IN {READABLE} OR {RESEARCHER}", f"participant_id = {OWN}", ""),
    "class_member": ("pg_role = session_user OR class_name IN (SELECT cibench_taught_classes())", "", ""),
}


def upgrade() -> None:
    op.create_table(
        "class_member",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("pg_role", sa.String(63), nullable=False),
        sa.Column("user_name", sa.String(200), nullable=False),
        sa.Column("class_name", sa.String(63), nullable=False),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("pg_role", "class_name", "role"),
    )
    op.create_index("ix_class_member_pg_role", "class_member", ["pg_role"])
    op.create_index("ix_class_member_class_name", "class_member", ["class_name"])
    if op.get_bind().dialect.name == "postgresql":
        _row_security()


def _row_security() -> None:
    bind = op.get_bind()
    schema = bind.dialect.identifier_preparer.quote(str(bind.scalar(sa.text("SELECT current_schema()"))))
    for name, returns, body in FUNCTIONS:
        op.execute(
            f"CREATE FUNCTION {name}() RETURNS {returns} LANGUAGE sql STABLE SECURITY DEFINER"
            f" SET search_path = {schema}, pg_temp AS $$ {body} $$"
        )
    for table, (reads, writes, check) in POLICIES.items():
        op.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
        op.execute(f"CREATE POLICY cibench_read ON {table} FOR SELECT USING ({reads})")
        if writes:
            policy = f"CREATE POLICY cibench_write ON {table} FOR ALL"
            op.execute(f"{policy} USING ({writes}) WITH CHECK ({writes}{check})")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table, (_, writes, _) in POLICIES.items():
            op.execute(f"DROP POLICY cibench_read ON {table}")
            if writes:
                op.execute(f"DROP POLICY cibench_write ON {table}")
            op.execute(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY")
        for name, *_ in reversed(FUNCTIONS):
            op.execute(f"DROP FUNCTION {name}()")
    op.drop_index("ix_class_member_class_name", table_name="class_member")
    op.drop_index("ix_class_member_pg_role", table_name="class_member")
    op.drop_table("class_member")
