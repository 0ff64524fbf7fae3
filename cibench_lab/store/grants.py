"""A class database's login roles: one PostgreSQL role per user, its privileges and its class_member rows.

``cibench-lab class grant`` (run by the database's owner, the admin: the tables' owner with CREATEROLE,
or a superuser) creates or updates the role
``cibench_u_<user>`` with a random password (sent as its SCRAM-SHA-256 verifier, so the server never
sees it in clear), grants it what a single-user server needs on the tables and their sequences, and
replaces its ``class_member`` rows: the row-level security policies of revision 0005 read them to
decide which rows the role reads and writes (docs/teach/reference.md). The role cannot create tables or
read rows the policies do not give it; the owner keeps migrating (``cibench-lab db upgrade``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, delete, insert, text
from sqlalchemy.engine import make_url

from . import migrate
from .errors import StoreError
from .tables import ClassMember

ROLE_PREFIX = "cibench_u_"
NAME_MAX = 63  # bytes of a PostgreSQL identifier
PASSWORD_BYTES = 24

#: Privileges by table: a server plays (its own rows, by the policies), records a study's first
#: enrolment, reads shared runs, its schema version and its own class_member rows.
TABLE_PRIVILEGES = {
    "participant": "SELECT, INSERT",
    "attempt": "SELECT, INSERT, UPDATE, DELETE",
    "step": "SELECT, INSERT, UPDATE, DELETE",
    "turn": "SELECT, INSERT, UPDATE, DELETE",
    "event": "SELECT, INSERT, UPDATE, DELETE",
    "oracle_reference": "SELECT, INSERT, UPDATE, DELETE",
    "enrolment": "SELECT, INSERT, UPDATE, DELETE",
    "study": "INSERT",  # and SELECT of STUDY_COLUMNS (a researcher: of every column, the salt too)
    "run": "SELECT",
    "alembic_version": "SELECT",
    "class_member": "SELECT",
}
#: What of a study every role reads: not its salt, which would let a student compute the export
#: pseudonym of a name they know (a researcher reads it: the comparison's pseudonyms need it).
STUDY_COLUMNS = ("id", "title", "config", "created_at")
#: Tables whose id a server's inserts draw from a sequence.
SEQUENCED = ("participant", "step", "turn", "event", "oracle_reference", "enrolment")


@dataclass(frozen=True)
class Membership:
    """What one user is in the class database: member and instructor of classes, researcher."""

    user: str
    member_of: tuple[str, ...] = ()
    instructor_of: tuple[str, ...] = ()
    researcher: bool = False

    def rows(self, pg_role: str) -> list[dict[str, str]]:
        """The role's class_member rows: its participant row (no class) and one per class and role."""
        pairs = {("", "participant")}
        pairs |= {(c, "participant") for c in self.member_of}
        pairs |= {(c, "instructor") for c in self.instructor_of}
        if self.researcher:
            pairs.add(("", "researcher"))
        return [
            {"pg_role": pg_role, "user_name": self.user, "class_name": c, "role": r} for c, r in sorted(pairs)
        ]


def role_name(user: str) -> str:
    """``cibench_u_<user>``; StoreError when PostgreSQL could not hold it as a role name."""
    name = ROLE_PREFIX + user
    if not user or "\x00" in user or len(name.encode()) > NAME_MAX:
        raise StoreError(
            f"user {user!r}: a database role name {ROLE_PREFIX}<user> holds at most {NAME_MAX} bytes "
            "and no NUL byte"
        )
    return name


def role_url(admin_url: str, role: str, password: str) -> str:
    """The URL a server connects with as ``role``: the admin URL's host, port and database."""
    url = make_url(admin_url).set(drivername="postgresql+psycopg", username=role, password=password)
    return url.render_as_string(hide_password=False)


def grant(engine: Engine, who: Membership, new_password: bool = True) -> tuple[str, str | None]:
    """Create or update ``who``'s role, its privileges and class_member rows, in one transaction.

    Returns the role's name and its new password (None when ``new_password`` is off and the role
    existed: it keeps its password)."""
    check_class_database(engine, "class grant")
    role = role_name(who.user)
    with engine.begin() as conn:
        password = _login_role(conn, role, new_password)
        _privileges(conn, role, who.researcher)
        conn.execute(delete(ClassMember).where(ClassMember.pg_role == role))
        conn.execute(insert(ClassMember), who.rows(role))
    return role, password


