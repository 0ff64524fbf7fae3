"""The classroom's trust model on a real PostgreSQL: each user's server connects as its own login role
(``cibench-lab class grant``), and row-level security (revision 0005) lets it read and write only what
docs/teach/reference.md says — its own rows; an instructor also reads their classes'; a researcher every
study's; everyone the shared runs. The plays go through the real engine (Attempts), no kernel."""

from __future__ import annotations

import csv
import stat
import uuid

import psycopg
import pytest
from alembic import command
from pgserver import Cluster
from rules_task import EN, attempts_for, printed
from sqlalchemy import insert, select, text, update
from sqlalchemy.exc import DBAPIError, ProgrammingError

from cibench_lab.app.traits import DATABASE_URL_VAR
from cibench_lab.cli import main
from cibench_lab.errors import NotFound
from cibench_lab.grading import TurnOutput
from cibench_lab.play.attempt import Attempts, NewAttempt, participant_id
from cibench_lab.play.oracle import record_reference, references
from cibench_lab.play.settings import PlaySettings
from cibench_lab.store import Store, StoreError, migrate, open_engine
from cibench_lab.store.grants import Membership, grant, role_url
from cibench_lab.store.locks import upgrade_lock
from cibench_lab.store.tables import (
    Attempt,
    ClassMember,
    Enrolment,
    Event,
    OracleReference,
    Participant,
    Run,
    StepRow,
    Study,
    Turn,
)

#: user -> their memberships: two students of c1, one of c2, c1's instructor, a researcher.
PEOPLE = {
    "student1": Membership("student1", member_of=("c1",)),
    "student2": Membership("student2", member_of=("c1",)),
    "student3": Membership("student3", member_of=("c2",)),
    "teacher": Membership("teacher", instructor_of=("c1",)),
    "res": Membership("res", researcher=True),
}
STUDY = "pilot"
POLICY_TABLES = (
    "participant",
    "attempt",
    "step",
    "turn",
    "event",
    "oracle_reference",
    "enrolment",
    "class_member",
)


def owner_database(cluster: Cluster) -> str:
    """A database owned by a role of its own, no superuser (as docs/teach/reference.md makes it): its URL."""
    owner = f"owner_{uuid.uuid4().hex[:8]}"
    cluster.execute(f"CREATE ROLE {owner} LOGIN CREATEROLE PASSWORD 'owner-secret'")
    name = cluster.new_database()
    cluster.execute(f"ALTER DATABASE {name} OWNER TO {owner}")
    cluster.execute(f"REVOKE ALL ON DATABASE {name} FROM PUBLIC")
    cluster.execute(f"GRANT ALL ON SCHEMA public TO {owner}", database=name)
    return cluster.url(name, user=owner, password="owner-secret")


class Class:
    """A class database: upgraded by its owner, one role per person, their plays and a shared run."""

    def __init__(self, cluster: Cluster, root):
        self.cluster = cluster
        self.admin = owner_database(cluster)
        owner = attempts_for(root, url=self.admin)  # the owner migrates (SQLite's auto upgrade aside)
        engine = open_engine(self.admin)
        self.urls = {}
        for user, who in PEOPLE.items():
            role, password = grant(engine, who)
            self.urls[user] = role_url(self.admin, role, password)
        engine.dispose()
        self.library = owner.library
        self.shared = _shared_run(owner)
        owner.store.dispose()
        self.stores: dict[str, Store] = {}
        self.ids = {u: self.play(u) for u in ("student1", "student2", "student3")}
        self.study_attempt = self.play("student2", study=True)

    def attempts(self, user: str) -> Attempts:
        if user not in self.stores:
            self.stores[user] = Store(self.urls[user])
        return Attempts(self.stores[user], self.library, "fair")

    def play(self, user: str, study: bool = False) -> str:
        """A person's attempt, through the engine as their role: a turn and a settle of step 0."""
        attempts = self.attempts(user)
        task = attempts.library.get(EN)
        aid = attempts.create(NewAttempt(task, "e2e", "human", user, PlaySettings(), {}))
        if study:
            with attempts.store.session() as s:
                s.execute(update(Attempt).where(Attempt.id == aid).values(study_id=STUDY))
                s.add(Enrolment(study_id=STUDY, participant_id=participant_id(attempts.store, user)))
        attempts.record_turn(aid, 0, printed(f"alpha beta gamma {user}"))
        attempts.settle(aid, 0, "next")
        attempts.event(aid, "note", {"by": user})
        return aid

    def rows(self, user: str, table, *where) -> list:
        with self.attempts(user).store.session() as s:
            return list(s.scalars(select(table).where(*where)))

    def close(self) -> None:
        for store in self.stores.values():
            store.dispose()


