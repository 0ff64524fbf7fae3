"""The proctored preset: no terminals, no kernelspec but the sandboxed one."""

from __future__ import annotations

import json

import pytest
from conftest import PROBE_ID

from cibench_lab.kernels.sandbox import ENABLED_VAR, NETWORK_VAR
from cibench_lab.kernels.spec import KERNEL_NAME


@pytest.fixture
def jp_server_config(jp_server_config):
    config = json.loads(json.dumps(jp_server_config))
    config["ServerApp"]["jpserver_extensions"]["jupyter_server_terminals"] = True
    config["CIBenchLabApp"]["proctored"] = True
    return config


@pytest.fixture(autouse=True)
def _restore_sandbox_setting(monkeypatch):
    for var in (ENABLED_VAR, NETWORK_VAR):
        monkeypatch.setenv(var, "")


async def _post(jp_fetch, *path, body):
    resp = await jp_fetch(*path, method="POST", body=json.dumps(body), raise_error=False)
    return resp.code


async def test_only_the_sandboxed_kernel_starts_and_terminals_are_off(jp_fetch, jp_serverapp, api):
    assert not jp_serverapp.terminals_enabled
    specs = json.loads((await jp_fetch("api", "kernelspecs")).body)
    assert list(specs["kernelspecs"]) == [KERNEL_NAME] and specs["default"] == KERNEL_NAME
    session = {"path": "x.ipynb", "type": "notebook", "name": "x.ipynb", "kernel": {"name": "python3"}}
    assert await _post(jp_fetch, "api", "sessions", body=session) == 501  # "kernel not found"
    assert await _post(jp_fetch, "api", "kernels", body={"name": "python3"}) == 403
    assert await _post(jp_fetch, "api", "terminals", body={}) == 404
    assert not jp_serverapp.kernel_manager.list_kernel_ids()
    code, body = await api("POST", "attempts", {"task_id": PROBE_ID, "mode": "e2e"})
    assert code == 201, body
    assert body["sandbox"] == {"enabled": True, "network": False, "tool": "bubblewrap"}
