"""Step difficulty: a Rasch (one-parameter logistic) fit of who passed which step.

Respondents (people and model runs alike) have an ability ``theta``, items (steps) a difficulty ``b``;
``P(pass) = 1 / (1 + exp(-(theta - b)))``.  Both are estimated together by joint maximum likelihood
(scipy's L-BFGS-B on the exact gradient) over the responses that exist — a respondent who did not play
an item contributes nothing to it.  A ridge penalty ``RIDGE / 2 * (sum theta^2 + sum b^2)`` keeps a
respondent or an item with all passes (or none) finite, and fixes the scale's origin near 0.

JML estimates are biased outward when the items are few; their *order* is what the report ranks.  With
every respondent answering every item an item's difficulty falls strictly with the number who passed it
(two items passed by the same number get the same difficulty, hence the same rank).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

#: the ridge penalty's weight (on the log-odds scale): small beside a response's information
RIDGE = 0.1
#: difficulties this close are tied (the same rank)
TIE = 1e-6


@dataclass(frozen=True)
class RaschFit:
    difficulty: np.ndarray  # (items,) larger is harder
    ability: np.ndarray  # (respondents,)
    converged: bool
    iterations: int
    ridge: float

    def ranks(self) -> list[int]:
        """Each item's rank by difficulty, 1 = hardest; ties share the better rank (1, 2, 2, 4)."""
        order = sorted(self.difficulty, reverse=True)
        return [1 + sum(1 for d in order if d > b + TIE) for b in self.difficulty]


def _objective(params: np.ndarray, x: np.ndarray, seen: np.ndarray, ridge: float) -> tuple[float, np.ndarray]:
    """Penalised negative log-likelihood and its gradient (theta first, then b)."""
    n = x.shape[0]
    theta, b = params[:n], params[n:]
    eta = theta[:, None] - b[None, :]
    loss = np.where(seen, np.logaddexp(0.0, eta) - x * eta, 0.0).sum()
    loss += ridge / 2 * float(params @ params)
    resid = np.where(seen, expit(eta) - x, 0.0)
    grad = np.concatenate([resid.sum(1), -resid.sum(0)]) + ridge * params
    return loss, grad


def fit(responses: Sequence[Sequence[float | None]], ridge: float = RIDGE) -> RaschFit:
    """Fit ``responses`` (respondents x items; 1 passed, 0 missed, None not played)."""
    raw = np.array([[np.nan if v is None else float(v) for v in row] for row in responses], dtype=float)
    if raw.ndim != 2 or raw.size == 0:
        raise ValueError("responses: need at least one respondent and one item")
    seen = ~np.isnan(raw)
    x = np.where(seen, raw, 0.0)
    n, k = x.shape
    result = minimize(
        _objective,
        np.zeros(n + k),
        args=(x, seen, ridge),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 2000, "gtol": 1e-10, "ftol": 1e-14},
    )
    return RaschFit(
        difficulty=result.x[n:],
        ability=result.x[:n],
        converged=bool(result.success),
        iterations=int(result.nit),
        ridge=ridge,
    )
