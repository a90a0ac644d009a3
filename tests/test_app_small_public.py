"""AppTest: a public set too small to centre the logistic-regression release on is released
without a centre, and the page says why (issue 34: defaults that work on anyone's tables)."""

from __future__ import annotations

import app_support
import numpy as np
import pandas as pd
import pytest
from app_support import rerun

from dpcore.perturbation.experiments import CENTRED_MIN_ROWS

pytestmark = pytest.mark.slow
TIMEOUT = 300


def _table(rows: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, 3))
    return pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "c": x[:, 2],
                         "label": np.where(x[:, 0] + 0.5 * rng.normal(size=rows) > 0, "y", "n")})


@pytest.mark.parametrize("public_rows", [CENTRED_MIN_ROWS - 1, CENTRED_MIN_ROWS])
def test_a_small_public_set_publishes_without_a_centre_and_says_so(public_rows):
    from dpcore import BudgetAccountant

    at = app_support.start(timeout=TIMEOUT, source="Upload",
                           _budget_accountant=BudgetAccountant(epsilon=100.0),
                           budget_epsilon=100.0)
    for key, frame in (("upload_public", _table(public_rows, 1)),
                       ("upload_private", _table(400, 2))):
        at.file_uploader(key=key).set_value((f"{key}.csv", frame.to_csv(index=False).encode(),
                                             "text/csv"))
    rerun(at)
    at.selectbox(key="upload_target").set_value("label")
    rerun(at)
    at.switch_page("pages/perturbation.py")
    at.session_state["lr_view"] = "publish"
    at = rerun(at)
    assert not at.exception, at.exception
    text = " ".join(m.value for m in at.markdown)
    if public_rows < CENTRED_MIN_ROWS:
        assert f"The public set has {public_rows} rows, too few" in text
        assert "centred on the public model w₀" not in text
    else:
        assert "centred on the public model w₀" in text
    at.button(key="publish_perturbation").click()
    at = rerun(at)
    assert not at.exception, at.exception
    assert any("Published at" in s.value for s in at.success)
