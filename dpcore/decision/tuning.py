"""Which data each choice was tuned on: the choose-ε page's answers and a release's settings.

Choosing on private data costs privacy. A choice that shapes a release (its ε, λ, a size, the
option recommended) and was made by reading the private data D without noise leaks D through
that release, outside anything the ledger counts: the release's ε no longer bounds what it
reveals. A choice may read D only as a differentially private selection charged to the ledger
(the exponential mechanism [MT07]_; private selection from private candidates [LT19]_
[PS22]_). So every choice of the choose-ε and decision pages is listed with

* ``tuned_on``: :data:`TUNED_ON` ("your inputs": numbers the user states, no data; "public
  set": E, or halves of E; "simulation": built-in synthetic data that holds no person's
  record; "private data": D);
* ``status``: "free" (reads no private record), "charged" (a DP selection on D, charged to the
  ledger with the release it is part of) or "refused" (reads D without noise: not offered as a
  choice for a release, and :func:`refusal` says what to do instead).

:func:`choose_epsilon_tuning` lists the choose-ε page's choices for its parameters,
:func:`release_tuning` a release's settings as the decision page weighs them. Nothing here
reads data: the tables follow from the parameters alone.

References
----------
.. [MT07] McSherry & Talwar (2007), *Mechanism design via differential privacy*, FOCS,
   Theorem 6 (the exponential mechanism).
.. [LT19] Liu & Talwar (2019), *Private selection from private candidates*, STOC, Theorem 3.4.
.. [PS22] Papernot & Steinke (2022), *Hyperparameter tuning with Renyi differential privacy*,
   ICLR, Theorem 2.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from dpcore.perturbation.experiments import LAMBDA_MODES
from dpcore.studies.choose_epsilon import DATA_TARGETS, ROUTE_LABELS
from dpcore.studies.masking import INITIAL
from dpcore.validation import DataError

__all__ = ["STATUSES", "TUNED_ON", "TUNING_COLUMNS", "choose_epsilon_tuning", "refusal",
           "release_tuning"]

#: What a choice can be tuned on, in the words the pages show.
TUNED_ON = ("your inputs", "public set", "simulation", "private data")
#: What a choice costs: nothing, a DP selection charged to the ledger, or refused.
STATUSES = ("free", "charged", "refused")
TUNING_COLUMNS = ["choice", "value", "tuned_on", "how", "status"]

_EPSILON_ANSWER = "ε (the smallest that meets the target)"


def _row(choice: str, value: Any, tuned_on: str, how: str, status: str = "free") -> dict:
    if tuned_on not in TUNED_ON or status not in STATUSES:
        raise ValueError(f"Unknown tuning ({tuned_on!r}, {status!r}); expected one of "
                         f"{TUNED_ON} and {STATUSES}.")
    if status == "free" and tuned_on == "private data":
        raise ValueError(f"{choice!r} reads the private data: it is charged or refused, "
                         "never free.")
    return {"choice": choice, "value": str(value), "tuned_on": tuned_on, "how": how,
            "status": status}


def _table(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=TUNING_COLUMNS)


def _target_rows(params: Any) -> list[dict]:
    """The "Target → ε" view: the answer's ε and the settings of the study behind it."""
    if params.target not in DATA_TARGETS:
        return [_row(_EPSILON_ANSWER, "closed form", "your inputs",
                     "From the error bar, the share of releases that must meet it and the "
                     "sensitivity from the domain bounds: no data is read.")]
    private = params.route == "private"
    answer = (_row(_EPSILON_ANSWER, ROUTE_LABELS["private"], "private data",
                   "Its errors (a closed form of D's terms, or seeded runs) are measured on "
                   "D without noise: the answer is a look at D. Refused as a choice for a "
                   "release.", "refused")
              if private else
              _row(_EPSILON_ANSWER, ROUTE_LABELS["public"], "public set",
                   "Its errors are measured on two halves of E, one playing D: it never "
                   "reads D."))
    part = "D and E" if private else "the halves of E"
    rows = [answer]
    if params.target in ("iw_theory", "iw_mc"):
        rows.append(_row("λ of the importance weights", f"{params.lambda_:g}", "your inputs",
                         "Set by hand, as on the importance page; the weights are then fitted "
                         f"on {part}."))
    elif params.target == "lr":
        rows.append(_row("λ of the simulated release", "picked by the release", "public set",
                         "The release picks λ by simulating itself on E, as it does when "
                         "published."))
    else:
        rows.append(_row("the candidate subset sizes", "13 sizes", "public set",
                         "A rule of E's number of distinct points."))
    return rows


