"""The structural half of the fair vis grade: the turn's figure structure against the reference's.

Returns a :class:`~.plot.Comparison` when both figures carry a readable structure
(``FIGURE_MIME``, in the same output as the graded PNG), else why not — the reason the
badge gives for falling back to SSIM.  The reference's structure is the one in the
reference cell's output that holds its image: recorded there when the task was built, or —
for an imported notebook — by ``tasks verify`` (:mod:`cibench_lab.tasks.reference_figures`).
"""

from __future__ import annotations

import logging
from typing import Any

from ..tasks.model import Step
from ..tasks.reference_figures import image_output
from .figure import Figure, FigureError, bundle_of, read_figure
from .plot import Comparison, compare

log = logging.getLogger(__name__)


def reference_figure_output(step: Step) -> dict[str, Any] | None:
    """The reference cell's output holding its image (the first display_data with a PNG)."""
    i = image_output(step.outputs)
    return None if i is None else step.outputs[i]


def _read(output: dict[str, Any] | None, whose: str) -> Figure | str:
    bundle = bundle_of(output) if isinstance(output, dict) else None
    if bundle is None:
        if whose == "your":
            return "your figure carries no plot structure (not drawn with matplotlib)"
        return (
            "the reference has no plot structure (recorded before it was captured; `tasks verify` records it)"
        )
    try:
        return read_figure(bundle)
    except FigureError as err:
        return f"{whose} figure's plot structure was not used: {err}"
    except Exception:  # untrusted input: whatever slipped past the schema falls back too
        log.warning("cibench-lab: a figure structure could not be read", exc_info=True)
        return f"{whose} figure's plot structure was not used: it could not be read"


def structural(step: Step, output: dict[str, Any]) -> Comparison | str:
    """The comparison of ``output`` (the turn's graded figure output) with the reference's,
    or the reason there is none."""
    pred = _read(output, "your")
    if isinstance(pred, str):
        return pred
    ref = _read(reference_figure_output(step), "the reference's")
    if isinstance(ref, str):
        return ref
    try:
        return compare(pred, ref, step.plot_elements)
    except Exception:  # a schema-valid but odd structure (untrusted): SSIM instead of no grade
        log.warning("cibench-lab: figure structures could not be compared", exc_info=True)
        return "the plot structures could not be compared"
