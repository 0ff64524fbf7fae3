"""The server extension (ExtensionApp): its traits (``traits.py``), the services built once
from them and its handlers (``extension.py``)."""

from .extension import CIBenchLabApp, Services

__all__ = ["CIBenchLabApp", "Services"]
