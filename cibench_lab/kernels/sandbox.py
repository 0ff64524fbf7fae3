"""The task kernel's sandbox: bubblewrap, built from a :class:`SandboxPolicy`.

A sandboxed kernel sees its own Python environment read-only (the kernel
environment of :mod:`.interpreter` and the base installation it was made from,
as that interpreter reports them; not the server's environment), its attempt folder
read-write at :data:`ATTEMPT_DIR` (the same path for every player), its own
connection folder, a private ``/tmp`` and ``HOME``, and the system's ``/usr``;
not the task directories, the results database, the Jupyter data and runtime
folders, other attempts, the repository or the ``cibench_lab`` package.  It has
its own PID namespace (the server's processes are invisible, and everything the
kernel starts dies with it) and no network unless the policy allows it.

:func:`bwrap_argv` is the one place the bubblewrap command is built;
:func:`check_sandbox` says in one line why the sandbox cannot start.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from .fonts import font_set_digest
from .interpreter import Interpreter, KernelPythonError, describe, kernel_python
from .limits import LIMITS_VAR, KernelLimits
from .seccomp import SeccompError, filter_fd

ATTEMPT_DIR = "/work/attempt"
HOME_DIR = "/home/player"
MPL_DIR = f"{HOME_DIR}/.config/matplotlib"
ENABLED_VAR = "CIBENCH_LAB_SANDBOX"
NETWORK_VAR = "CIBENCH_LAB_KERNEL_NETWORK"
#: "1" in every sandboxed kernel, "0" in a task kernel started with the sandbox off
#: (kernel_launch.unsandboxed_env): how code inside knows whether it is in a task kernel's sandbox
#: (cibench_lab.widgets says it is unavailable there; the name is repeated in widgets/where.py).
MARKER_VAR = "CIBENCH_LAB_SANDBOXED"
OPT_OUT = "--CIBenchLabApp.kernel_sandbox=False (lab) or `cibench-lab run --no-sandbox`"

#: System folders bound read-only (a merged-/usr symlink is recreated as a symlink).
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: Files of /etc the libraries read (the loader cache, users, locale, time zone).
ETC = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/localtime",
    "/etc/alternatives",
    "/etc/fonts",
    "/etc/mime.types",
)
#: Added when the network is allowed: name resolution and certificates.
ETC_NETWORK = ("/etc/resolv.conf", "/etc/hosts", "/etc/host.conf", "/etc/gai.conf", "/etc/ssl")
#: What a kernel may inherit from the environment it is started with (besides KERNEL_ENV).
#: Passed through as well: the locale, and ``PYTEST_CURRENT_TEST``, which keeps ipykernel's
#: low-level output capture off under pytest exactly as for an unsandboxed kernel (its fd
#: watcher races pytest's own capture and can add stray newlines to a turn's output); and
#: ``OPENBLAS_CORETYPE``, which pins the CPU kernels OpenBLAS picks at load time (bench/verify_all.py
#: verifies the tasks under a second core type with it; no secret, as the thread counts are none).
PASS_ENV = ("LANG", "LANGUAGE", "TZ", "PYTEST_CURRENT_TEST", "OPENBLAS_CORETYPE")


@dataclass(frozen=True)
class SandboxSetting:
    """The server's (or the CLI's) choice, passed to the kernels it starts."""

    enabled: bool = True
    network: bool = False
    limits: KernelLimits = field(default_factory=KernelLimits)

    def as_dict(self) -> dict:
        tool = "bubblewrap" if self.enabled else None
        return {"enabled": self.enabled, "network": self.network, "tool": tool}


def configure(setting: SandboxSetting) -> None:
    """Make ``setting`` the one this process's kernels start with."""
    os.environ[ENABLED_VAR] = "1" if setting.enabled else "0"
    os.environ[NETWORK_VAR] = "1" if setting.network else "0"
    os.environ[LIMITS_VAR] = setting.limits.flag()


def current() -> SandboxSetting:
    """The setting kernels of this process start with (sandboxed, no network, unless configured)."""
    return SandboxSetting(
        enabled=os.environ.get(ENABLED_VAR, "1") != "0",
        network=os.environ.get(NETWORK_VAR, "0") == "1",
        limits=KernelLimits.parse(os.environ.get(LIMITS_VAR, "")),
    )


