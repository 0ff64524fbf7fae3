"""Start a task kernel without the server's secrets in its environment.

Kernels inherit the environment of the process that starts them, and a task kernel
runs whatever a person or a model writes — so an API key the server holds for a
model or a judge would be one ``os.environ`` away.  The ``cibench-lab`` kernelspec
runs this module, which drops every secret-looking variable (and the ones the
server names in ``CIBENCH_LAB_HIDE_ENV``) and then execs ipykernel with what is
left (``execve``: even ``/proc/self/environ`` of the kernel never held them).
"""

from __future__ import annotations

import os
import re
import sys

HIDE_VAR = "CIBENCH_LAB_HIDE_ENV"
SECRET = re.compile(r"(API_?KEY|(^|_)KEY$|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL)", re.IGNORECASE)


def kernel_env(environ: dict[str, str]) -> dict[str, str]:
    """``environ`` without secrets: names that look like one, and those listed in HIDE_VAR."""
    listed = {n.strip() for n in environ.get(HIDE_VAR, "").split(",") if n.strip()}
    return {k: v for k, v in environ.items() if k not in listed and k != HIDE_VAR and not SECRET.search(k)}


def main() -> None:
    argv = [sys.executable, "-m", "ipykernel_launcher", *sys.argv[1:]]
    os.execve(sys.executable, argv, kernel_env(dict(os.environ)))


if __name__ == "__main__":
    main()
