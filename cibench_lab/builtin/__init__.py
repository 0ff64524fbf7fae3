"""Built-in tasks: CIBench-format notebooks under ``cibench_template*/<lib>/`` plus ``datasources/``."""

from pathlib import Path

BUILTIN_DIR = Path(__file__).resolve().parent
DATASOURCES_DIR = BUILTIN_DIR / "datasources"