def _shared_run(owner: Attempts) -> str:
    """A headless run's attempt (the owner's, as `cibench-lab run` records it) and the study row."""
    with owner.store.session() as s:
        run = Run(name="bench", player="reference", mode="e2e")
        s.add(run)
        s.add(Study(id=STUDY, title="Pilot", config={}, salt="0" * 32))
        s.flush()
        run_id = run.id
    task = owner.library.get(EN)
    new = NewAttempt(
        task, "e2e", "reference", "player:reference", PlaySettings().for_player(), {}, run_id=run_id
    )
    aid = owner.create(new)
    owner.record_turn(aid, 0, printed("alpha beta gamma"))
    return aid


@pytest.fixture(scope="module")
def pg():
    with Cluster(password="superuser-secret") as cluster:  # every role logs in with its password
        yield cluster


@pytest.fixture(scope="module")
def klass(pg, tmp_path_factory):
    built = Class(pg, tmp_path_factory.mktemp("class"))
    yield built
    built.close()


def attempt_ids(klass: Class, user: str) -> set[str]:
    return {a.id for a in klass.rows(user, Attempt)}


def test_a_student_plays_end_to_end_as_their_role(klass):
    attempts = klass.attempts("student1")
    attempts.store.check_writable()
    listed = attempts.list_for("student1")
    assert [a["id"] for a in listed] == [klass.ids["student1"]] and listed[0]["current_step"] == 1
    assert [t.code for t in attempts.turns(klass.ids["student1"], 0)] == [
        "print('alpha beta gamma student1')"
    ]
    again = klass.play("student1")  # the participant row is got, not inserted twice
    assert attempt_ids(klass, "student1") == {klass.ids["student1"], again, klass.shared}


def test_a_student_reads_only_their_own_rows_and_the_shared_run(klass):
    other = klass.ids["student2"]
    assert attempt_ids(klass, "student3") == {klass.ids["student3"], klass.shared}
    for table in (StepRow, Turn, Event):
        assert klass.rows("student3", table, table.attempt_id == other) == [], table
    names = {p.name for p in klass.rows("student3", Participant)}
    assert names == {"student3", "player:reference"}
    assert klass.rows("student3", Enrolment) == []
    assert [(m.user_name, m.class_name) for m in klass.rows("student3", ClassMember)] == [
        ("student3", ""),
        ("student3", "c2"),
    ]
    with pytest.raises(NotFound):  # another's attempt is not even there
        klass.attempts("student3").load(other)
    assert klass.attempts("student3").list_for("student2") == []


def _refused(klass: Class, user: str, statement) -> None:
    with pytest.raises(DBAPIError, match="row-level security|permission denied"):
        with klass.attempts(user).store.session() as s:
            s.execute(statement)


def test_a_student_cannot_write_for_another(klass):
    mine, other = klass.ids["student1"], klass.ids["student2"]
    with klass.attempts("student2").store.session() as s:
        victim = s.scalar(select(Attempt.participant_id).where(Attempt.id == other))
    row = {"task_id": EN, "task_hash": "x", "mode": "e2e", "player": "human", "n_steps": 4}
    _refused(klass, "student1", insert(Attempt).values(id=uuid.uuid4().hex, participant_id=victim, **row))
    _refused(klass, "student1", insert(Participant).values(name="mallory"))
    turn = {"step": 0, "number": 9, "code": "x", "outputs": [], "grade": {}, "meta": {}}
    _refused(klass, "student1", insert(Turn).values(attempt_id=other, **turn))
    _refused(klass, "student1", insert(Event).values(attempt_id=other, kind="note", detail={}))
    mine_pid = participant_id(klass.attempts("student1").store, "student1")
    run = klass.rows("student1", Attempt, Attempt.id == klass.shared)[0].run_id
    shared = {**row, "participant_id": mine_pid, "run_id": run}
    _refused(klass, "student1", insert(Attempt).values(id=uuid.uuid4().hex, **shared))  # no run writes
    _refused(klass, "student1", update(Attempt).where(Attempt.id == mine).values(run_id=run))
    with klass.attempts("student1").store.session() as s:
        changed = s.execute(update(Attempt).where(Attempt.id == other).values(status="quit"))
        assert changed.rowcount == 0
    assert klass.rows("student2", Attempt, Attempt.id == other)[0].status == "open"


