"""Links in an attempt folder: the server never follows one, on any route that reads or writes files.

A kernel's attempt folder is bound read-write into its sandbox, so whatever is in it — a symbolic link to
``/``, to ``/proc/self/environ``, to a task, to the database's folder, to the Jupyter runtime folder or the
kernelspec, a hard link — is the kernel's work, and hostile. The links here are made by the test process in an
attempt folder (as a kernel would, or as an attempt folder from before the server refused them holds them);
``test_links_kernel.py`` has a real sandboxed kernel make one.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from urllib.parse import quote

import pytest
from conftest import SECRET_CODE

pytestmark = pytest.mark.fast

ATTEMPT = "cibench-attempts/probe-0123abcd"
REFUSED = (403, 404)


class Scene:
    """An attempt folder holding one link of each kind, and the files they lead to."""

    def __init__(self, serverapp, root: Path, tmp_path: Path):
        self.folder = root / ATTEMPT
        self.folder.mkdir(parents=True)
        (self.folder / "own.txt").write_text("the attempt's own file\n")
        self.secret_dir = tmp_path / "secret"  # stands for a folder of the server's (the database's)
        self.secret_dir.mkdir()
        (self.secret_dir / "answers.txt").write_text("EVERY PARTICIPANT'S ANSWERS\n")
        services = serverapp.web_app.settings["cibench_lab"]
        task = services.library.get("cibench_template/pandas/leak_probe")
        spec = serverapp.kernel_spec_manager.get_kernel_spec("cibench-lab")
        self.db = Path(services.store.engine.url.database)
        other = root / "cibench-attempts" / "other-4567cdef"  # another attempt's folder, inside the root
        other.mkdir()
        (other / "notes.txt").write_text("EVERY PARTICIPANT'S NOTES\n")
        self.links = {
            "root": "/",
            "env.txt": "/proc/self/environ",
            "task.ipynb": str(task.path),
            "dbdir": str(self.db.parent),
            "secret": str(self.secret_dir),
            "runtime": serverapp.runtime_dir,
            "kernelspec": spec.resource_dir,
            "sibling": str(other),
        }
        for name, target in self.links.items():
            os.symlink(target, self.folder / name)
        (self.folder / "sub").mkdir()
        os.symlink(str(self.secret_dir / "answers.txt"), self.folder / "sub" / "answers.txt")
        os.link(self.db, self.folder / "hard.sqlite")  # a hard link: same file, another name
        self.task_text = task.path.read_text()

    def reads(self) -> list[str]:
        """Paths (under the attempt folder) whose contents a link would give away."""
        runtime = next(p.name for p in Path(self.links["runtime"]).iterdir() if p.suffix == ".json")
        return [
            "root",
            "root/etc/passwd",
            "env.txt",
            "task.ipynb",
            "dbdir",
            f"dbdir/{self.db.name}",
            "secret/answers.txt",
            "sub/answers.txt",
            "runtime",
            f"runtime/{runtime}",
            "kernelspec/kernel.json",
            "hard.sqlite",
            "sibling/notes.txt",
        ]


@pytest.fixture
def scene(jp_serverapp, jp_root_dir, tmp_path) -> Scene:
    return Scene(jp_serverapp, Path(jp_root_dir), tmp_path)


async def fetch(jp_fetch, method: str, *parts: str, body: dict | None = None):
    kwargs: dict = {"method": method, "raise_error": False}
    if body is not None or method in ("PUT", "POST", "PATCH"):
        kwargs["body"] = json.dumps(body or {})
    return await jp_fetch(*parts, **kwargs)


def one_line(resp) -> str:
    """A refusal's message: one line, no traceback."""
    message = json.loads(resp.body).get("message", "") if resp.body.startswith(b"{") else ""
    assert "Traceback" not in resp.body.decode("utf-8", "replace")
    assert "\n" not in message.strip()
    return message


def leaked(resp, *secrets: str) -> bool:
    text = resp.body.decode("utf-8", "replace")
    return any(s in text for s in secrets)


SECRETS = ("root:x:0:0", "PATH=", SECRET_CODE, "EVERY PARTICIPANT", "SQLite format", '"key"', "argv")


async def test_no_read_route_follows_a_link(jp_fetch, scene):
    for rel in scene.reads():
        path = f"{ATTEMPT}/{rel}"
        for parts in (("api", "contents", path), ("files", path), ("api", "contents", path, "checkpoints")):
            resp = await fetch(jp_fetch, "GET", *parts)
            assert resp.code in REFUSED, (parts, resp.code)
            assert not leaked(resp, *SECRETS), parts
            one_line(resp)
    resp = await fetch(jp_fetch, "GET", "nbconvert", "html", f"{ATTEMPT}/task.ipynb")
    assert resp.code in REFUSED and not leaked(resp, SECRET_CODE), resp.code
    resp = await fetch(jp_fetch, "GET", "nbconvert", "script", f"{ATTEMPT}/task.ipynb", "?download=true")
    assert resp.code in REFUSED and not leaked(resp, SECRET_CODE), resp.code


