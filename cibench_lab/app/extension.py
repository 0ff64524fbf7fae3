"""The server extension: the services built once from its traits (``traits.py``), its handlers."""

from __future__ import annotations

import asyncio
import getpass
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from jupyter_events import EventLogger
from jupyter_server.serverapp import ServerApp

from ..auth.class_tasks import ClassTasks
from ..auth.hub import Hub
from ..auth.roles import Roles, RoleSettings
from ..errors import BadInput
from ..grading.pool import Grader
from ..handlers.routes import handlers
from ..handlers.services import Services
from ..kernels.interpreter import PYTHON_VAR, check_kernel_python, kernel_python, kernel_python_note
from ..kernels.kernelenv import kernel_unpinned
from ..kernels.libraries import check_libraries
from ..kernels.limits import KernelLimits, process_limit_problem
from ..kernels.pool import PoolSettings
from ..kernels.sandbox import SandboxSetting, configure, prepare
from ..kernels.spec import ensure_kernelspec, hide_from_kernels
from ..kernels.specguard import apply_specguard, kernelspec_problem
from ..lab.contents import apply_contents, no_link_cwd, no_link_sessions
from ..lab.cull import check_cull
from ..lab.play import LabConfig, LabPlay
from ..lab.pool import apply_pool
from ..lab.sent import watch_requests
from ..lab.sockets import socket_room
from ..models.config import ModelRegistry, read_config_file
from ..models.judge import VisionJudge
from ..models.redact import redact_logs
from ..play.attempt import Attempts
from ..play.settings import PlaySettings
from ..play.workspace import check_writable, unwritable
from ..store import DATABASE_URL_VAR, NeedsUpgrade, Store, StoreError, configured_url
from ..studies.change import check_recorded
from ..studies.definition import StudyDef, StudyError, check_server, load_studies
from ..studies.proctor import apply_preset
from ..studies.service import Studies
from ..tasks.library import TaskLibrary, default_task_dirs, user_tasks_dir
from .traits import CIBenchLabTraits

T = TypeVar("T")
KERNEL_ACTIONS = "https://events.jupyter.org/jupyter_server/kernel_actions/v1"