def test_the_instructor_reads_their_class_and_no_other(klass):
    seen = attempt_ids(klass, "teacher")
    assert seen == {klass.ids["student1"], klass.ids["student2"], klass.study_attempt, klass.shared} | (
        attempt_ids(klass, "student1") - {klass.shared}
    )
    assert klass.ids["student3"] not in seen
    codes = {t.code for t in klass.rows("teacher", Turn)}
    assert "print('alpha beta gamma student2')" in codes and "print('alpha beta gamma student3')" not in codes
    assert {e.detail["by"] for e in klass.rows("teacher", Event, Event.kind == "note")} == {
        "student1",
        "student2",
    }
    members = {(m.user_name, m.class_name) for m in klass.rows("teacher", ClassMember)}
    assert ("student1", "c1") in members and ("student3", "c2") not in members
    assert {p.name for p in klass.rows("teacher", Participant)} == {
        "student1",
        "student2",
        "player:reference",
    }
    _refused(klass, "teacher", insert(Event).values(attempt_id=klass.ids["student1"], kind="note", detail={}))


def test_the_researcher_reads_study_rows(klass):
    assert attempt_ids(klass, "res") == {klass.study_attempt, klass.shared}
    assert len(klass.rows("res", Turn, Turn.attempt_id == klass.study_attempt)) == 1
    assert {p.name for p in klass.rows("res", Participant)} == {"student2", "player:reference"}
    assert len(klass.rows("res", Enrolment)) == 1
    assert [s.id for s in klass.rows("res", Study)] == [STUDY]


def test_shared_run_rows_are_read_by_every_role(klass):
    for user in PEOPLE:
        assert klass.rows(user, Attempt, Attempt.id == klass.shared), user
        assert len(klass.rows(user, Turn, Turn.attempt_id == klass.shared)) == 1, user
        assert [r.name for r in klass.rows(user, Run)] == ["bench"], user


def test_a_role_cannot_change_the_schema_or_its_version(klass):
    engine = open_engine(klass.urls["student1"])
    try:
        for sql in ("CREATE TABLE grab (x int)", "UPDATE alembic_version SET version_num = 'x'"):
            with pytest.raises(ProgrammingError, match="permission denied"), engine.begin() as conn:
                conn.execute(text(sql))
        with pytest.raises(ProgrammingError, match="permission denied"), engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO class_member (pg_role, user_name, class_name, role, created_at) "
                    "VALUES ('cibench_u_student1', 'student1', 'c2', 'instructor', now())"
                )
            )
    finally:
        engine.dispose()


def test_a_wrong_password_is_refused(klass):
    wrong = klass.urls["student1"].rsplit("@", 1)
    url = wrong[0].rsplit(":", 1)[0] + ":nope@" + wrong[1]
    engine = open_engine(url)
    try:
        with pytest.raises(DBAPIError, match="password authentication failed"):
            engine.connect().close()
    finally:
        engine.dispose()


