"""The server's secrets out of a kernel's reach: the kernelspec that sandboxes it, the results database."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from cibench_lab.kernels.spec import KERNEL_NAME, PROVISIONER, kernelspec_dict

pytestmark = pytest.mark.fast


@pytest.fixture
def shadow(tmp_path, monkeypatch) -> Path:
    """A folder on ``JUPYTER_PATH``, which Jupyter searches for kernelspecs before the one the server
    writes its own in."""
    folder = tmp_path / "jupyter-path"
    monkeypatch.setenv("JUPYTER_PATH", str(folder))
    return folder


def shadow_kernelspec(folder: Path) -> Path:
    """A `cibench-lab` kernelspec without the sandbox's provisioner in ``folder``."""
    spec = kernelspec_dict()
    del spec["metadata"]["kernel_provisioner"]
    path = folder / "kernels" / KERNEL_NAME / "kernel.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(spec))
    return path


def test_the_server_refuses_to_start_on_a_kernelspec_without_the_sandbox(shadow, caplog):
    """What ``initialize_settings`` checks once it wrote its own kernelspec (the shadow is found first)."""
    from jupyter_client.kernelspec import KernelSpecManager

    from cibench_lab.kernels.specguard import kernelspec_problem

    path = shadow_kernelspec(shadow)
    with pytest.raises(SystemExit):
        quiet_app()._exit_on(kernelspec_problem(KernelSpecManager()))
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.CRITICAL]
    assert len(lines) == 1 and str(path) in lines[0] and PROVISIONER in lines[0], lines


def quiet_app():
    from cibench_lab.app import CIBenchLabApp

    app = CIBenchLabApp()
    app.log = logging.getLogger("cibench-lab-test")  # not the app's handler of another test's stream
    return app


async def test_no_kernel_starts_from_a_kernelspec_rewritten_while_the_server_runs(
    shadow, jp_fetch, jp_serverapp
):
    path = shadow_kernelspec(shadow)
    body = json.dumps({"name": KERNEL_NAME})
    resp = await jp_fetch("api", "kernels", method="POST", body=body, raise_error=False)
    assert resp.code == 403, resp.code
    message = json.loads(resp.body)["message"]
    assert str(path) in message and "\n" not in message
    session = {"path": "x.ipynb", "type": "notebook", "name": "x.ipynb", "kernel": {"name": KERNEL_NAME}}
    resp = await jp_fetch("api", "sessions", method="POST", body=json.dumps(session), raise_error=False)
    assert resp.code in (403, 501), resp.code
    assert jp_serverapp.kernel_manager.list_kernel_ids() == []


def test_the_server_refuses_a_database_under_its_root(tmp_path, caplog):
    from cibench_lab.store import Store

    root = tmp_path / "root"
    (root / "data").mkdir(parents=True)
    store = Store(f"sqlite:///{root / 'data' / 'results.sqlite'}")
    with pytest.raises(SystemExit):
        quiet_app()._check_database_place(store, root, False)
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.CRITICAL]
    assert len(lines) == 1 and "results database" in lines[0] and str(root) in lines[0], lines
    outside = Store(f"sqlite:///{tmp_path / 'results.sqlite'}")
    quiet_app()._check_database_place(outside, root, False)
    outside.dispose()
    # the default place seen from a server started in the home folder: a hidden folder, which Jupyter's
    # file routes do not serve unless the server is told to (ContentsManager.allow_hidden)
    (root / ".local" / "share").mkdir(parents=True)
    hidden = Store(f"sqlite:///{root / '.local' / 'share' / 'results.sqlite'}")
    quiet_app()._check_database_place(hidden, root, False)
    with pytest.raises(SystemExit):
        quiet_app()._check_database_place(hidden, root, True)
    hidden.dispose()
