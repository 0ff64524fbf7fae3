"""Where the notebook's server is, read from the kernel's environment the way Jupyter's own
tools find it — standard library only, so a sandboxed kernel can run it too.

In order (docs/results.md, *Where it runs*):

- in a sandboxed task kernel (``CIBENCH_LAB_SANDBOXED=1``, set by the sandbox:
  ``kernels/sandbox.py``; a task kernel started with the sandbox off has ``0``, an ordinary
  kernel none) nothing is looked for: the widget is unavailable there;
- the server's URL: ``JUPYTER_SERVER_URL`` when set, else ``JUPYTERHUB_SERVICE_URL`` (what
  JupyterHub gives a single-user server, and its kernels inherit), else the running-server
  list (``jpserver-*.json`` in Jupyter's runtime folder, ``JUPYTER_RUNTIME_DIR``): the server
  whose PID is the kernel's ``JPY_PARENT_PID``, or the only one;
- its token: ``JUPYTERHUB_API_TOKEN``, else ``JPY_API_TOKEN`` (JupyterHub's older name), else
  the running server's own token (its ``jpserver`` file), else ``JUPYTER_TOKEN``.

A server named outright (``Results(url=..., token=...)``: another machine's, a proctored study's,
whose own kernels cannot run the widget) takes its token from ``token=`` else ``JUPYTER_TOKEN``,
never a token this kernel's own server gave it. The researcher key of a study's shared seat
(``X-CIBench-Researcher-Key``, docs/studies.md) comes from ``researcher_key=`` else
``CIBENCH_LAB_RESEARCHER_KEY``.

What goes wrong is an :class:`Unavailable` whose text is one sentence for the widget.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

SANDBOX_MARKER = "CIBENCH_LAB_SANDBOXED"  # kernels/sandbox.py's MARKER_VAR
TOKEN_VARS = ("JUPYTERHUB_API_TOKEN", "JPY_API_TOKEN")
KEY_VAR = "CIBENCH_LAB_RESEARCHER_KEY"  # the researcher key, kept out of the notebook
API = "cibench-lab/api/"


class Unavailable(Exception):
    """Why the widget shows no results, in a sentence."""


@dataclass(frozen=True)
class Server:
    url: str  # the server's base URL, ending in "/" (its base_url / the hub's prefix included)
    token: str
    key: str = ""  # the researcher key sent with each request (none: "")

    @property
    def api(self) -> str:
        return self.url + API


def check_not_sandboxed(environ: Mapping[str, str]) -> None:
    """Unavailable in a sandboxed task kernel: it has no network and none of the server's token."""
    if environ.get(SANDBOX_MARKER) == "1":
        raise Unavailable(
            "cibench-lab results are unavailable in a sandboxed task kernel: "
            "open them in an ordinary notebook kernel (e.g. Python 3) of your own server."
        )


def find_server(
    environ: Mapping[str, str] | None = None,
    url: str | None = None,
    token: str | None = None,
    key: str | None = None,
) -> Server:
    """The server this kernel belongs to, with a token that acts as its user — or the server at
    ``url`` with ``token`` (else ``JUPYTER_TOKEN``); ``key``: the researcher key (None: from
    ``CIBENCH_LAB_RESEARCHER_KEY``; "": none)."""
    env = os.environ if environ is None else environ
    check_not_sandboxed(env)
    key = env.get(KEY_VAR, "") if key is None else key
    if url:
        return _named_server(url, token or env.get("JUPYTER_TOKEN", ""), key)
    found = _own_server(env)
    return Server(found.url, found.token, key)


def _named_server(url: str, token: str, key: str) -> Server:
    url = url if url.endswith("/") else url + "/"
    if not token:
        raise Unavailable(f"No token for the server at {url}: pass token=… (or set JUPYTER_TOKEN).")
    return Server(url, token, key)


def _own_server(env: Mapping[str, str]) -> Server:
    """The kernel's own server, from its environment (the module's docstring)."""
    listed = _running_server(env)
    url = env.get("JUPYTER_SERVER_URL") or env.get("JUPYTERHUB_SERVICE_URL") or (listed or {}).get("url")
    if not url:
        raise Unavailable(
            "No Jupyter server found for this kernel: neither JUPYTER_SERVER_URL nor "
            "JUPYTERHUB_SERVICE_URL is set and no running server is listed in "
            f"{runtime_dir(env)}."
        )
    url = url if url.endswith("/") else url + "/"
    token = next((env[k] for k in TOKEN_VARS if env.get(k)), "") or (listed or {}).get("token") or ""
    token = token or env.get("JUPYTER_TOKEN", "")
    if not token:
        raise Unavailable(
            f"No token for the server at {url}: set JUPYTERHUB_API_TOKEN (or JUPYTER_TOKEN) "
            "in the kernel's environment."
        )
    return Server(url, token)


def runtime_dir(environ: Mapping[str, str]) -> Path:
    """Jupyter's runtime folder: ``JUPYTER_RUNTIME_DIR``, else where jupyter_core puts it."""
    if environ.get("JUPYTER_RUNTIME_DIR"):
        return Path(environ["JUPYTER_RUNTIME_DIR"])
    from jupyter_core.paths import jupyter_runtime_dir  # an ordinary kernel has it (ipykernel's)

    return Path(jupyter_runtime_dir())


def _running_server(environ: Mapping[str, str]) -> dict | None:
    """The running server's ``jpserver`` record: the kernel's parent's, else the only one."""
    servers = []
    for path in sorted(runtime_dir(environ).glob("jpserver-*.json")):
        try:
            servers.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue  # a server writing or removing its file right now
    parent = environ.get("JPY_PARENT_PID", "")
    mine = [s for s in servers if str(s.get("pid")) == parent]
    if mine:
        return mine[0]
    return servers[0] if len(servers) == 1 else None