def test_the_export_of_a_students_role_holds_their_own_rows(klass, tmp_path):
    out = tmp_path / "csv"
    root = str(klass.library.tasks[EN].path.parents[2])
    assert (
        main(
            [
                "--db",
                klass.urls["student3"],
                "--task-dir",
                root,
                "export",
                "--format",
                "csv",
                "--real-names",
                str(out),
            ]
        )
        == 0
    )
    with (out / "attempts.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["attempt_id"] for r in rows} == {klass.ids["student3"], klass.shared}
    with (out / "participants.csv").open(newline="") as f:
        assert {r["participant"] for r in csv.DictReader(f)} <= {"student3", "player:reference"}


def test_a_students_role_reads_the_study_but_not_its_salt(klass, tmp_path):
    with klass.attempts("student2").store.session() as s:  # the study's row as the engine loads it
        assert s.get(Study, STUDY).title == "Pilot"
        s.add(Study(id="second", title="Second", config={}, salt="1" * 32))  # recorded at first consent
    with pytest.raises(ProgrammingError, match="permission denied"):
        with klass.attempts("student2").store.session() as s:
            s.execute(select(Study.salt))
    with klass.attempts("res").store.session() as s:  # the researcher's comparison needs it
        assert s.scalar(select(Study.salt).where(Study.id == STUDY)) == "0" * 32
    out = tmp_path / "csv"
    root = str(klass.library.tasks[EN].path.parents[2])
    assert (
        main(["--db", klass.urls["student2"], "--task-dir", root, "export", "--format", "csv", str(out)]) == 0
    )
    text = (out / "participants.csv").read_text()
    assert "student2" not in text and "u-" in text  # no pseudonym without the salt: a local id


def _verifier(pg: Cluster, role: str) -> str:
    with psycopg.connect(pg.dsn("postgres")) as conn:  # the superuser reads the verifiers
        return conn.execute("SELECT rolpassword FROM pg_authid WHERE rolname = %s", (role,)).fetchone()[0]


def _grant(capsys, admin: str, *args: str) -> tuple[str, str]:
    capsys.readouterr()
    assert main(["class", "grant", "--database-url", admin, *args]) == 0
    out, err = capsys.readouterr()
    return out, err


def test_class_grant_prints_the_url_once_and_keeps_or_renews_the_password(klass, pg, capsys, tmp_path):
    out, err = _grant(capsys, klass.admin, "newbie", "--member", "c1")
    url = out.strip()
    assert out.count("\n") == 1 and url.startswith("postgresql+psycopg://cibench_u_newbie:")
    password = url.split(":")[2].split("@")[0]
    assert err == "cibench_u_newbie: participant; member of c1\n" and password not in err
    first = _verifier(pg, "cibench_u_newbie")
    assert first.startswith("SCRAM-SHA-256$") and password not in first
    Store(url).dispose()  # its server opens the database at head with it
    out, err = _grant(capsys, klass.admin, "newbie", "--instructor", "c2", "--keep-password")
    assert out == "" and "cibench_u_newbie: password kept" in err
    assert _verifier(pg, "cibench_u_newbie") == first
    engine = open_engine(url)
    with engine.connect() as conn:  # the memberships given replace the earlier ones
        mine = ClassMember.user_name == "newbie"
        rows = conn.execute(select(ClassMember.class_name, ClassMember.role).where(mine)).all()
    engine.dispose()
    assert sorted(rows) == [("", "participant"), ("c2", "instructor")]
    file = tmp_path / "newbie.url"
    out, err = _grant(capsys, klass.admin, "newbie", "--url-file", str(file))
    assert out == "" and f"its URL is in {file} (mode 0600)" in err
    assert stat.S_IMODE(file.stat().st_mode) == 0o600
    renewed = file.read_text().strip()
    assert renewed != url and _verifier(pg, "cibench_u_newbie") != first
    Store(renewed).dispose()
    with pytest.raises(StoreError, match="password authentication failed"):
        Store(url)


def test_class_revoke_drops_the_role_once_and_keeps_its_rows(klass, pg, capsys, tmp_path):
    file = tmp_path / "leaver.url"
    _grant(capsys, klass.admin, "leaver", "--member", "c1", "--url-file", str(file))
    url = file.read_text().strip()
    store = Store(url)
    attempts = Attempts(store, klass.library, "fair")
    aid = attempts.create(NewAttempt(klass.library.get(EN), "e2e", "human", "leaver", PlaySettings(), {}))
    store.dispose()
    capsys.readouterr()
    assert main(["class", "revoke", "--database-url", klass.admin, "leaver", "--url-file", str(file)]) == 0
    out, err = capsys.readouterr()
    assert out == "" and err == (
        "cibench_u_leaver: revoked (its privileges and classes taken away, the role dropped)\n"
        f"cibench_u_leaver: {file} removed\n"
    )
    assert not file.exists()
    with psycopg.connect(pg.dsn("postgres")) as conn:
        assert conn.execute("SELECT 1 FROM pg_roles WHERE rolname = 'cibench_u_leaver'").fetchone() is None
    with pytest.raises(StoreError, match="password authentication failed"):
        Store(url)
    engine = open_engine(klass.admin)  # the owner still reads the attempt; the memberships are gone
    with engine.connect() as conn:
        assert conn.scalar(select(Attempt.id).where(Attempt.id == aid)) == aid
        assert conn.scalar(select(ClassMember.user_name).where(ClassMember.user_name == "leaver")) is None
    engine.dispose()
    assert main(["class", "revoke", "--database-url", klass.admin, "leaver"]) == 0
    assert capsys.readouterr().err == "cibench_u_leaver: no such role, nothing to revoke\n"
    sqlite = f"sqlite:///{tmp_path / 'r.sqlite'}"
    assert main(["class", "revoke", "--database-url", sqlite, "leaver"]) == 2
    assert capsys.readouterr().err.startswith("error: class revoke needs a PostgreSQL database")


def test_class_grant_refusals_are_one_line(klass, pg, capsys, tmp_path):
    sqlite = f"sqlite:///{tmp_path / 'r.sqlite'}"
    cases = [
        (
            (sqlite, "ada"),
            "error: class grant needs a PostgreSQL database (row-level security), not sqlite:///",
        ),
        ((klass.admin, "ada", "--member", "no way"), "error: --member: a class name is 1-63 letters"),
        ((pg.url(pg.new_database()), "ada"), "error: the results database at postgresql+psycopg://"),
        ((klass.admin, "x" * 60), "error: user 'xxxxxxxx"),
    ]
    for args, start in cases:
        capsys.readouterr()
        assert main(["class", "grant", "--database-url", *args]) == 2, args
        out, err = capsys.readouterr()
        assert out == "" and err.startswith(start) and err.count("\n") == 1, err


@pytest.fixture
def jp_server_config(jp_server_config, klass, monkeypatch):
    """A server whose database is student3's role, passed as the hub's spawner does."""
    monkeypatch.setenv(DATABASE_URL_VAR, klass.urls["student3"])
    options = {"database_url": "", "participant": "student3"}
    return {**jp_server_config, "CIBenchLabApp": {**jp_server_config["CIBenchLabApp"], **options}}


async def test_a_server_on_its_roles_url_lists_only_its_own(jp_serverapp, api, klass):
    services = jp_serverapp.web_app.settings["cibench_lab"]
    assert services.store.url == klass.urls["student3"]
    code, rows = await api("GET", "attempts")
    assert code == 200 and [r["id"] for r in rows] == [klass.ids["student3"]]
    code, err = await api("GET", f"attempts/{klass.ids['student2']}")
    assert code == 404 and "unknown attempt" in err["error"]


def test_the_revision_goes_down_and_up_again(pg):
    url = pg.url(pg.new_database())
    Store(url, auto_upgrade=True).dispose()
    engine = open_engine(url)
    secured = text("SELECT relname FROM pg_class WHERE relrowsecurity ORDER BY relname")
    try:
        with engine.connect() as conn:
            assert list(conn.scalars(secured)) == sorted(POLICY_TABLES)
        with upgrade_lock(engine) as conn:
            command.downgrade(migrate.alembic_config(conn), "0003")
        with engine.connect() as conn:
            assert list(conn.scalars(secured)) == []
            assert conn.scalar(text("SELECT to_regclass('class_member')")) is None
            assert conn.scalar(text("SELECT count(*) FROM pg_proc WHERE proname LIKE 'cibench_%'")) == 0
        assert migrate.upgrade(engine) == "0003"
        with engine.connect() as conn:
            assert list(conn.scalars(secured)) == sorted(POLICY_TABLES)
    finally:
        engine.dispose()


def test_oracle_references_are_read_and_written_as_their_attempts_events(klass):
    mine = klass.ids["student1"]
    record_reference(klass.attempts("student1"), mine, 0, TurnOutput("x = 1", [], False, "ok"), "notebook")
    assert sorted(references(klass.attempts("student1"), mine)) == [0]  # its own: written and read
    assert sorted(references(klass.attempts("teacher"), mine)) == [0]  # the instructor of its class reads it
    assert references(klass.attempts("student3"), mine) == {}  # another class's student: not there
    row = {"attempt_id": mine, "step": 1, "outputs": [], "error": False, "status": "ok"}
    _refused(klass, "student2", insert(OracleReference).values(**row))
    _refused(klass, "teacher", insert(OracleReference).values(**row))
