"""Speed of reading and encoding a large upload, against ``pandas.read_csv`` in the same run.

Run: ``python benchmarks/bench_upload.py [--rows 400000] [--repeat 3]``. Generates (in memory, never
on disk) a CSV of the shape that took about 150 s on the importance page (issue 8: 400,000 rows,
10 columns, about 16 MB, numeric and text columns, a few missing cells, quoted values), then times

- reading: :func:`dpcore.datasets.read_csv_upload` against ``pandas.read_csv`` of the same bytes
  (default options: type inference, default missing-value tokens), the baseline;
- encoding: :func:`dpcore.datasets.scenario_from_uploads` of a public and a private half;
- the whole upload (two files read, aligned and encoded) against two ``pandas.read_csv`` calls.

Prints a markdown table: our time (best of ``--repeat`` runs), the baseline's time measured in this
run, and their ratio.
"""

from __future__ import annotations

import argparse
import io

import numpy as np
import pandas as pd
from timing import best_of

from dpcore.datasets import read_csv_upload, scenario_from_uploads

_WORK = ["Private", "Self", "Gov", "Local", "State", "None"]
_EDU = ["BA", "HS", "MA", "Some", "PhD", "Voc", "11th"]
_REGION = ["N", "S", "E", "W", "C", "Centre, old town"]  # one with a comma: quoted


def make_upload_csv(n_rows: int, *, seed: int = 0) -> bytes:
    """Bytes of a synthetic upload: 10 columns, about 40 bytes per row, some missing cells.

    Parameters
    ----------
    n_rows : int
        Data rows (400,000 gives about 16 MB).
    seed : int, default=0
        Seed of the generator (benchmark data, not a release).

    Returns
    -------
    bytes
        UTF-8 CSV with a header row.
    """
    rng = np.random.default_rng(seed)
    age = rng.integers(17, 91, n_rows).astype(str).astype(object)
    age[rng.random(n_rows) < 0.01] = ""  # 1 % missing
    frame = pd.DataFrame(
        {
            "age": age,
            "workclass": rng.choice(_WORK, n_rows),
            "education": rng.choice(_EDU, n_rows),
            "edu_num": rng.integers(1, 17, n_rows),
            "hours": rng.integers(1, 100, n_rows),
            "gain": rng.integers(0, 5000, n_rows),
            "sex": rng.choice(["M", "F"], n_rows),
            "region": rng.choice(_REGION, n_rows),
            "score": np.round(rng.normal(0.0, 1.0, n_rows), 2),
            "income": rng.choice(["<=50K", ">50K"], n_rows, p=[0.76, 0.24]),
        }
    )
    return frame.to_csv(index=False).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    data = make_upload_csv(args.rows, seed=0)
    half = make_upload_csv(args.rows // 2, seed=1)
    limit = 2 * len(data)

    def ours_read():
        return read_csv_upload(data, "big.csv", max_bytes=limit)

    def pandas_read():
        return pd.read_csv(io.BytesIO(data))

    t_read, frame = best_of(ours_read, args.repeat)
    t_pd, _ = best_of(pandas_read, args.repeat)
    public = read_csv_upload(half, "public.csv", max_bytes=limit)

    def ours_encode():
        return scenario_from_uploads(frame, public, target="income", positive=">50K")

    t_enc, (scenario, _) = best_of(ours_encode, args.repeat)

    def ours_upload():
        private = read_csv_upload(data, "private.csv", max_bytes=limit)
        pub = read_csv_upload(half, "public.csv", max_bytes=limit)
        return scenario_from_uploads(private, pub, target="income", positive=">50K")

    def pandas_upload():
        return pd.read_csv(io.BytesIO(data)), pd.read_csv(io.BytesIO(half))

    t_all, _ = best_of(ours_upload, args.repeat)
    t_pd_all, _ = best_of(pandas_upload, args.repeat)

    mb, mb_half = len(data) / 2**20, len(half) / 2**20
    print(
        f"Upload of {args.rows:,} private rows ({mb:.1f} MB) and {args.rows // 2:,} public rows "
        f"({mb_half:.1f} MB), 10 columns -> d = {scenario.d}; best of {args.repeat}.\n"
    )
    print("| step | ours (s) | baseline | baseline (s) | ratio |")
    print("|---|---:|---|---:|---:|")
    rows = [
        ("read_csv_upload (private file)", t_read, "pandas.read_csv, same bytes", t_pd),
        ("scenario_from_uploads (align + encode)", t_enc, "pandas.read_csv of the private file",
         t_pd),
        ("whole upload: read both + encode", t_all, "pandas.read_csv of both files", t_pd_all),
    ]  # fmt: skip
    for step, ours, base, t_base in rows:
        print(f"| {step} | {ours:.2f} | {base} | {t_base:.2f} | {ours / t_base:.1f}x |")


if __name__ == "__main__":
    main()
