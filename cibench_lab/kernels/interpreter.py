"""The task kernel's Python: which interpreter task kernels run, and what it holds.

Task kernels run in an environment of their own (``.venv/kernel``, installed by
``scripts/setup`` from ``cibench_lab/kernels/envs/constraints.txt``), separate from the server's:
the server needs today's libraries, CIBench-era task code needs the era's, and
nothing of ``cibench_lab`` is importable in the kernel.  The kernel's Python is
chosen once per process (:func:`kernel_python`):

1. ``CIBENCH_LAB_KERNEL_PYTHON`` (set by ``CIBenchLabApp.kernel_python`` too);
2. else ``<the server's environment>/kernel/bin/python`` when it exists;
3. else the server's own Python (said in one line by :func:`kernel_python_note`).

What that interpreter holds is asked of the interpreter itself, in a subprocess
(:func:`describe`): its prefixes (the sandbox binds them), its version and its
packages (each attempt records them).  It is asked in a kernel's environment
(:func:`probe_env`: the kernelspec's variables and the locale, none of the
server's), and the answer is kept on disk (:func:`cache_dir`, in the Jupyter data
folder, which no sandboxed kernel can write) until the interpreter file, the
folders its packages are found in or its constraints stamp change: every kernel
start asks (the launcher is a new process each time), and asking costs a Python
start-up and a scan of its packages.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

PYTHON_VAR = "CIBENCH_LAB_KERNEL_PYTHON"
KERNEL_ENV = "kernel"  # the kernel environment's folder inside the server's environment
STAMP = "cibench-lab-kernel-env.sha256"  # written by scripts/kernel-env: what the env was installed from
FACTS = ("version", "prefix", "dirs", "packages", "paths", "modules")  # what the probe prints
CACHE_FORMAT = 2  # of a cached answer (a file of another format is asked again)
SYSTEM_PATH = ("/usr/local/bin", "/usr/bin", "/bin")

_PROBE = """\
import json, os, pkgutil, sys
from importlib import metadata
packages = {}
for dist in metadata.distributions():
    name = dist.metadata['Name']
    if name:
        packages[name.lower().replace('_', '-')] = dist.version
