"""Published deployments (issue 25, section 3): shipped data, a source for every row, and the
numbers as the source's own words state them."""

import math
import re

import pandas as pd

from dpcore.planning import DEPLOYMENT_COLUMNS, deployments


def _stated(number: float, quote: str) -> bool:
    """Whether ``quote`` states ``number``: as written (17.14, 1.672, 16, 0.015), or a small
    delta in one of the sources' notations (10^{-10}, 1e-10, 7 × 10−9)."""
    if number >= 1e-3:
        return re.search(rf"(?<![\d.]){re.escape(f'{number:g}')}(?!\d)", quote) is not None
    exponent = math.floor(math.log10(number))
    mantissa = f"{number / 10.0**exponent:.6g}"
    forms = {f"{mantissa}e{exponent}", f"{mantissa} × 10−{-exponent}",
             f"{mantissa} × 10^{{{exponent}}}"}
    if mantissa == "1":
        forms |= {f"10^{{{exponent}}}", f"10−{-exponent}"}
    return any(form in quote for form in forms)


def test_every_row_has_a_source_a_unit_and_a_budget():
    table = deployments()
    assert tuple(table.columns) == DEPLOYMENT_COLUMNS and len(table) >= 10
    for column in ("name", "organisation", "unit", "data", "source", "url", "quote"):
        assert table[column].notna().all() and (table[column].str.strip() != "").all(), column
    assert table["url"].str.startswith("https://").all()
    assert (table["epsilon"].notna() | table["rho"].notna()).all()  # some budget per row
    assert ((table["epsilon"] > 0) | table["epsilon"].isna()).all()
    assert table["year"].between(2014, 2026).all()


def test_each_number_is_in_its_sources_words():
    for row in deployments().itertuples():
        for value in (row.epsilon, row.delta, row.rho):
            if not pd.isna(value):
                assert _stated(float(value), row.quote), (row.name, value, row.quote)


def test_the_table_is_read_from_the_installed_package_not_fetched():
    # a copy each call: the caller may sort or filter it
    first = deployments()
    first.loc[0, "epsilon"] = -1.0
    assert deployments().loc[0, "epsilon"] == 17.14
