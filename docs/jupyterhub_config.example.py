# jupyterhub_config.py for a class playing CIBench tasks on one machine (docs/teach/reference.md).
#
# Two students and a teacher; every user's single-user server runs JupyterLab with cibench-lab,
# recording into one shared PostgreSQL database, each server as its own PostgreSQL login role.
# The test suite starts a hub from this very file (tests/hub.py), adding only its ports, its
# temporary folders and its own environment, so what the guide shows is what is tested.
#
# Site settings are read from the environment so the file runs unchanged:
#   CIBENCH_CLASS_DIR       the class's folder: the hub's state, each user's home, the database URLs,
#                           the tasks teachers make (tasks/) and the lab's settings (lab-settings/)
#   CIBENCH_CLASS_PASSWORD  the class's shared login password (at least 8 characters)
# Edit CLASS, STUDENTS and INSTRUCTORS below for your class.
import json
import os
import sys
from pathlib import Path

c = get_config()  # noqa: F821 (JupyterHub defines it when it loads this file)

CLASS = "demo"  # the JupyterHub group cibench-class-demo is this class
STUDENTS = ["student1", "student2"]
INSTRUCTORS = ["teacher"]
CLASS_DIR = Path(os.environ.get("CIBENCH_CLASS_DIR", "/srv/cibench-class"))

# --- the hub's own state (its SQLite database, cookie secret, proxy PID) in the class folder
c.JupyterHub.db_url = f"sqlite:///{CLASS_DIR / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(CLASS_DIR / "jupyterhub_cookie_secret")
c.ConfigurableHTTPProxy.pid_file = str(CLASS_DIR / "jupyterhub-proxy.pid")
c.JupyterHub.bind_url = "http://127.0.0.1:8000"  # the address students open (put TLS in front)

# --- JupyterHub's proxy: the one installed beside the hub's Python (`npm install --prefix
# .venv/node`, docs/teach/reference.md), else configurable-http-proxy on the hub's PATH
PROXY = Path(sys.prefix) / "node" / "node_modules" / ".bin" / "configurable-http-proxy"
if PROXY.exists():
    c.ConfigurableHTTPProxy.command = [str(PROXY)]

# --- who may log in: one shared class password (SharedPasswordAuthenticator, JupyterHub >= 5.3).
# A site with accounts uses its own authenticator here (PAM, LDAP, OAuth); nothing else changes.
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = os.environ["CIBENCH_CLASS_PASSWORD"]
c.Authenticator.allowed_users = set(STUDENTS + INSTRUCTORS)

# --- the class and its teachers, as groups cibench-lab reads (docs/teach/reference.md, "Roles"): a
# teacher belongs to the class they teach
c.JupyterHub.load_groups = {
    f"cibench-class-{CLASS}": {"users": STUDENTS + INSTRUCTORS},
    "cibench-instructors": {"users": INSTRUCTORS},
}

# --- a single-user server's token reads its own user's groups (cibench-lab's roles come from
# them), and a teacher's server the class group's members (the class view). JupyterHub's default
# `server` role holds only the first two scopes (post activity, be reached); naming a default role
# here replaces its scopes, so they are listed again beside the ones added. A server's token gets
# only the scopes its user holds: the class group's members go to the teachers' tokens alone, by
# the second role. (JupyterHub 6 also lets every token read its owner's groups, to identify them;
# the grant says so explicitly and keeps it so on hubs that do not.)
c.JupyterHub.load_roles = [
    {
        "name": "server",
        "scopes": [
            "users:activity!user",
            "access:servers!server",
            "read:users:groups!user",
            f"read:groups!group=cibench-class-{CLASS}",
            "read:groups!group=cibench-instructors",
        ],
    },
    {
        "name": "cibench-class-reader",
        "groups": ["cibench-instructors"],
        "scopes": [f"read:groups!group=cibench-class-{CLASS}", "read:groups!group=cibench-instructors"],
    },
]

# --- every user's server: the hub's own Python environment, as the hub's operating-system user,
# in its own home folder. SimpleLocalProcessSpawner needs no system accounts; students' servers
# are kept apart by the proctored preset (no terminals, only the sandboxed task kernel: no code a
# student runs reaches another home, the database URLs or the hub). A teacher's server is not
# proctored: their own ordinary kernels and terminal run as that same user, so only trusted
# teachers belong in INSTRUCTORS.
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = str(CLASS_DIR / "home" / "{username}")
c.Spawner.notebook_dir = str(CLASS_DIR / "home" / "{username}")
c.Spawner.cmd = [str(Path(sys.executable).with_name("jupyterhub-singleuser"))]
c.Spawner.default_url = "/lab"
c.Spawner.env_keep = ["PATH", "LANG", "LC_ALL", "JUPYTERHUB_SINGLEUSER_APP"]
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120

# --- the class's own tasks: a teacher's "Make a CIBench Task from This Notebook" writes into one
# shared folder, which every server (students' and teachers') serves and rescans while it runs
TASKS_DIR = CLASS_DIR / "tasks"
# the class's task list: what its students see and start (task ids or patterns; [] = every task).
# A teacher's tasks are classroom/<lib>/<stem>: ["classroom/*"] shows the students those alone
CLASS_TASKS: list[str] = []

# --- JupyterLab without its "Jupyter news?" prompt and update checks, as scripts/lab-settings does
# for local play: these overrides of the lab's defaults, in the class folder
LAB_SETTINGS = CLASS_DIR / "lab-settings"
LAB_OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False}
}
LAB_SETTINGS.mkdir(parents=True, exist_ok=True)
(LAB_SETTINGS / "overrides.json").write_text(json.dumps(LAB_OVERRIDES, indent=2) + "\n")

c.Spawner.args = [
    f"--CIBenchLabApp.new_tasks_dir={TASKS_DIR}",
    *([f"--CIBenchLabApp.class_tasks={json.dumps({CLASS: CLASS_TASKS})}"] if CLASS_TASKS else []),
    f"--LabApp.app_settings_dir={LAB_SETTINGS}",
    "--LabApp.news_url=None",
    "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    *(["--ServerApp.allow_root=True"] if os.geteuid() == 0 else []),
]
PROCTORED = "--CIBenchLabApp.proctored=True"  # terminals off, only the sandboxed cibench-lab kernel


def proctor_students(spawner) -> None:
    """Every server but a teacher's starts proctored."""
    if spawner.user.name not in INSTRUCTORS and PROCTORED not in spawner.args:
        spawner.args = [*spawner.args, PROCTORED]


c.Spawner.pre_spawn_hook = proctor_students


def database_url(spawner) -> str:
    """The user's own PostgreSQL URL, from the file the class's provisioning wrote for them."""
    path = CLASS_DIR / "db" / f"{spawner.user.name}.url"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        raise RuntimeError(f"{spawner.user.name} has no database login: {path} is missing") from None


# cibench-lab reads its results database from CIBENCH_LAB_DATABASE_URL when database_url is not
# set; task kernels never inherit it. CIBENCH_CLASS_DIR names the class folder in a teacher's
# terminal (`cibench-lab tasks new --into "$CIBENCH_CLASS_DIR/tasks"`).
c.Spawner.environment = {"CIBENCH_LAB_DATABASE_URL": database_url, "CIBENCH_CLASS_DIR": str(CLASS_DIR)}
