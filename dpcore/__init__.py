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

from dpcore.accountant import BudgetAccountant, BudgetExceeded
from dpcore.datasets import (
    Scenario,
    list_scenarios,
    load_scenario,
    read_csv_upload,
    scenario_from_uploads,
)
from dpcore.importance import ImportanceWeights
from dpcore.mechanisms import Exponential, Gaussian, L2Laplace, Laplace
from dpcore.validation import DataError, PrivacyLeakWarning, check_random_state

__all__ = [
    "BudgetAccountant",
    "BudgetExceeded",
    "DataError",
    "Exponential",
    "Gaussian",
    "ImportanceWeights",
    "L2Laplace",
    "Laplace",
    "PrivacyLeakWarning",
    "Scenario",
    "check_random_state",
    "list_scenarios",
    "load_scenario",
    "read_csv_upload",
    "scenario_from_uploads",
]
__version__ = "0.2.0"
