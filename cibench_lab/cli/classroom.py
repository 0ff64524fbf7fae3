"""`cibench-lab class grant` and `class revoke`: a user's login role on a class's PostgreSQL database
(docs/teach/reference.md).

Run by the database's owner with the owner's URL, after ``cibench-lab db upgrade``. Creates or updates
``cibench_u_<USER>``, its privileges and its class memberships (``store/grants.py``), and prints the URL
the user's server connects with — once; with ``--url-file`` it is written to a file only its owner
reads instead. The hub's spawner hands it to that user's server as ``CIBENCH_LAB_DATABASE_URL``.
``class revoke`` drops the role again (and its URL file with ``--url-file``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..auth.roles import check_class_name
from ..store.db import open_engine
from ..store.errors import StoreError
from ..store.grants import Membership, grant, revoke, role_name, role_url
from . import add_command


def _membership(args) -> Membership:
    member = tuple(check_class_name(c, "--member") for c in args.member or ())
    instructor = tuple(check_class_name(c, "--instructor") for c in args.instructor or ())
    return Membership(args.user, member, instructor, args.researcher)


def _write_url(path: Path, url: str) -> None:
    """``url`` into ``path``, readable by its owner only (0600, also when it existed)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        os.fchmod(out.fileno(), 0o600)
        out.write(url + "\n")


def _owner_url(args, command: str) -> str:
    url = args.db  # main() resolved --database-url, --db and CIBENCH_LAB_DATABASE_URL
    if not url:
        raise StoreError(f"{command} needs the class database's owner URL: --database-url URL")
    return url


def cmd_revoke(args) -> int:
    role = role_name(args.user)
    engine = open_engine(_owner_url(args, "class revoke"))
    try:
        dropped = revoke(engine, args.user)
    finally:
        engine.dispose()
    if dropped:
        print(f"{role}: revoked (its privileges and classes taken away, the role dropped)", file=sys.stderr)
    else:
        print(f"{role}: no such role, nothing to revoke", file=sys.stderr)
    if args.url_file is not None and args.url_file.exists():
        args.url_file.unlink()
        print(f"{role}: {args.url_file} removed", file=sys.stderr)
    return 0


def cmd_grant(args) -> int:
    url = _owner_url(args, "class grant")
    who = _membership(args)
    engine = open_engine(url)
    try:
        role, password = grant(engine, who, new_password=not args.keep_password)
    finally:
        engine.dispose()
    classes = ", ".join(
        [*(f"member of {c}" for c in who.member_of), *(f"instructor of {c}" for c in who.instructor_of)]
    )
    roles = "participant" + (", researcher" if who.researcher else "") + (f"; {classes}" if classes else "")
    print(f"{role}: {roles}", file=sys.stderr)
    if password is None:
        print(f"{role}: password kept", file=sys.stderr)
    elif args.url_file:
        _write_url(args.url_file, role_url(url, role, password))
        print(f"{role}: its URL is in {args.url_file} (mode 0600)", file=sys.stderr)
    else:
        print(role_url(url, role, password))
    return 0


def register(sub) -> None:
    klass = add_command(sub, "class")
    csub = klass.add_subparsers(dest="sub", required=True)
    g = csub.add_parser(
        "grant",
        help="create or update USER's login role cibench_u_USER, its privileges and its classes (those "
        "given replace its earlier ones); prints the URL its server connects with (a new password each "
        "time unless --keep-password)",
    )
    g.add_argument("user", metavar="USER", help="the user's name (their JupyterHub name)")
    g.add_argument("--database-url", metavar="ADMIN_URL", help="the database owner's URL (default: --db)")
    g.add_argument("--member", action="append", metavar="CLASS", help="a class USER is a member of")
    g.add_argument("--instructor", action="append", metavar="CLASS", help="a class USER teaches")
    g.add_argument("--researcher", action="store_true", help="USER reads every study's rows")
    g.add_argument("--url-file", type=Path, metavar="FILE", help="write the URL here (0600), not to stdout")
    g.add_argument("--keep-password", action="store_true", help="an existing role keeps its password")
    g.set_defaults(fn=cmd_grant)
    r = csub.add_parser(
        "revoke",
        help="drop USER's login role cibench_u_USER, its privileges and its classes (their recorded rows "
        "stay); no such role is no error",
    )
    r.add_argument("user", metavar="USER", help="the user's name (their JupyterHub name)")
    r.add_argument("--database-url", metavar="ADMIN_URL", help="the database owner's URL (default: --db)")
    r.add_argument("--url-file", type=Path, metavar="FILE", help="also remove the URL file grant wrote")
    r.set_defaults(fn=cmd_revoke)