class CIBenchLabApp(CIBenchLabTraits):
    name = "cibench_lab"
    judge: VisionJudge | None = None  # built from the judge_* traits, injected into the grader

    @property
    def _server(self) -> ServerApp:
        """``serverapp``, which is set once the extension is linked (before initialize_settings)."""
        assert self.serverapp is not None, "the extension is not linked to a server"
        return self.serverapp

    def _link_jupyter_server_extension(self, serverapp: ServerApp) -> None:
        super()._link_jupyter_server_extension(serverapp)
        apply_contents(serverapp, self.attempts_dir, self.log)  # no file route follows a kernel's link
        apply_specguard(serverapp)  # a cibench-lab kernel starts sandboxed or not at all
        if self.proctored:  # before the server builds its kernel managers and terminals
            apply_preset(serverapp)
        if self.kernel_pool_size > 0:  # Start's session takes a warm kernel (lab/pool.py)
            apply_pool(serverapp)

    def initialize_settings(self) -> None:
        unpinned = self._start_kernel_python()
        self._start_sandbox()
        ensure_kernelspec(self._server.kernel_spec_manager)
        self._exit_on(kernelspec_problem(self._server.kernel_spec_manager))
        new_tasks = self._new_tasks_dir()
        library = self._library(new_tasks)
        defs = self._studies(library)
        root = Path(self._server.root_dir).resolve()
        self._check_attempts_dir(root)
        store = self._open_store()
        self._check_database_place(store, root, self._server.contents_manager.allow_hidden)
        self._check_enrolled(store, defs)
        attempts = Attempts(store, library, self.profile)
        participant = self.participant or os.environ.get("JUPYTERHUB_USER") or getpass.getuser()
        config = self._play_config(root, participant, bool(defs))
        models = ModelRegistry(self._model_configs())
        self._check_key_files(models, root, self._server.contents_manager.allow_hidden)
        hide_from_kernels(
            DATABASE_URL_VAR, self.judge_api_key_env, *(c.api_key_env for c in models.configs.values())
        )
        self.judge = self._judge()
        grader = Grader(self.judge, self.grading_workers)
        grader.warm()  # the first text grade would load rouge-score and nltk (seconds): now, in its thread
        lab = LabPlay(attempts, self._server, config, models, grader)
        self._watch_requests(lab)
        roles = self._roles()
        hub = bool(os.environ.get("JUPYTERHUB_USER"))  # the hub user plays: no participant codes
        # a malformed researcher key hash or class task list: the server exits with one line
        studies = self._or_exit(Studies, defs, lab, roles, hub, self.researcher_key_sha256)
        tasks = self._or_exit(ClassTasks.of, self.class_tasks)
        self.services = Services(
            library, store, attempts, lab, participant, models, studies, roles, new_tasks, tasks, unpinned
        )
        self.settings.update({"cibench_lab": self.services})
        events = self._server.event_logger
        assert events is not None  # ServerApp makes one when it initializes
        events.add_listener(schema_id=KERNEL_ACTIONS, listener=self._on_kernel)
        redact_logs(logging.getLogger(), self.log, self._server.log)
        self.log.info("cibench-lab: %d tasks, results in %s", len(library.tasks), store.shown_url)

    def _new_tasks_dir(self) -> Path:
        """Where the lab's "Make a CIBench Task" writes: ``new_tasks_dir``, else the imported tasks'."""
        return (Path(self.new_tasks_dir).expanduser() if self.new_tasks_dir else user_tasks_dir()).resolve()

    def _library(self, new_tasks: Path) -> TaskLibrary:
        """The tasks of ``task_dirs``; when it is empty, the built-in and imported tasks and, with
        ``new_tasks_dir`` set, that folder's (watched even before it exists: the first task made
        creates it). Every directory but the built-in one is rescanned (TaskLibrary.rescan)."""
        if self.task_dirs:
            return TaskLibrary.load([Path(d) for d in self.task_dirs])
        library = TaskLibrary.load(default_task_dirs())
        if self.new_tasks_dir:
            library.watch(new_tasks)
        return library

    def _lab_config(self, root: Path, participant: str) -> LabConfig:
        """The lab's configuration and the default play settings, from the traits."""
        settings = PlaySettings.of(  # checked once, here (each trait's min first)
            {
                "show_grades": self.show_grades,
                "turn_cap": self.turn_cap,
                "reveal": self.reveal,
                "grade_rule": self.grade_rule,
                "pause_after": self.pause_after,
            }
        )
        return LabConfig(
            root_dir=root,
            attempts_dir=self.attempts_dir,
            turn_timeout=self.turn_timeout,
            interrupt_grace=self.interrupt_grace,
            kernel_idle_cull=self.kernel_idle_cull,
            kernel_pool=PoolSettings(self.kernel_pool_size, self.kernel_pool_memory, self.kernel_pool_idle),
            lock_settings=self.lock_settings,
            settings=settings,
            participant=participant,
        )

    def _play_config(self, root: Path, participant: str, has_studies: bool) -> LabConfig:
        """The lab's configuration, checked: idle kernels are culled after the working clock pauses,
        or the server exits saying so."""
        config = self._lab_config(root, participant)
        config.guard_settings = self._guarded(has_studies)
        pause = config.settings.pause_after
        self._or_exit(check_cull, config.kernel_idle_cull, pause, "CIBenchLabApp.pause_after")
        return config

    def _guarded(self, has_studies: bool) -> bool:
        """A person's settings only tighten the server's (``guard_settings``; auto: where the server
        holds other people's rules: proctored, studies, roles or classes, locked, under JupyterHub)."""
        if self.guard_settings != "auto":
            return self.guard_settings == "on"
        hub = bool(os.environ.get("JUPYTERHUB_USER"))
        roles = self.instructors or self.researchers or self.class_members
        return bool(self.proctored or has_studies or roles or self.lock_settings or hub)

    def _roles(self) -> Roles:
        """Roles from the settings, joined by the hub's groups when the server runs under JupyterHub
        (a malformed class: the server exits with one line)."""
        settings = self._or_exit(RoleSettings.of, self.instructors, self.researchers, self.class_members)
        return Roles(settings, Hub.from_env(os.environ, self.hub_groups_ttl, self.log))

    def _or_exit(self, make: Callable[..., T], *args: Any) -> T:
        """``make(*args)``, or the server exits with its BadInput's one line."""
        try:
            return make(*args)
        except BadInput as err:
            self.log.critical("cibench-lab: %s", err)
            raise SystemExit(1) from None

    def _studies(self, library: TaskLibrary) -> dict[str, StudyDef]:
        """The configured studies, checked against the tasks and this server, or the server exits
        with one line saying why not."""
        try:
            studies = load_studies(self.study_files, self.studies, library)
            check_server(studies, self.proctored, self.kernel_idle_cull)
        except StudyError as err:
            self.log.critical("cibench-lab: %s", err)
            raise SystemExit(1) from None
        return studies

    def _check_enrolled(self, store: Store, studies: dict[str, StudyDef]) -> None:
        """A study with enrolled participants is as they enrolled in it, or the server exits saying
        which file and field changed."""
        try:
            check_recorded(store, studies)
        except StudyError as err:
            store.dispose()
            self.log.critical("cibench-lab: %s", err)
            raise SystemExit(1) from None

    def _watch_requests(self, lab: LabPlay) -> None:
        """The kernel websocket tells the lab of each execute request it forwards (a turn is a request
        the server saw), or the server exits with one line saying why it cannot."""
        problem = watch_requests(self.settings, lab.captures)  # (copied into the web app's after)
        if problem:
            self.log.critical("cibench-lab: %s", problem)
            raise SystemExit(1)

    def _exit_on(self, problem: str | None) -> None:
        """A problem found at start: the server exits with its one line."""
        if problem:
            self.log.critical("cibench-lab: %s", problem)
            raise SystemExit(1)

    def _start_kernel_python(self) -> str | None:
        """Kernels run the configured Python, or the server exits with one line saying why not;
        one line (logged, and shown in the lab by GET settings) when it is not the pinned one."""
        if self.kernel_python:
            os.environ[PYTHON_VAR] = self.kernel_python
        problem = check_kernel_python()  # then the task libraries (kernel_check, kernel_libraries)
        problem = problem or check_libraries(kernel_python(), self.kernel_libraries, self.kernel_check)
        if problem:
            self.log.critical("cibench-lab: %s", problem)
            raise SystemExit(1)
        executable = kernel_python()
        log = self.log.info if executable != sys.executable else self.log.warning
        log("cibench-lab: %s", kernel_python_note(executable))
        unpinned = kernel_unpinned()
        if unpinned:
            self.log.warning("cibench-lab: %s", unpinned)
        return unpinned

    def _start_sandbox(self) -> None:
        """Kernels start sandboxed as configured, or the server exits with one line saying why not."""
        if self.proctored and not self.kernel_sandbox:
            self.log.critical("cibench-lab: proctored needs the kernel sandbox (kernel_sandbox=False given)")
            raise SystemExit(1)
        problem = prepare() if self.kernel_sandbox else None
        if problem:
            self.log.critical("cibench-lab: %s", problem)
            raise SystemExit(1)
        limits = KernelLimits(
            self.kernel_max_processes, self.kernel_memory_mb, self.kernel_tmp_mb, self.kernel_file_mb
        )
        configure(SandboxSetting(self.kernel_sandbox, self.kernel_network, limits))
        socket_room(self._server.kernel_manager.context)  # before its first kernel: room for many
        problem = process_limit_problem(limits) if self.kernel_sandbox else None
        if problem:
            self.log.warning("cibench-lab: %s", problem)
        # the server's kernels only (not a headless kernel of this process): see no folder but an attempt's
        attempts = Path(self._server.root_dir, self.attempts_dir).resolve()
        self._server.config.SandboxProvisioner.attempts_root = str(attempts)
        if not self.kernel_sandbox:
            self.log.warning("cibench-lab: task kernels are NOT sandboxed (kernel_sandbox=False)")

    def _open_store(self) -> Store:
        """The results store at this version's schema, or the server exits with one line.

        Without its database the extension can record nothing; a server that kept running
        would show a panel whose every call fails, with the reason far back in the log."""
        store = None
        try:
            store = Store(configured_url(self.database_url), auto_upgrade=self.db_auto_upgrade)
            store.check_writable()  # every Start and turn writes: say so now, not as a 500 later
            return store
        except StoreError as err:
            if store is not None:
                store.dispose()
            hint = " (or start with --CIBenchLabApp.db_auto_upgrade=True)"
            hint = hint if isinstance(err, NeedsUpgrade) else ""
            self.log.critical("cibench-lab: %s%s", err, hint)
            raise SystemExit(1) from None

    def _check_database_place(self, store: Store, root: Path, allow_hidden: bool) -> None:
        """A SQLite database whose folder Jupyter's file routes reach (under the server root, and not
        in a hidden folder there unless the server serves hidden files), where a read outside SQLite
        would drop the server's locks on it, is refused: the server exits. The default place, the
        Jupyter data dir (``~/.local/share/jupyter``), is hidden from a server started in ``~``."""
        url = store.engine.url
        if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
            return
        if served(Path(url.database).resolve().parent, root, allow_hidden):
            store.dispose()
            self._exit_on(
                f"the results database {url.database} is under the server root {root}, whose files "
                "Jupyter serves: keep it outside (CIBenchLabApp.database_url)"
            )

    def _check_key_files(self, models: ModelRegistry, root: Path, allow_hidden: bool) -> None:
        """A model's key file where Jupyter's file routes reach it is refused (the server exits, as for
        the database); one that other users may read is warned of."""
        judge = self._judge()
        found = [(f"model {c.name!r}: api_key_file", c) for c in models.configs.values()]
        found += [(f"judge {judge.model!r}: judge_api_key_file", judge.model_config())] if judge else []
        for setting, config in found:
            if not config.api_key_file:
                continue
            path = Path(config.api_key_file).expanduser().resolve()
            if served(path.parent, root, allow_hidden):
                self._exit_on(
                    f"{setting} {path} is under the server root {root}, whose files Jupyter serves: "
                    "keep it outside"
                )
            warning = config.key_file_warning()
            if warning:
                self.log.warning("cibench-lab: %s", warning)

    def _check_attempts_dir(self, root: Path) -> None:
        """Each Start writes a folder under ``attempts_dir``: a server that cannot would answer
        every Start with an error, so it exits with one line instead (as for its database)."""
        folder = root / self.attempts_dir
        try:
            check_writable(folder)
        except OSError as err:
            what = f"the attempts folder {folder}"
            self.log.critical("cibench-lab: %s", unwritable(err, what, "CIBenchLabApp.attempts_dir"))
            raise SystemExit(1) from None
        no_link_cwd(self._server.kernel_manager, str(root), self.attempts_dir)
        no_link_sessions(self._server.session_manager)

    def _judge(self) -> VisionJudge | None:
        """The VLM judge the ``judge_*`` traits (and any ``VisionJudge`` config) describe."""
        if not self.judge_model:
            return None
        return VisionJudge(
            parent=self,
            model=self.judge_model,
            base_url=self.judge_base_url,
            api_key_env=self.judge_api_key_env or "OPENAI_API_KEY",
            api_key_file=self.judge_api_key_file,
        )

    def _model_configs(self) -> dict:
        configs = read_config_file(self.model_config_file) if self.model_config_file else {}
        return {**configs, **self.models}

    async def _on_kernel(self, logger: EventLogger, schema_id: str, data: dict) -> None:
        kernel_id = data.get("kernel_id")
        if data.get("status") != "success" or not kernel_id:
            return
        km = self._server.kernel_manager
        for _ in range(50):  # the manager registers a started kernel just after the event
            if kernel_id in km or data.get("action") == "shutdown":
                break
            await asyncio.sleep(0.02)
        self.services.lab.on_kernel_action(data.get("action", ""), kernel_id)

    async def _start_jupyter_server_extension(self, serverapp: ServerApp) -> None:
        """Once the server's loop runs: the warm kernel pool fills in the background."""
        self.services.lab.kernels.prefill(self.services.library.tasks.values())

    def initialize_handlers(self) -> None:
        self.handlers.extend(handlers())

    async def stop_extension(self) -> None:
        if getattr(self, "services", None) is None:  # it exited while it started: nothing to stop
            return
        await self.services.lab.close()
        if self.judge is not None:
            await self.judge.aclose()
        self.services.store.dispose()


def served(folder: Path, root: Path, allow_hidden: bool) -> bool:
    """Whether Jupyter's file routes reach (resolved) ``folder``: under the server root, and not in a
    hidden folder there unless the server serves hidden files."""
    if not folder.is_relative_to(root):
        return False
    return allow_hidden or not any(part.startswith(".") for part in folder.relative_to(root).parts)