async def test_the_listing_shows_no_link_and_the_attempts_own_files_are_served(jp_fetch, scene):
    resp = await fetch(jp_fetch, "GET", "api", "contents", ATTEMPT)
    assert resp.code == 200
    names = {c["name"] for c in json.loads(resp.body)["content"]}
    assert names == {"own.txt", "sub"}, names
    sub = json.loads((await fetch(jp_fetch, "GET", "api", "contents", f"{ATTEMPT}/sub")).body)
    assert sub["content"] == []
    for parts in (("api", "contents", f"{ATTEMPT}/own.txt"), ("files", f"{ATTEMPT}/own.txt")):
        resp = await fetch(jp_fetch, "GET", *parts)
        assert resp.code == 200 and b"the attempt's own file" in resp.body, parts


async def test_no_write_route_follows_a_link(jp_fetch, scene):
    text = {"type": "file", "format": "text", "content": "WRITTEN THROUGH A LINK"}
    for rel in ("secret/new.txt", "secret/answers.txt", "sub/answers.txt", "task.ipynb"):
        resp = await fetch(jp_fetch, "PUT", "api", "contents", f"{ATTEMPT}/{rel}", body=text)
        assert resp.code in REFUSED, (rel, resp.code)
        one_line(resp)
    folder = {"type": "directory"}
    resp = await fetch(jp_fetch, "PUT", "api", "contents", f"{ATTEMPT}/secret/d", body=folder)
    assert resp.code in REFUSED
    for rel in ("secret", "task.ipynb", "sub/answers.txt"):
        renamed = {"path": f"{ATTEMPT}/moved-{rel.replace('/', '-')}"}
        resp = await fetch(jp_fetch, "PATCH", "api", "contents", f"{ATTEMPT}/{rel}", body=renamed)
        assert resp.code in REFUSED
        assert (await fetch(jp_fetch, "DELETE", "api", "contents", f"{ATTEMPT}/{rel}")).code in REFUSED
    for rel in ("task.ipynb", "sub/answers.txt", "hard.sqlite"):
        copy = {"copy_from": f"{ATTEMPT}/{rel}"}
        assert (await fetch(jp_fetch, "POST", "api", "contents", ATTEMPT, body=copy)).code in REFUSED, rel
    into = {"copy_from": f"{ATTEMPT}/own.txt"}
    assert (await fetch(jp_fetch, "POST", "api", "contents", f"{ATTEMPT}/secret", body=into)).code in REFUSED
    assert sorted(p.name for p in scene.secret_dir.iterdir()) == ["answers.txt"]
    assert (scene.secret_dir / "answers.txt").read_text() == "EVERY PARTICIPANT'S ANSWERS\n"
    assert Path(scene.links["task.ipynb"]).read_text() == scene.task_text
    assert sorted(p.name for p in scene.folder.iterdir()) == sorted(
        [*scene.links, "own.txt", "sub", "hard.sqlite"]
    )


async def test_checkpoints_do_not_go_through_a_link(jp_fetch, scene):
    """A notebook of the attempt's own whose ``.ipynb_checkpoints`` is a link: a checkpoint is not written
    into the link's folder, and restoring one does not copy the link's target into the notebook."""
    nb = {"type": "notebook", "content": {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}}
    assert (await fetch(jp_fetch, "PUT", "api", "contents", f"{ATTEMPT}/mine.ipynb", body=nb)).code == 201
    shutil.rmtree(scene.folder / ".ipynb_checkpoints", ignore_errors=True)  # made by the save
    os.symlink(str(scene.secret_dir), scene.folder / ".ipynb_checkpoints")
    resp = await fetch(jp_fetch, "POST", "api", "contents", f"{ATTEMPT}/mine.ipynb", "checkpoints")
    assert resp.code in REFUSED, resp.code
    one_line(resp)
    os.symlink(str(scene.db), scene.secret_dir / "mine-checkpoint.ipynb")
    restore = ("api", "contents", f"{ATTEMPT}/mine.ipynb", "checkpoints", "checkpoint")
    resp = await fetch(jp_fetch, "POST", *restore)
    assert resp.code in REFUSED, resp.code
    assert b"SQLite" not in (scene.folder / "mine.ipynb").read_bytes()
    assert sorted(p.name for p in scene.secret_dir.iterdir()) == ["answers.txt", "mine-checkpoint.ipynb"]


async def test_a_link_elsewhere_in_the_root_into_a_link_of_an_attempt_is_not_followed(
    jp_fetch, scene, jp_root_dir
):
    os.symlink(str(scene.folder / "secret"), Path(jp_root_dir) / "shortcut")
    resp = await fetch(jp_fetch, "GET", "api", "contents", "shortcut/answers.txt")
    assert resp.code in REFUSED and not leaked(resp, "EVERY PARTICIPANT")
    resp = await fetch(jp_fetch, "GET", "files", quote("shortcut/answers.txt"))
    assert resp.code in REFUSED and not leaked(resp, "EVERY PARTICIPANT")