def choose_epsilon_tuning(params: Any) -> pd.DataFrame:
    """Every choice of the choose-ε page's view, with the data it was tuned on.

    Parameters
    ----------
    params : dpcore.studies.choose_epsilon.Params

    Returns
    -------
    DataFrame
        One row per choice, in :data:`TUNING_COLUMNS`. A data target studied on D gives a
        "refused" answer (its ε is a non-private look at D); every other choice reads the
        user's inputs or the public set.

    Examples
    --------
    >>> from dpcore.studies.choose_epsilon import Params
    >>> choose_epsilon_tuning(Params(target="lr", route="private"))["status"].tolist()
    ['refused', 'free']
    >>> choose_epsilon_tuning(Params(view="risk"))["tuned_on"].unique().tolist()
    ['your inputs']
    """
    view = params.view
    if view == "target":
        rows = _target_rows(params)
    elif view == "risk":
        rows = [_row("ε", f"{params.epsilon:g}", "your inputs", "The slider."),
                _row("prior belief", f"{params.prior:g}", "your inputs",
                     "What an attacker believes before the release.")]
    elif view == "composition":
        rows = [_row("the plan (mechanisms, ε, δ, counts, parts)", "the table", "your inputs",
                     "Edited by hand; the totals read no data."),
                _row("δ′ of the tighter totals", f"{params.slack:g}", "your inputs",
                     "The select slider.")]
    elif view == "stats":
        rows = [_row("each statistic's ε", "closed forms", "your inputs",
                     "From each statistic's sensitivity and error bar: no data is read."),
                _row("the composition method and split", params.stats_method, "your inputs",
                     "Chosen by hand.")]
    else:
        raise DataError(f"Unknown view {view!r}; expected target, risk, composition or stats.")
    return _table(rows)


def release_tuning(page: str, params: Any) -> pd.DataFrame:
    """Every setting of ``page``'s release, as a decision weighs it, with the data it was
    tuned on.

    Parameters
    ----------
    page : str
        A page of :data:`dpcore.decision.RELEASES`.
    params : study parameters of that page (:func:`dpcore.decision.decision_params`)

    Returns
    -------
    DataFrame
        One row per setting, in :data:`TUNING_COLUMNS`: ε and the page's own settings. No
        release tunes a setting on D without noise; the optimal subset's size is a DP
        selection on D, charged to the ledger as the release's ε₃.

    Raises
    ------
    DataError
        For a page without a release.

    Examples
    --------
    >>> from dpcore.decision import decision_params
    >>> table = release_tuning("subset", decision_params("subset", {}, 0))
    >>> table.loc[table["status"] == "charged", "choice"].tolist()
    ['the subset size']
    """
    epsilon = _row("ε of the release", f"{params.epsilon:g}", "your inputs",
                   "Set on the page. The rows marked non-private read D: an ε chosen by them "
                   "is tuned on D, which no ledger entry counts; choose it on the choose-ε "
                   "page's closed forms or public stand-in instead.")
    if page == "importance":
        rows = [_row("λ", f"{params.lam:g}", "your inputs", "Set by hand on the page.")]
    elif page == "perturbation":
        rule = params.lambda_mode
        if rule == LAMBDA_MODES[2]:
            lam = _row("λ", rule, "public set", "Cross-validated on the public set E.")
        elif rule == LAMBDA_MODES[0]:
            lam = _row("λ", rule, "your inputs",
                       "A rule of ε, the number of records and the dimension: public numbers.")
        else:
            lam = _row("λ", f"{params.lam:g}", "your inputs", "Set by hand on the page.")
        rows = [lam]
    elif page == "masking":
        rows = [_row("λ and N", f"λ = {params.lambda_:g}, N = {params.n}", "your inputs",
                     "Set by hand on the page."),
                _row("the initial set", params.initial,
                     "public set" if params.initial == INITIAL[0] else "your inputs",
                     "Public or fake records the masked set starts from (none when empty): "
                     "no private record.")]
    elif page == "subset":
        rows = [_row("the split of ε and the accounting",
                     f"{params.split}, {params.accounting}", "your inputs",
                     "Set by hand on the page."),
                _row("λ", f"{params.lambda_:g}", "your inputs", "Set by hand on the page."),
                _row("the candidate subset sizes", params.grid, "public set",
                     "A rule of E's number of distinct points."),
                _row("the subset size", f"DP selection: {params.selection}", "private data",
                     "Selected on D by a DP selection (Algorithm 2 steps 5-6) at ε₃, charged "
                     "to the ledger with the release.", "charged")]
    else:
        raise DataError(f"No release to weigh on page {page!r}.")
    return _table([epsilon, *rows])


def refusal(table: pd.DataFrame) -> str | None:
    """What to do instead of a choice tuned on the private data without noise (the "refused"
    rows of a tuning table), in words; None when there is none."""
    refused = table[table["status"] == "refused"]
    if refused.empty:
        return None
    names = ", ".join(refused["choice"])
    return (f"Refused as a choice for a release: {names}, tuned on the private data D without "
            "noise. Publishing at it would reveal D beyond what the ledger counts. Study on the "
            "public stand-in (E split in two) to choose on public data, or spend a little "
            "budget on a DP pilot release and choose from its noisy result.")
