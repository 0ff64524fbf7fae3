"""The server's file routes never follow a link in the attempts folder (:mod:`..tasks.links`).

Jupyter's file contents manager resolves an API path with ``abspath``, not ``realpath``, so a link a
kernel leaves in its attempt folder would be read and written through by the contents API, by
nbconvert (which reads through the contents manager), by a session's kernel path and by checkpoints;
``/files/`` (tornado's static handler) follows a link that stays inside the server root. Mixed into the
server's contents manager class when the extension is linked (:func:`apply_contents`), every path
these routes use goes through :func:`check_no_link`: a refusal is a 403 with one line, and a directory
listing leaves the link out (the refusal is also an ``ELOOP`` OSError, which the listing skips).
"""

from __future__ import annotations

import errno
import os
from typing import Any

from jupyter_core.utils import ensure_async
from jupyter_server.base.handlers import AuthenticatedFileHandler
from jupyter_server.services.contents.filecheckpoints import AsyncFileCheckpoints, FileCheckpoints
from jupyter_server.services.contents.filemanager import AsyncFileContentsManager, FileContentsManager
from tornado import web
from traitlets import default

from ..tasks.links import LinkRefused, check_no_link


class Refused(web.HTTPError, OSError):
    """403 for a route; ``ELOOP`` for the directory listing, which leaves such an entry out."""

    def __init__(self, message: str):
        OSError.__init__(self, errno.ELOOP, message)
        web.HTTPError.__init__(self, 403, message)


def checked(os_path: str, root: str, attempts: str) -> str:
    """``os_path`` (under ``root``), or :class:`Refused` naming its API path."""
    try:
        check_no_link(os_path, os.path.join(root, attempts), os.path.relpath(os_path, root))
    except LinkRefused as err:
        raise Refused(str(err)) from None
    return os_path


class NoLinkPaths:
    """Mixed into a file contents manager or its checkpoints: every OS path it makes is checked."""

    root_dir: str

    def _attempts(self) -> str:
        return str(getattr(self, "attempts_dir", "") or getattr(self.parent, "attempts_dir", ""))  # type: ignore[attr-defined]

    def _get_os_path(self, path: str) -> str:
        os_path = super()._get_os_path(path)  # type: ignore[misc]
        return checked(os_path, self.root_dir, self._attempts())


class NoLinkCheckpoints(NoLinkPaths):
    def checkpoint_path(self, checkpoint_id: str, path: str) -> str:
        cp_path = super().checkpoint_path(checkpoint_id, path)  # type: ignore[misc]
        return checked(cp_path, self.root_dir, self._attempts())


class NoLinkAsyncCheckpoints(NoLinkCheckpoints, AsyncFileCheckpoints):
    pass


class NoLinkSyncCheckpoints(NoLinkCheckpoints, FileCheckpoints):
    pass


class NoLinkFileHandler(AuthenticatedFileHandler):
    """``/files/``: tornado follows a link inside the root; this one refuses the attempts folder's."""

    def validate_absolute_path(self, root: str, absolute_path: str) -> str:
        cm = self.contents_manager
        checked(absolute_path, os.path.abspath(root), getattr(cm, "attempts_dir", ""))
        return super().validate_absolute_path(root, absolute_path)


class NoLinkContents(NoLinkPaths):
    """The mixin of the server's contents manager class."""

    attempts_dir = "cibench-attempts"  # the class apply_contents makes holds CIBenchLabApp.attempts_dir

    async def get_kernel_path(self, path: str, model: Any = None) -> str:
        """A session's kernel starts in the notebook's folder; for a path through a link, in the
        attempts folder itself (a sandboxed kernel started there sees an empty attempt folder)."""
        try:
            self._get_os_path(path)
        except Refused:
            return self._attempts()
        return await ensure_async(super().get_kernel_path(path, model))  # type: ignore[misc]

    async def list_checkpoints(self, path: str) -> Any:
        self._get_os_path(path)
        return await ensure_async(super().list_checkpoints(path))  # type: ignore[misc]


def _checkpoints(self: Any) -> type:
    return NoLinkAsyncCheckpoints if isinstance(self, AsyncFileContentsManager) else NoLinkSyncCheckpoints


def _files_handler(self: Any) -> type:
    return NoLinkFileHandler


def no_link_cwd(kernel_manager: Any, root: str, attempts_dir: str) -> None:
    """A kernel started by path (``POST /api/kernels``) never starts through a link in the attempts
    folder: refused with one line (403). A session's kernel path is the contents manager's
    (:meth:`NoLinkContents.get_kernel_path`), which never names such a folder."""
    found = kernel_manager.cwd_for_path

    def cwd_for_path(path: str, **kwargs: Any) -> str:
        return checked(found(path, **kwargs), root, attempts_dir)

    kernel_manager.cwd_for_path = cwd_for_path


def no_link_sessions(session_manager: Any) -> None:
    """``PATCH /api/sessions {"path"}`` never moves a session through a link in the attempts folder:
    refused with one line (403), as the contents manager refuses that path."""
    update = session_manager.update_session
    check = getattr(session_manager.contents_manager, "_get_os_path", None)  # a file contents manager's

    async def update_session(session_id: str, **kwargs: Any) -> Any:
        if kwargs.get("path") and check is not None:
            check(kwargs["path"])
        return await update(session_id, **kwargs)

    session_manager.update_session = update_session


def apply_contents(serverapp: Any, attempts_dir: str, log: Any) -> None:
    """Mix :class:`NoLinkContents` into the server's contents manager class (before it is built)."""
    base = serverapp.contents_manager_class
    if not issubclass(base, FileContentsManager):
        log.warning("cibench-lab: %s is not a file contents manager: links are not checked", base.__name__)
        return
    mixed = (NoLinkContents, base) if not issubclass(base, NoLinkContents) else (base,)
    # the defaults in the made class's own namespace: traitlets reads a mixin's only from HasTraits classes
    namespace = {
        "attempts_dir": attempts_dir,
        "_no_link_checkpoints": default("checkpoints_class")(_checkpoints),
        "_no_link_files": default("files_handler_class")(_files_handler),
    }
    serverapp.contents_manager_class = type(f"NoLink{base.__name__}", mixed, namespace)
