"""Grey-box probes of the primer's release (:func:`dpcore.primer.release.release_answers`):
its count, sum and mean, once or once per group, under both neighbouring relations.

Each probe runs the release itself on a small table of raw records (a numeric column ``x``
clipped to the public bounds ``[LOW, HIGH]``, missing values included, and a column ``g``
whose public categories are :data:`GROUPS`, other values and missing ones included) as a
study: no ledger, the noise drawn from the pair's seed (identical on both tables). The
declared sensitivity is the one the release writes in its table; the flow is its parts and its
noise scale. The pairs at the bounds: the largest record against the smallest, a missing value
against the largest, a record that moves between groups at the bound, one that empties a group,
and (add or remove) the largest records added to one record or to several.

Under "replace one record" the number of records is public: every table has
:data:`N_RECORDS`. Under "add or remove one record" every table has at least one record: the
release refuses an empty table (its sensitivity check asks for ``n_records >= 1``), so the
pair "the only record removed" would differ in control flow; the app holds no empty private
table (an upload with no rows is refused).

The random pairs run in batches (:func:`answers_batch`): the release's own steps on many
tables stacked into one, each record's contribution from the query's own
:meth:`~dpcore.primer.queries.PrimerQuery.values`, its part from the release's rule (the
column's public values, :data:`~dpcore.primer.release.OTHER_PART` for every other), the
sensitivity from the release's own functions and the noise from
:class:`~dpcore.mechanisms.Laplace` with the table's seed; the check verifies the batch against
the release itself (:data:`~dpcore.audit.sensitivity.VERIFY_EVERY`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from dpcore.audit.sensitivity import STAR, Probe, Run, random_pairs
from dpcore.mechanisms import Laplace
from dpcore.primer.queries import (
    RELATIONS,
    PrimerQuery,
    count,
    group_sensitivity,
    sensitivity,
)
from dpcore.primer.release import OTHER_PART, release_answers

__all__ = ["EPSILON", "GROUPS", "HIGH", "LOW", "N_RECORDS", "PROBES", "answers_batch",
           "data_bounds_probe", "release_probe", "table_pairs"]

#: The public clipping bounds of the numeric column (asymmetric: |LOW| != |HIGH|).
LOW, HIGH = -5.0, 10.0
#: The public categories of the group column.
GROUPS = ["a", "b", "c"]
#: The ε of every run (the check compares values, not noise: any ε will do).
EPSILON = 1.0
#: The queries probed, by word.
QUERIES = {"count": count("x", 3.0, threshold=True),
           "sum": PrimerQuery("sum", "x", low=LOW, high=HIGH),
           "mean": PrimerQuery("mean", "x", low=LOW, high=HIGH)}
#: The largest record: far beyond the bounds, so that the clipping decides.
FAR = 1e6
#: The number of records of every table under "replace one record" (public there).
N_RECORDS = 12
#: Values of ``g`` beyond the public categories (another value, a missing one).
OTHERS = ["z", None]

Record = tuple[object, float]


def _table(records: list[Record]) -> pd.DataFrame:
    return pd.DataFrame({"g": pd.Series([g for g, _ in records], dtype=object, copy=False),
                         "x": np.array([x for _, x in records], dtype=float)}, copy=False)


def _random_record(gen: np.random.Generator) -> Record:
    choices = [*GROUPS, *OTHERS]
    group = choices[int(gen.integers(len(choices)))]
    x = np.nan if gen.random() < 0.1 else float(gen.uniform(LOW - 5.0, HIGH + 5.0))
    return group, x


def _random_records(gen: np.random.Generator, size: int) -> list[Record]:
    return [_random_record(gen) for _ in range(size)]


def _records_of(table: pd.DataFrame) -> list[Record]:
    return list(zip(table["g"], table["x"], strict=True))


def table_pairs(relation: str):
    """The pairs of tables at the bounds and the random pairs under ``relation``:
    ``(bounds, random_pair, random_star)`` (:class:`~dpcore.audit.sensitivity.Probe`)."""
    base: list[Record] = [("b", 1.0), ("c", 2.0), ("z", 3.0), (None, np.nan), ("b", LOW),
                          ("c", HIGH), ("b", 0.5), ("z", -FAR), ("c", FAR), (None, 4.0),
                          ("b", 7.0)]

    if relation == "replace":
        changes: list[tuple[Record, Record]] = [
            (("a", FAR), ("a", -FAR)),       # the largest record against the smallest
            (("a", np.nan), ("a", FAR)),     # a missing value against the largest
            (("a", HIGH), ("b", HIGH)),      # a record moves between groups at the bound
            (("a", LOW), ("c", LOW)),
            (("a", FAR), ("z", -FAR)),       # the only "a" leaves: its group empties
            (("a", FAR), (None, FAR)),
        ]

        def bounds():
            return [(_table([*base, x]), _table([*base, y])) for x, y in changes]

        def random_table(gen):
            return _table(_random_records(gen, N_RECORDS))

        def neighbour(gen, table):
            other = _records_of(table)
            other[int(gen.integers(len(other)))] = _random_record(gen)
            return _table(other)
    else:
        added: list[Record] = [("a", FAR), ("a", -FAR), ("z", FAR), (None, np.nan)]

        def bounds():
            return [(_table(start), _table([*start, x])) for start in (base[:1], base)
                    for x in added]

        def random_table(gen):
            return _table(_random_records(gen, int(gen.integers(1, 2 * N_RECORDS))))

        def neighbour(gen, table):
            records = _records_of(table)
            if len(records) > 1 and gen.random() < 0.5:  # one removed (never the only one)
                del records[int(gen.integers(len(records)))]
                return _table(records)
            return _table([*records, _random_record(gen)])  # one added
    return bounds, *random_pairs(random_table, neighbour)


def _largest(query: PrimerQuery) -> float:
    """The largest contribution of one record to ``query``."""
    return 1.0 if query.kind == "count" else max(abs(query.low), abs(query.high))


def answers_batch(query: PrimerQuery, relation: str, tables: Sequence[pd.DataFrame],
                  seeds: Sequence[int], *, grouped: bool) -> list[Run | tuple[str, str]]:
    """:func:`~dpcore.primer.release.release_answers` of ``query`` (at :data:`EPSILON`, as a
    study seeded by ``seeds``) on every table at once, as the probe reads it.

    The tables are stacked: each record's contribution is the query's own
    :meth:`~dpcore.primer.queries.PrimerQuery.values` on the stack, the parts are the
    release's (``g`` equal to each of :data:`GROUPS`, then every other value), each table's
    answers sum (or, for the mean, average) its records' contributions, and the sensitivity,
    the noise's scale and its draw (``Laplace(...).draw(answers, rng=seed)``) are the
    release's. A mean of no records is refused, as the release refuses it.

    Parameters
    ----------
    query : PrimerQuery
    relation : {"replace", "add_remove"}
    tables : sequence of DataFrame
        Tables of columns ``g`` and ``x`` (:func:`table_pairs`).
    seeds : sequence of int
        One noise seed per table.
    grouped : bool
        Per group of ``g`` (its public categories :data:`GROUPS`) or once.

    Returns
    -------
    list of Run or ("refused", message)
        One per table, as the probe's run reads the release's table.
    """
    sizes = np.array([len(table) for table in tables])
    stacked = pd.concat(list(tables), ignore_index=True)
    values = query.values(stacked)
    owner = np.repeat(np.arange(len(tables)), sizes)
    if grouped:
        column = stacked["g"]
        rows = [(column == v).to_numpy() for v in GROUPS]
        rows.append(~column.isin(GROUPS).to_numpy())
        parts = (*(f"g = {v}" for v in GROUPS), OTHER_PART)
        exact = np.stack([np.bincount(owner, weights=np.where(r, values, 0.0),
                                      minlength=len(tables)) for r in rows], axis=1)
    else:
        parts = ("all records",)
        exact = np.bincount(owner, weights=values, minlength=len(tables))[:, None]
        if query.kind == "mean":
            exact = exact / np.maximum(sizes, 1)[:, None]
    runs: list[Run | tuple[str, str]] = []
    for answers, size, seed in zip(exact, sizes, seeds, strict=True):
        if query.kind == "mean" and size == 0:
            runs.append(("refused", "The mean of no records is undefined: the data is empty."))
            continue
        sens = (group_sensitivity(query) if grouped and relation == "replace"
                else sensitivity(query, int(size), relation))
        mech = Laplace(EPSILON, sens, neighbouring=RELATIONS[relation])
        runs.append(Run(np.asarray(mech.draw(answers, rng=seed), dtype=float), float(sens),
                        flow=(parts, float(mech.scale)), terms=max(int(size), 1),
                        magnitude=int(size) * _largest(query)))
    return runs


def release_probe(name: str, query: PrimerQuery, relation: str, *,
                  grouped: bool) -> Probe:
    """The probe of the release of ``query`` under ``relation``, per group of ``g`` or not."""
    bounds, random_pair, random_star = table_pairs(relation)

    def run(table: pd.DataFrame, seed: int) -> Run:
        released = release_answers(query, table, EPSILON, n_records=len(table),
                                   relation=relation, group="g" if grouped else None,
                                   groups=GROUPS if grouped else None, accountant=None,
                                   dataset="probe", rng=seed)
        return Run(released["answer"].to_numpy(dtype=float),
                   float(released["sensitivity"].iloc[0]),
                   flow=(tuple(released["part"]), float(released["scale"].iloc[0])),
                   terms=max(len(table), 1), magnitude=len(table) * _largest(query))

    def batch(tables: Sequence[pd.DataFrame], seeds: Sequence[int]) -> list:
        return answers_batch(query, relation, tables, seeds, grouped=grouped)

    return Probe(name, "L1", RELATIONS[relation], run, bounds, random_pair, batch=batch,
                 random_star=random_star, star=STAR)


def _name(kind: str, relation: str, grouped: bool) -> str:
    per = " per group" if grouped else ""
    return f"primer: {kind}{per} ({RELATIONS[relation]})"


#: The primer's releases: every query, relation and grouping the release accepts (a mean is
#: refused per group and under "add or remove one record": nothing to probe there).
PROBES: dict[str, Probe] = {
    _name(kind, relation, grouped): release_probe(_name(kind, relation, grouped),
                                                  QUERIES[kind], relation, grouped=grouped)
    for grouped in (False, True) for kind in QUERIES for relation in RELATIONS
    if kind != "mean" or (relation == "replace" and not grouped)
}


def data_bounds_probe(name: str) -> Probe:
    """Broken on purpose: the sum under "replace one record" clipped to bounds read from the
    data (the column's smallest and largest value), so its declared sensitivity ``high - low``
    moves with the records and the largest record passes it."""
    bounds, random_pair, random_star = table_pairs("replace")

    def query(table: pd.DataFrame) -> PrimerQuery:
        x = table["x"].to_numpy(dtype=float)
        return PrimerQuery("sum", "x", low=float(np.nanmin(x)), high=float(np.nanmax(x)))

    def run(table: pd.DataFrame, seed: int) -> Run:
        return release_probe(name, query(table), "replace", grouped=False).run(table, seed)

    def batch(tables: Sequence[pd.DataFrame], seeds: Sequence[int]) -> list:
        return [answers_batch(query(table), "replace", [table], [seed], grouped=False)[0]
                for table, seed in zip(tables, seeds, strict=True)]

    return Probe(name, "L1", RELATIONS["replace"], run, bounds, random_pair, batch=batch,
                 random_star=random_star, star=STAR)