@dataclass(frozen=True)
class SandboxPolicy:
    """What one sandboxed kernel sees."""

    attempt: Path | None  # bound read-write at ATTEMPT_DIR, the kernel's working directory (None: empty)
    runtime: Path | None  # the kernel's connection file and ipc sockets, bound read-write in place
    python: tuple[Path, ...]  # the kernel's Python environment, read-only
    network: bool = False
    mpl_cache: Path | None = None  # prebuilt matplotlib font cache (its files bound read-only)
    data: tuple[Path, ...] = ()  # read-only data folders (NLTK_DATA), bound in place
    hidden: tuple[Path, ...] = field(default=())  # folders inside a bound one that stay empty
    limits: KernelLimits = field(default_factory=KernelLimits)  # /tmp's size here; the rest: .limits
    seccomp_fd: int | None = None  # the system-call filter (.seccomp), read by bwrap at this fd


def bwrap() -> str | None:
    return shutil.which("bwrap") or next((p for p in ("/usr/bin/bwrap",) if os.access(p, os.X_OK)), None)


def bwrap_argv(policy: SandboxPolicy, command: list[str]) -> list[str]:
    """The bubblewrap command that runs ``command`` under ``policy``."""
    argv = [bwrap() or "bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if policy.network:
        argv.append("--share-net")
    size = policy.limits.tmpfs_size()  # each writable tmpfs: /tmp, /dev/shm, HOME (an empty attempt)
    argv += ["--hostname", "cibench", "--proc", "/proc", "--dev", "/dev", *size, "--tmpfs", "/tmp"]
    argv += [*size, "--tmpfs", "/dev/shm"]
    argv += _system_binds(policy.network)
    for path in (*policy.python, *policy.data):
        argv += ["--ro-bind", str(path), str(path)]
    for path in policy.hidden:
        argv += ["--tmpfs", str(path), "--remount-ro", str(path)]
    argv += [*size, "--tmpfs", HOME_DIR, "--dir", MPL_DIR]
    argv += _mpl_binds(policy.mpl_cache)
    if policy.runtime is not None:
        argv += ["--bind", str(policy.runtime), str(policy.runtime)]
    attempt = ["--bind", str(policy.attempt)] if policy.attempt is not None else [*size, "--tmpfs"]
    argv += [*attempt, ATTEMPT_DIR, "--chdir", ATTEMPT_DIR]
    if policy.seccomp_fd is not None:
        argv += ["--seccomp", str(policy.seccomp_fd)]
    return [*argv, "--", *command]


def _system_binds(network: bool) -> list[str]:
    argv: list[str] = []
    for path in SYSTEM:
        if os.path.islink(path):
            argv += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            argv += ["--ro-bind", path, path]
    for path in (*ETC, *(ETC_NETWORK if network else ())):
        argv += ["--ro-bind-try", path, path]
    return [*argv, "--ro-bind-try", "/sys/devices/system/cpu", "/sys/devices/system/cpu"]


def _mpl_binds(cache: Path | None) -> list[str]:
    if cache is None or not cache.is_dir():
        return []
    argv: list[str] = []
    for file in sorted(cache.glob("fontlist-*.json")):
        argv += ["--ro-bind", str(file), f"{MPL_DIR}/{file.name}"]
    return argv


def sandbox_env(environ: dict[str, str], policy: SandboxPolicy, kernel_env: dict[str, str]) -> dict[str, str]:
    """The whole environment of a sandboxed kernel (and of bwrap itself, its PID 1).

    Only the kernelspec's variables, the locale and what the sandbox sets: nothing
    else of the server's environment reaches the kernel.
    """
    env = {k: v for k, v in environ.items() if k in kernel_env or k in PASS_ENV or k.startswith("LC_")}
    python_bins = [str(p / "bin") for p in policy.python]
    env.update(
        PATH=":".join([*python_bins, "/usr/local/bin", "/usr/bin", "/bin"]),
        HOME=HOME_DIR,
        MPLCONFIGDIR=MPL_DIR,
        PWD=ATTEMPT_DIR,
        USER="player",
        **{MARKER_VAR: "1"},
    )
    if policy.data:
        env["NLTK_DATA"] = os.pathsep.join(str(p) for p in policy.data)
    return env


def check_sandbox() -> str | None:
    """None when bubblewrap can start a sandbox with its system-call filter here, else one line
    saying what is missing."""
    exe = bwrap()
    if exe is None:
        return f"the kernel sandbox needs bubblewrap: apt-get install bubblewrap (or opt out: {OPT_OUT})"
    try:
        fd = filter_fd()
    except SeccompError as err:
        return f"the kernel sandbox's system-call filter cannot be set up: {err}; opt out: {OPT_OUT}"
    argv = [exe, "--unshare-all", "--ro-bind", "/", "/", "--seccomp", str(fd), "true"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30, pass_fds=(fd,))
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"the kernel sandbox cannot start ({exe}: {err}); opt out: {OPT_OUT}"
    finally:
        os.close(fd)
    if done.returncode == 0:
        return None
    why = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
    off = "namespace" in why or "Operation not permitted" in why
    hint = " (user namespaces are off: sysctl kernel.unprivileged_userns_clone=1)" if off else ""
    return f"the kernel sandbox cannot start: {why}{hint}; opt out: {OPT_OUT}"


def attempt_folder(cwd: Path, attempts_root: str) -> Path | None:
    """The folder a kernel started in ``cwd`` may see: ``cwd``, or nothing (None) when the lab
    names its attempts folder and ``cwd`` is not inside it (a notebook elsewhere in the root)."""
    if not attempts_root:
        return cwd
    root, cwd = Path(attempts_root).resolve(), cwd.resolve()
    return cwd if cwd != root and cwd.is_relative_to(root) else None


def kernel_policy(
    attempt: Path | None, runtime: Path | None, network: bool, python: Interpreter
) -> SandboxPolicy:
    """The policy of a kernel of ``python`` started in ``attempt``, connected through ``runtime``."""
    dirs = python_dirs(python)
    return SandboxPolicy(
        attempt=attempt,
        runtime=runtime,
        python=dirs,
        network=network,
        mpl_cache=mpl_cache_dir(python),
        data=nltk_data(),
        hidden=hidden_dirs(dirs),
    )


def python_dirs(python: Interpreter) -> tuple[Path, ...]:
    """``python``'s environment and its base installation, as it reports them (outermost first,
    no duplicates, none under /usr, which is bound anyway).  For the kernel environment that is
    ``.venv/kernel`` and the base interpreter's prefix, not the server's environment."""
    found = {Path(p).resolve() for p in python.dirs}
    ordered = sorted(found, key=lambda p: len(p.parts))
    outer: list[Path] = []
    for path in ordered:
        if not any(path.is_relative_to(o) for o in outer) and not path.is_relative_to("/usr"):
            outer.append(path)
    return tuple(outer)


def hidden_dirs(bound: tuple[Path, ...]) -> tuple[Path, ...]:
    """Folders of the server's that lie inside a bound one: this package and the Jupyter dirs."""
    from jupyter_core.paths import jupyter_data_dir, jupyter_runtime_dir

    package = Path(__file__).resolve().parents[1]
    candidates = (package, Path(jupyter_data_dir()).resolve(), Path(jupyter_runtime_dir()).resolve())
    roots = (*bound, Path("/usr"))
    return tuple(p for p in candidates if p.is_dir() and any(p.is_relative_to(r) for r in roots))


def nltk_data() -> tuple[Path, ...]:
    """The server's NLTK_DATA folders that exist, bound read-only in place."""
    paths = [Path(p) for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p]
    return tuple(p.resolve() for p in paths if p.is_dir())


def mpl_cache_dir(python: Interpreter) -> Path | None:
    """Where ``python``'s prebuilt matplotlib font cache is (or goes): beside its environment
    when that is writable, else in the user's cache.  None: no matplotlib there.  One per
    matplotlib version and font set (:func:`.fonts.font_set_digest`): a font installed or
    removed gets a new cache, never the stale one."""
    version = python.packages.get("matplotlib")
    if version is None:
        return None
    user = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cibench-lab"
    name = f"matplotlib-{version}-fonts-{font_set_digest()}"
    dirs = [root / name for root in (python.prefix / "share" / "cibench-lab", user)]
    built = [d for d in dirs if any(d.glob("fontlist-*.json"))]
    return (built or [d for d in dirs if _writable(d)] or [dirs[-1]])[0]


def _writable(path: Path) -> bool:
    while not path.exists():
        path = path.parent
    return os.access(path, os.W_OK)


def prepare_mpl_cache(python: Interpreter) -> Path | None:
    """Build ``python``'s font cache once, in a sandbox (so its font paths are the kernel's)."""
    target = mpl_cache_dir(python)
    if target is None or any(target.glob("fontlist-*.json")):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        policy = replace(kernel_policy(Path(tmp), None, False, python), mpl_cache=None)
        env = {**sandbox_env(dict(os.environ), policy, {}), "MPLCONFIGDIR": ATTEMPT_DIR}
        command = [python.executable, "-c", "import matplotlib.font_manager"]
        subprocess.run(bwrap_argv(policy, command), env=env, capture_output=True, timeout=300, check=False)
        if any(Path(tmp).glob("fontlist-*.json")) and not target.exists():
            os.chmod(tmp, 0o755)
            os.replace(tmp, target)
            os.mkdir(tmp)  # so the context manager finds a folder to remove
    return target


def prepare() -> str | None:
    """At server/CLI start: None when sandboxed kernels of the kernel Python can start (its font
    cache built), else why not."""
    problem = check_sandbox()
    if problem is None:
        try:
            prepare_mpl_cache(describe(kernel_python()))
        except KernelPythonError as err:
            return str(err)
    return problem
