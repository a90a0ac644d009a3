"""dpcore: the computation behind the privacy/utility explorer (no Streamlit in here).

The public API, one import away:

- privacy primitives: :class:`BudgetAccountant` (and :class:`BudgetExceeded`), the mechanisms
  :class:`Laplace`, :class:`Gaussian`, :class:`L2Laplace`, :class:`Exponential`;
- data: :func:`load_scenario`, :func:`list_scenarios`, :func:`read_csv_upload`,
  :func:`scenario_from_uploads`, :class:`Scenario`;
- one package per paper: :mod:`dpcore.importance` (Ji & Elkan 2013),
  :mod:`dpcore.perturbation` (Chaudhuri & Monteleoni 2008), :mod:`dpcore.masking` (Pham et al.),
  :mod:`dpcore.subset` (Wang et al. 2018);
- shared machinery: :mod:`dpcore.logistic` (batched solvers), :mod:`dpcore.simulation` (the
  Monte-Carlo engine), :mod:`dpcore.random` (named random streams), :mod:`dpcore.validation`;
- runs without the dashboard: :mod:`dpcore.runs` (a page's numbers from its exported JSON
  config), :mod:`dpcore.parallel` (Monte-Carlo cells on local workers or a Dask cluster) and the
  command line ``python -m dpcore run CONFIG.json --out DIR`` (:mod:`dpcore.cli`).
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from dpcore._version import __version__

#: Where each name of the public API lives. Nothing is imported until it is first used: the
#: package's face imports no module of its own, so threads that import different parts of
#: dpcore at once cannot wait on each other through it (an eager face did: its import lock and
#: a submodule's formed a cycle).
_EXPORTS = {
    "BudgetAccountant": "dpcore.accountant",
    "BudgetExceeded": "dpcore.accountant",
    "DataError": "dpcore.validation",
    "Exponential": "dpcore.mechanisms",
    "Gaussian": "dpcore.mechanisms",
    "ImportanceWeights": "dpcore.importance",
    "L2Laplace": "dpcore.mechanisms",
    "Laplace": "dpcore.mechanisms",
    "PrivacyLeakWarning": "dpcore.validation",
    "Scenario": "dpcore.datasets",
    "check_random_state": "dpcore.validation",
    "list_scenarios": "dpcore.datasets",
    "load_scenario": "dpcore.datasets",
    "read_csv_upload": "dpcore.datasets",
    "scenario_from_uploads": "dpcore.datasets",
}

__all__ = [*sorted(_EXPORTS), "__version__"]


def __getattr__(name: str) -> Any:
    """A name of the public API, or a submodule (``dpcore.runs``), imported on first use."""
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
    elif not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}"):
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
