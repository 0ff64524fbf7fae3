"""The task kernel's system-call filter: what a sandboxed kernel may not ask the Linux kernel.

bubblewrap loads it (``--seccomp FD``) just before it runs the kernel, so it holds for the kernel
and everything the kernel starts.  It is compiled with libseccomp (the ``pyseccomp`` binding of
``libseccomp.so.2``) once per rule set, libseccomp version and architecture, and kept in the
user's cache (``seccomp-<digest>.bpf``); :func:`filter_fd` opens it for one launch.

Denied with ``EPERM`` (a cell gets ``PermissionError``): making links (symbolic or hard) and
device nodes — nothing in an attempt folder can lead the server out of it; mounting, changing
namespaces or the root; tracing or reading another process's memory; the kernel keyrings;
loading kernel modules or BPF programs; ``perf_event_open``, ``userfaultfd``; open by file
handle.  ``clone3`` answers ``ENOSYS`` (the C library then uses ``clone``, whose namespace flags
are denied).  System calls of another architecture (32-bit) kill the process (libseccomp's
default).  Data-science libraries need none of these.
"""

from __future__ import annotations

import errno
import hashlib
import os
import tempfile
from pathlib import Path

#: Denied with EPERM.
DENIED = (
    "symlink",
    "symlinkat",
    "link",
    "linkat",
    "mknod",
    "mknodat",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsmount",
    "fsconfig",
    "fspick",
    "mount_setattr",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "keyctl",
    "add_key",
    "request_key",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "name_to_handle_at",
    "open_by_handle_at",
    "acct",
    "quotactl",
    "swapon",
    "swapoff",
    "syslog",
)
#: clone's flags that make new namespaces (CLONE_NEWNS … CLONE_NEWNET, CLONE_NEWCGROUP, CLONE_NEWTIME).
CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000
CLONE_NAMESPACES |= 0x40000000 | 0x00000080
VERSION = 1  # of the rules above: a change here gets a new cache file


class SeccompError(Exception):
    """The filter cannot be compiled here (no libseccomp, or it refused a rule)."""


def _compile() -> bytes:
    """The filter as a BPF program, compiled by libseccomp."""
    try:
        import pyseccomp as sc
    except (ImportError, OSError) as err:  # the binding, or libseccomp.so.2 it loads
        why = f"libseccomp is missing ({err}): pip install pyseccomp; apt-get install libseccomp2"
        raise SeccompError(why) from err
    rules = sc.SyscallFilter(sc.ALLOW)
    try:
        for name in DENIED:
            rules.add_rule(sc.ERRNO(errno.EPERM), name)
        rules.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
        for bit in _bits(CLONE_NAMESPACES):
            rules.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, bit, bit))
        with tempfile.TemporaryFile() as out:
            rules.export_bpf(out)
            out.seek(0)
            return out.read()
    except (OSError, RuntimeError, ValueError) as err:
        raise SeccompError(f"libseccomp cannot compile the kernel's filter: {err}") from err


def _bits(mask: int) -> list[int]:
    return [1 << i for i in range(mask.bit_length()) if mask >> i & 1]


def _digest() -> str:
    """What the compiled filter depends on: the rules, libseccomp's version, the architecture."""
    try:
        import pyseccomp as sc

        lib = f"{sc.get_api()}/{sc.system_arch()}/{getattr(sc, '__version__', '')}"
    except (ImportError, OSError):
        lib = "none"
    text = f"{VERSION}/{DENIED}/{CLONE_NAMESPACES}/{lib}/{os.uname().machine}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cibench-lab"


def filter_file() -> Path:
    """The compiled filter's file, written once (raises :class:`SeccompError`)."""
    path = cache_dir() / f"seccomp-{_digest()}.bpf"
    if path.is_file() and path.stat().st_size > 0:
        return path
    program = _compile()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".seccomp-", delete=False) as tmp:
            tmp.write(program)
        os.replace(tmp.name, path)
    except OSError as err:
        raise SeccompError(f"the kernel's filter cannot be cached in {path.parent}: {err}") from err
    return path


def filter_fd() -> int:
    """A file descriptor of the compiled filter that a child process inherits (for bwrap's
    ``--seccomp``); each launch reads its own, from the start."""
    fd = os.open(filter_file(), os.O_RDONLY)
    os.set_inheritable(fd, True)
    return fd
