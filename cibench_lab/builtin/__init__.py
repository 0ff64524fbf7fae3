"""Built-in tasks: CIBench-format notebooks under ``cibench_template*/<lib>/`` plus ``datasources/``."""

from pathlib import Path

BUILTIN_DIR = Path(__file__).resolve().parent
DATASOURCES_DIR = BUILTIN_DIR / "datasources"

#: How the built-in tasks' references were rendered (their ``tasks/rendering.py`` record): the
#: `cibench-lab` kernel they were built in forced 72 dpi and kept matplotlib's defaults otherwise.
#: Every task of this directory that declares no ``metadata.cibench_lab.rendering`` renders so.
RENDERING = {"preset": "stock", "dpi": 72}
