"""The dimension d of a scenario, defined once: the number every page and the report show.

**d is the number of features after encoding**: the encoded columns of a record (one-hot items,
0/1 columns, scaled columns) less the target's own columns, which are a model's label, not its
features; an intercept is not counted. A model states what it fits on top of d: logistic
regression an intercept where its features do not carry one (d + 1 coefficients), importance
weighting the whole record, the target's columns included, and an intercept.

Examples
--------
>>> dim = Dimension(d=111, target_columns=2)
>>> dim.text()
"d = 111 features after encoding (113 encoded columns less the target's 2; intercept not counted)"
>>> dim.coefficients(intercept=True, target=True)
114
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["DEFINITION", "Dimension", "dimension"]

#: What d means, in the words every page and the report use.
DEFINITION = ("d = the number of features after encoding: the encoded columns less the "
              "target's, no intercept counted")


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


@dataclass(frozen=True)
class Dimension:
    """d of a scenario (see the module docstring), and what it is made of.

    Attributes
    ----------
    d : int
        Features after encoding: the encoded columns less the target's.
    target_columns : int, default=0
        Encoded columns of the target (0 without a target).
    """

    d: int
    target_columns: int = 0

    @property
    def columns(self) -> int:
        """Every encoded column of a record: d and the target's."""
        return self.d + self.target_columns

    def coefficients(self, *, intercept: bool, target: bool = False) -> int:
        """How many coefficients a model fits: d, the target's columns when it models whole
        records (``target``), and one more with an ``intercept``."""
        return self.d + (self.target_columns if target else 0) + int(intercept)

    def text(self) -> str:
        """d with its definition, in words."""
        if not self.target_columns:
            return f"d = {self.d:,} features after encoding (intercept not counted)"
        return (f"d = {self.d:,} features after encoding ({self.columns:,} encoded columns less "
                f"the target's {self.target_columns:,}; intercept not counted)")

    def model_text(self, *, intercept: bool, target: bool = False) -> str:
        """What a model fits, counted from d: ``"112 coefficients: d and an intercept"``."""
        parts = ["d"]
        if target and self.target_columns:
            parts.append(f"the target's {_plural(self.target_columns, 'column')}")
        if intercept:
            parts.append("an intercept")
        made = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        return (f"{_plural(self.coefficients(intercept=intercept, target=target), 'coefficient')}"
                f": {made}")


def dimension(groups: Mapping[str, Sequence[str]], target: str | None) -> Dimension:
    """d of an encoding: its columns by original feature (``groups``), less the target's group.

    >>> dimension({"age": ["age"], "income": ["income=<=50K", "income=>50K"]}, "income=>50K")
    Dimension(d=1, target_columns=2)
    """
    columns = sum(len(cols) for cols in groups.values())
    target_group = next((cols for cols in groups.values() if target in cols), ())
    return Dimension(d=columns - len(target_group), target_columns=len(target_group))