real = os.path.realpath(sys.executable)
print(json.dumps({
    'version': sys.version.split()[0],
    'prefix': sys.prefix,
    'dirs': [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             os.path.dirname(os.path.dirname(real))],
    'packages': packages,
    'paths': [p for p in sys.path if os.path.isdir(p)],
    'modules': sorted({m.name for m in pkgutil.iter_modules()} | set(sys.builtin_module_names)),
}))
"""


class KernelPythonError(ValueError):
    """The configured kernel Python cannot be used; the message names it and the setting."""


@dataclass(frozen=True)
class Interpreter:
    """A Python task kernels run, as it describes itself."""

    executable: str
    version: str
    prefix: Path
    dirs: tuple[Path, ...]  # its environment and base installation (the sandbox binds them)
    packages: dict[str, str]  # canonical (lower-case, dashed) distribution name -> version
    #: the top-level names an ``import`` finds (its packages', the standard library's, built-ins)
    modules: frozenset[str] = frozenset()

    def constraints_sha256(self) -> str | None:
        """The sha256 of the constraints file this environment was installed from (its stamp)."""
        try:
            lines = (self.prefix / STAMP).read_text().splitlines()
        except OSError:
            return None
        found = [line.split()[0] for line in lines if line.strip().endswith("constraints.txt")]
        return found[0] if found else None


def kernel_env_python(prefix: str | Path | None = None) -> Path:
    """Where the kernel environment's Python is: inside the server's environment."""
    return Path(prefix or sys.prefix) / KERNEL_ENV / "bin" / "python"


def kernel_python(environ: Mapping[str, str] | None = None, prefix: str | Path | None = None) -> str:
    """The Python task kernels run (see the module's docstring for the order)."""
    configured = (os.environ if environ is None else environ).get(PYTHON_VAR, "")
    if configured:
        path = os.path.abspath(os.path.expanduser(configured))
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise KernelPythonError(
                f"the kernel Python {configured!r} ({PYTHON_VAR} / CIBenchLabApp.kernel_python) "
                "is not an executable file"
            )
        return path
    default = kernel_env_python(prefix)
    if default.is_file() and os.access(default, os.X_OK):
        return str(default)
    return sys.executable


def kernel_python_note(executable: str, prefix: str | Path | None = None) -> str:
    """One line saying which Python task kernels run, and why."""
    if executable != sys.executable:
        return f"task kernels run {executable}"
    return (
        f"task kernels run the server's own Python ({executable}): no kernel environment at "
        f"{kernel_env_python(prefix).parent.parent} (`cibench-lab kernel-env` installs it, "
        f"bash scripts/setup in a clone; or set {PYTHON_VAR})"
    )


def describe(executable: str, cache: Path | None = None) -> Interpreter:
    """Ask ``executable`` what it is, or read its answer from ``cache`` (default :func:`cache_dir`)
    while what the answer depends on is unchanged."""
    folder = cache_dir() if cache is None else cache
    kept = _cached(folder, executable)
    if kept is not None:
        try:
            return _interpreter(executable, kept)
        except (KeyError, TypeError, ValueError):  # a file that only looks like an answer
            pass
    facts = _probe(executable)
    _store(folder, executable, facts)
    return _interpreter(executable, facts)


def _interpreter(executable: str, facts: dict) -> Interpreter:
    return Interpreter(
        executable=executable,
        version=str(facts["version"]),
        prefix=Path(facts["prefix"]),
        dirs=tuple(Path(d) for d in facts["dirs"]),
        packages=dict(facts["packages"]),
        modules=frozenset(facts["modules"]),
    )


def _probe(executable: str) -> dict:
    try:
        done = subprocess.run(
            [executable, "-I", "-c", _PROBE],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env=probe_env(executable),
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise KernelPythonError(f"the kernel Python {executable} does not run: {err}") from None
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise KernelPythonError(f"the kernel Python {executable} does not run: {why}")
    try:
        facts = json.loads(done.stdout)
    except ValueError:
        facts = None
    if not isinstance(facts, dict) or any(k not in facts for k in FACTS):
        raise KernelPythonError(
            f"the kernel Python {executable} did not say what it is: {done.stdout[:200]!r}"
        )
    return facts


def probe_env(executable: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment ``executable`` is asked in: what the kernelspec gives a kernel (its
    variables, the locale) and that interpreter's ``bin`` first on ``PATH``; nothing else of the
    server's environment (``environ``, default this process's), so no secret."""
    from .launch import kernel_env
    from .sandbox import PASS_ENV
    from .spec import KERNEL_ENV

    source = kernel_env(dict(os.environ if environ is None else environ))
    env = {k: v for k, v in source.items() if k in PASS_ENV or k.startswith("LC_")}
    env.update(KERNEL_ENV)
    env["PATH"] = os.pathsep.join([os.path.dirname(executable), *SYSTEM_PATH])
    return env


def cache_dir() -> Path:
    """Where interpreters' answers are kept: the Jupyter data folder (hidden from sandboxes)."""
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "cibench-lab" / "interpreters"


def _cache_file(folder: Path, executable: str) -> Path:
    return folder / f"{hashlib.sha256(executable.encode()).hexdigest()[:32]}.json"


def _stamp(executable: str, prefix: str, paths: Iterable[str]) -> dict[str, list[int] | None]:
    """What an answer depends on, by modification time, size and inode: the interpreter (the
    link and the file it names), the constraints stamp and the folders its packages are in (a
    venv's ``python`` links to the base interpreter, unchanged by an install; the folders change)."""
    watched = [executable, os.path.realpath(executable), os.path.join(prefix, STAMP), *paths]
    return {path: _stat(path) for path in dict.fromkeys(watched)}


def _stat(path: str) -> list[int] | None:
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size, st.st_ino]


def _cached(folder: Path, executable: str) -> dict | None:
    """The answer kept for ``executable`` while still true; None when there is none, it is stale,
    or the file cannot be read or is not one (it is asked again and rewritten)."""
    try:
        kept = json.loads(_cache_file(folder, executable).read_text(encoding="utf-8"))
        facts = kept["facts"]
        fresh = _stamp(executable, facts["prefix"], facts["paths"])
        valid = kept["format"] == CACHE_FORMAT and kept["executable"] == executable
        return facts if valid and kept["stamp"] == fresh else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _store(folder: Path, executable: str, facts: dict) -> None:
    """Keep ``facts`` (atomically: a concurrent reader sees the old file or the new); a folder
    that cannot be written only means asking again next time."""
    kept = {
        "format": CACHE_FORMAT,
        "executable": executable,
        "stamp": _stamp(executable, facts["prefix"], facts["paths"]),
        "facts": facts,
    }
    target = _cache_file(folder, executable)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(kept), encoding="utf-8")
        os.replace(tmp, target)
    except OSError:
        tmp.unlink(missing_ok=True)


def check_kernel_python() -> str | None:
    """None when the kernel Python can be used, else one line saying why not."""
    try:
        describe(kernel_python())
    except KernelPythonError as err:
        return str(err)
    return None
