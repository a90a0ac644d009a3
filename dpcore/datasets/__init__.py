"""Datasets: built-in scenarios, CSV uploads and their encoding into a :class:`Scenario`.

A scenario is a public set E and a private set D, encoded into ``[0, 1]^d`` the way every mechanism
expects, with everything that shapes a release (columns, categories, ranges, d) taken from public
information only.

Modules
-------
``scenario``
    :class:`Scenario`, the encoded pair.
``encoding``
    :class:`TabularEncoder` (one-hot items, scaling by fixed or public bounds) and
    :func:`biased_split`.
``builtin``
    The built-in scenarios: :func:`list_scenarios`, :func:`load_scenario`, :func:`replace_public`.
``reading``
    :func:`read_csv_upload` (bytes of one uploaded CSV to a DataFrame; ``private=True`` for a
    file with private rows), :func:`type_columns`, :func:`infer_column_types`.
``columns``
    :func:`columns_to_leave_out` (dates, IDs), :func:`target_classes`, :func:`as_categories`:
    the column choices of an upload, read off the public file.
``leaks``
    :func:`target_leaks`: the columns that alone predict the target on the public rows.
``uploads``
    :func:`align_columns`, :func:`split_by_value`, :func:`split_random`,
    :func:`scenario_from_uploads` (two frames to a :class:`Scenario` and an :class:`UploadReport`).
"""

from dpcore.datasets.builtin import (
    PUBLIC_OPTIONS,
    list_scenarios,
    load_scenario,
    replace_public,
    scenario_title,
)
from dpcore.datasets.columns import as_categories, columns_to_leave_out, target_classes
from dpcore.datasets.encoding import TabularEncoder, biased_split, item_name
from dpcore.datasets.leaks import Leak, target_leaks
from dpcore.datasets.reading import (
    MAX_COLUMNS,
    MAX_UPLOAD_BYTES,
    NA_VALUES,
    MostlyNumbersError,
    infer_column_types,
    read_csv_upload,
    type_columns,
)
from dpcore.datasets.scenario import KINDS, Scenario
from dpcore.datasets.uploads import (
    MAX_CLASSES,
    MAX_FEATURES,
    MAX_SPLIT_VALUES,
    OVERLAP_WARNING,
    PUBLIC_MISSING,
    TARGET_NAMES,
    UploadReport,
    align_columns,
    likely_target,
    scenario_from_uploads,
    split_by_value,
    split_columns,
    split_random,
)

__all__ = [
    "KINDS",
    "MAX_COLUMNS",
    "MAX_CLASSES",
    "MAX_FEATURES",
    "MAX_SPLIT_VALUES",
    "MAX_UPLOAD_BYTES",
    "NA_VALUES",
    "MostlyNumbersError",
    "Leak",
    "OVERLAP_WARNING",
    "PUBLIC_MISSING",
    "PUBLIC_OPTIONS",
    "Scenario",
    "TARGET_NAMES",
    "TabularEncoder",
    "UploadReport",
    "align_columns",
    "as_categories",
    "biased_split",
    "columns_to_leave_out",
    "infer_column_types",
    "item_name",
    "likely_target",
    "list_scenarios",
    "load_scenario",
    "read_csv_upload",
    "replace_public",
    "scenario_from_uploads",
    "scenario_title",
    "split_by_value",
    "split_columns",
    "split_random",
    "target_classes",
    "target_leaks",
    "type_columns",
]
