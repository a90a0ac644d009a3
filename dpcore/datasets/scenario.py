"""The encoded pair of datasets every mechanism takes: a public set E and a private set D.

References
----------
.. [JE13] Z. Ji and C. Elkan, "Differential privacy based on importance weighting", Machine
   Learning 93, 2013.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from dpcore.datasets.dimension import Dimension, dimension
from dpcore.validation import DataError

__all__ = ["KINDS", "Scenario"]

#: Kinds of encoded groups: full one-hot items, dummy items (first level dropped), a single 0/1
#: column kept as it is, or a continuous column scaled into [0, 1].
KINDS = ("onehot", "dummy", "binary", "scaled")


@dataclass(frozen=True, eq=False)
class Scenario:
    """A public set E and a private set D, encoded into ``[0, 1]^d`` with the same columns.

    Parameters
    ----------
    name : str
        Registry key, e.g. ``"adult"``.
    title : str
        Human title for a select box.
    public : DataFrame of shape (n_public, d)
        E, the encoded public records; every column float in [0, 1].
    private : DataFrame of shape (n_private, d)
        D, the encoded private records, same columns in the same order as ``public``.
    target : str or None
        Name of a 0/1 column of the encoded frames (e.g. ``"income=>50K"``), or None.
    description : str
        Markdown: what the data is, how D and E were split, source, licence and citation.
    groups : dict of str to list of str
        Original feature -> its encoded columns (one-hot items or the one scaled column), in
        column order.
    raw_public, raw_private : DataFrame or None, default=None
        Un-encoded rows of E and D (same row order), for pages that want continuous columns.
    test : DataFrame or None, default=None
        Encoded held-out test records (Adult's test file), same columns.
    encoding : str, default="onehot"
        Name of the encoding, e.g. ``"onehot"`` or ``"compact"``.
    kinds : dict of str to str, default={}
        Original feature -> ``"onehot"``, ``"dummy"``, ``"binary"`` or ``"scaled"`` (see
        :data:`KINDS`); needed to draw a uniform public set from the encoding's domain.
    bounds : dict of str to (float, float), default={}
        Scaling range of every scaled column (fixed in advance or the public set's range): the
        encoded value is ``(x - low) / (high - low)`` clipped to [0, 1]. Lets a query be written
        in the data's own units.
    categories : dict of str to list, default={}
        Levels of every categorical column, in the order of its items.
    public_independent : bool, default=True
        Whether E was obtained without looking at D. The privacy proofs that publish anything
        about E ([JE13]_ Theorem 1) assume it; E = D ("identical") and a bootstrap resample of D
        are derived from D, so no release is allowed from them (studies still run).
    public_origin : str, default=""
        How E was obtained, for the message that refuses a release.
    """

    name: str
    title: str
    public: pd.DataFrame
    private: pd.DataFrame
    target: str | None
    description: str
    groups: dict[str, list[str]]
    raw_public: pd.DataFrame | None = None
    raw_private: pd.DataFrame | None = None
    test: pd.DataFrame | None = None
    encoding: str = "onehot"
    kinds: dict[str, str] = field(default_factory=dict)
    bounds: dict[str, tuple[float, float]] = field(default_factory=dict)
    categories: dict[str, list] = field(default_factory=dict)
    public_independent: bool = True
    public_origin: str = ""

    def __post_init__(self) -> None:
        columns = list(self.public.columns)
        if [c for cols in self.groups.values() for c in cols] != columns:
            raise DataError("groups must list every encoded column once, in column order.")
        for part, frame in (("private", self.private), ("test", self.test)):
            if frame is not None and list(frame.columns) != columns:
                raise DataError(f"{part} must have the same columns as public, in the same order.")
        parts = {"public": self.public, "private": self.private, "test": self.test}
        for part, frame in parts.items():
            if frame is None:
                continue
            values = frame.to_numpy(dtype=float, na_value=np.nan)
            if not ((values >= 0.0) & (values <= 1.0)).all():
                raise DataError(f"{part} must hold values in [0, 1] with no missing values.")
        if self.target is not None:
            if self.target not in columns:
                raise DataError(f"target {self.target!r} is not an encoded column.")
            if not self.public[self.target].isin((0.0, 1.0)).all():
                raise DataError(f"target {self.target!r} must hold only 0 and 1.")
        unknown = set(self.kinds.values()) - set(KINDS)
        if unknown or not set(self.kinds) <= set(self.groups):
            raise DataError(f"kinds must map groups to one of {KINDS}.")

    def check_publishable(self) -> None:
        """Refuse a release when the public set E was derived from the private set D.

        Raises
        ------
        DataError
            If :attr:`public_independent` is False: a release would carry D's own records (E = D,
            or a resample of D) and Theorem 1's assumption that E does not depend on D fails.
        """
        if not self.public_independent:
            origin = self.public_origin or "derived from the private set D"
            raise DataError(
                f"Publishing is refused: the public set E is {origin}, so a release would "
                "carry private records, and the privacy guarantee assumes that E does not depend "
                "on D. Choose the scenario's own public set (or a uniform one) to publish; the "
                "simulations on this page still run."
            )

    @property
    def binary_columns(self) -> list[str]:
        """Encoded columns that hold 0/1 by construction (one-hot, dummy and binary groups)."""
        return [
            col
            for group, cols in self.groups.items()
            if self.kinds.get(group) in ("onehot", "dummy", "binary")
            for col in cols
        ]

    @property
    def features(self) -> list[str]:
        """Names of the encoded columns."""
        return list(self.public.columns)

    @property
    def dimension(self) -> Dimension:
        """d and what it is made of (:mod:`dpcore.datasets.dimension`): what pages show."""
        return dimension(self.groups, self.target)

    @property
    def d(self) -> int:
        """The number of features after encoding: the encoded columns less the target's
        (:data:`dpcore.datasets.dimension.DEFINITION`)."""
        return self.dimension.d

    @property
    def record_l1_sensitivity(self) -> float:
        """Largest L1 change of one encoded record when it is replaced by another.

        Replace-one on the encoding's domain: a one-hot or dummy group moves at most two of its
        items (one 1 leaves, one arrives), a binary or scaled column changes by at most 1. The
        Laplace-perturbation baseline calibrates its noise to this (Ji & Elkan Sect. 5.1 count
        24 for 12 one-hot features). A column without a recorded kind counts as scaled.
        """
        bound = 0.0
        for group, cols in self.groups.items():
            kind = self.kinds.get(group, "scaled")
            bound += min(2, len(cols)) if kind in ("onehot", "dummy") else len(cols)
        return float(bound)

    @property
    def predictors(self) -> list[str]:
        """Encoded columns outside the target's group: the inputs of a model of the target."""
        target_group = next((g for g in self.groups.values() if self.target in g), [])
        return [c for c in self.features if c not in target_group]


