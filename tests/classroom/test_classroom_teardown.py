"""Ending a class as docs/teach/reference.md (*Ending the class*) says, on a password-only PostgreSQL: with
a user's server still connected the database and its owner cannot be dropped; once it is gone,
``class revoke`` per user, ``DROP DATABASE`` and ``DROP ROLE`` of the owner leave no role and no URL
file behind."""

from __future__ import annotations

import psycopg
import pytest
from pgserver import Cluster

from cibench_lab.cli import main

OWNER_PW = "owner-secret"
USERS = ("student1", "teacher")


def refusal(cluster: Cluster, sql: str) -> str:
    with pytest.raises(psycopg.Error) as err:
        cluster.execute(sql)
    return str(err.value).strip().splitlines()[0]


def cibench_roles(cluster: Cluster) -> list[str]:
    with psycopg.connect(cluster.dsn("postgres")) as conn:
        rows = conn.execute("SELECT rolname FROM pg_roles WHERE rolname LIKE 'cibench%' ORDER BY 1")
        return [name for (name,) in rows]


def test_the_class_ends_without_a_role_or_a_url_file_left(tmp_path, capsys):
    with Cluster(password="superuser-secret") as pg:
        pg.execute(f"CREATE ROLE cibench_owner LOGIN CREATEROLE PASSWORD '{OWNER_PW}'")  # as provisioned
        pg.execute("CREATE DATABASE cibench_class OWNER cibench_owner")
        pg.execute("REVOKE ALL ON DATABASE cibench_class FROM PUBLIC")
        owner = pg.url("cibench_class", user="cibench_owner", password=OWNER_PW)
        assert main(["db", "upgrade", "--database-url", owner]) == 0
        files = {user: tmp_path / f"{user}.url" for user in USERS}
        for user, file in files.items():
            grant = ["class", "grant", "--database-url", owner, user, "--member", "demo"]
            assert main([*grant, "--url-file", str(file)]) == 0
        server = file_url(files["student1"])
        with psycopg.connect(server):  # a user's server, still running
            assert refusal(pg, "DROP DATABASE cibench_class") == (
                'database "cibench_class" is being accessed by other users'
            )
        assert refusal(pg, "DROP ROLE cibench_owner") == (
            'role "cibench_owner" cannot be dropped because some objects depend on it'
        )
        for user, file in files.items():
            assert main(["class", "revoke", "--database-url", owner, user, "--url-file", str(file)]) == 0
        pg.execute("DROP DATABASE cibench_class")
        pg.execute("DROP ROLE cibench_owner")
        assert cibench_roles(pg) == ["cibench"]  # the test cluster's superuser alone
        assert not any(file.exists() for file in files.values())
    capsys.readouterr()


def file_url(path) -> str:
    """A URL file's libpq URL (the file holds SQLAlchemy's ``postgresql+psycopg://``)."""
    return path.read_text().strip().replace("postgresql+psycopg://", "postgresql://", 1)