def check_class_database(engine: Engine, command: str) -> None:
    """StoreError unless ``engine`` is a PostgreSQL database at this cibench-lab's head revision."""
    if engine.dialect.name != "postgresql":
        raise StoreError(
            f"{command} needs a PostgreSQL database (row-level security), not {migrate.where(engine)}"
        )
    rev, state = migrate.check(engine)
    if rev != migrate.head():
        raise StoreError(
            f"the results database at {migrate.where(engine)} is at revision {state}, not {migrate.head()}: "
            f"run `cibench-lab db upgrade --database-url {migrate.where(engine)}` first"
        )


def revoke(engine: Engine, user: str) -> bool:
    """Take ``user``'s login role away: its class_member rows, every privilege a grant gave it and
    the role itself, in one transaction. False when there was no such role (its rows, if any, are
    deleted all the same): revoking twice is no error. The user's rows stay (the class's record)."""
    check_class_database(engine, "class revoke")
    role = role_name(user)
    with engine.begin() as conn:
        conn.execute(delete(ClassMember).where(ClassMember.pg_role == role))
        if conn.scalar(text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": role}) is None:
            return False
        ident = _quote(conn, role)
        database = _quote(conn, conn.scalar(text("SELECT current_database()")))
        schema = _quote(conn, conn.scalar(text("SELECT current_schema()")))
        conn.execute(text(f"REVOKE ALL ON ALL TABLES IN SCHEMA {schema} FROM {ident}"))
        conn.execute(text(f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA {schema} FROM {ident}"))
        conn.execute(text(f"REVOKE ALL ON SCHEMA {schema} FROM {ident}"))
        conn.execute(text(f"REVOKE ALL ON DATABASE {database} FROM {ident}"))
        conn.execute(text(f"DROP ROLE {ident}"))
    return True


def _quote(conn: Connection, name: str) -> str:
    return conn.dialect.identifier_preparer.quote_identifier(name)


#: What a user's login role must not hold (a role made otherwise is refused, never widened or narrowed).
BEYOND = ("rolsuper", "rolcreatedb", "rolcreaterole", "rolbypassrls", "rolreplication")


def _login_role(conn: Connection, role: str, new_password: bool) -> str | None:
    """The login role, created (a plain ``LOGIN`` role: no attribute beyond it) or kept; its password
    set unless kept. A role of that name with more than a server needs is refused."""
    ident = _quote(conn, role)
    found = conn.execute(text(f"SELECT {', '.join(BEYOND)} FROM pg_roles WHERE rolname = :r"), {"r": role})
    held = found.one_or_none()
    if held is None:
        conn.execute(text(f"CREATE ROLE {ident} LOGIN NOINHERIT"))
    elif any(held):
        extra = ", ".join(name[3:] for name, on in zip(BEYOND, held, strict=True) if on)
        raise StoreError(
            f"role {role} exists with {extra}: not a server's login role; drop it or take that away"
        )
    else:
        conn.execute(text(f"ALTER ROLE {ident} LOGIN"))
    if held is not None and not new_password:
        return None
    password = secrets.token_urlsafe(PASSWORD_BYTES)
    pgconn = conn.connection.dbapi_connection.pgconn  # type: ignore[union-attr]
    verifier = pgconn.encrypt_password(password.encode(), role.encode(), b"scram-sha-256").decode()
    conn.exec_driver_sql(f"ALTER ROLE {ident} PASSWORD '{verifier}'")  # base64, '$' and ':', no quote
    return password


def _privileges(conn: Connection, role: str, researcher: bool) -> None:
    ident = _quote(conn, role)
    database = _quote(conn, conn.scalar(text("SELECT current_database()")))
    schema = _quote(conn, conn.scalar(text("SELECT current_schema()")))
    conn.execute(text(f"GRANT CONNECT ON DATABASE {database} TO {ident}"))
    conn.execute(text(f"GRANT USAGE ON SCHEMA {schema} TO {ident}"))
    for table, privileges in TABLE_PRIVILEGES.items():
        conn.execute(text(f"GRANT {privileges} ON TABLE {_quote(conn, table)} TO {ident}"))
    # a table's REVOKE takes its columns' privileges too: a grant without --researcher narrows
    conn.execute(text(f"REVOKE SELECT ON TABLE study FROM {ident}"))
    columns = "" if researcher else f" ({', '.join(STUDY_COLUMNS)})"
    conn.execute(text(f"GRANT SELECT{columns} ON TABLE study TO {ident}"))
    for table in SEQUENCED:
        sequence = conn.scalar(text("SELECT pg_get_serial_sequence(:t, 'id')"), {"t": table})
        if sequence is not None:  # an identity column needs no grant on its sequence
            conn.execute(text(f"GRANT USAGE ON SEQUENCE {sequence} TO {ident}"))
