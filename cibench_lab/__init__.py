"""cibench-lab: play, grade and benchmark CIBench tasks in JupyterLab."""

try:
    from ._version import __version__
except ImportError:  # running from a source tree that was never built
    __version__ = "0.0.0.dev0"


def _jupyter_labextension_paths():
    return [{"src": "labextension", "dest": "cibench-lab"}]


def _jupyter_server_extension_points():
    from .app import CIBenchLabApp

    return [{"module": "cibench_lab", "app": CIBenchLabApp}]
