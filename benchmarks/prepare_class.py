"""Prepare a running explorer for a class: every view of the class's pages, at every ε, computed
once into the cache that every session shares.

Run, once the server is up (``docs/class.md``)::

    python benchmarks/prepare_class.py http://127.0.0.1:8501 [--pages importance masking]

It opens one session over Streamlit's own protocol (:func:`ui.protocol.walk`, no browser), shows
each view of each page (Publish too, never pressed) and moves the ε slider across every value,
on the pages' default settings. The students' slider moves then draw results and figures that
are already computed. About two minutes for the four pages on a 2-core machine; a second run
takes seconds (everything is cached). It spends nothing and uploads nothing.

A server started with ``streamlit run app.py`` does the same walk by itself in the background
while it is idle (:mod:`ui.warm`); this script is the explicit option: to see each view done,
to wait until everything is, or where the server cannot reach itself on localhost.
"""

from __future__ import annotations

import argparse
import sys

import timing  # noqa: F401  (first: puts the repository on the import path)

from ui.protocol import (
    CLASS_PAGES,
    ProtocolError,
    StreamlitVersionError,
    check_streamlit,
    walk,
)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", nargs="?", default="http://127.0.0.1:8501",
                        help="the server's address (default: %(default)s)")
    parser.add_argument("--pages", nargs="+", choices=CLASS_PAGES, default=list(CLASS_PAGES),
                        help="the pages to prepare (default: all four)")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds one step may take (default: %(default)s)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    def report(page: str, view: str, seconds: float) -> None:
        print(f"{page:>13} | {view:<26} {seconds:6.1f} s", flush=True)

    try:
        check_streamlit()
        seconds = walk(args.url.rstrip("/"), args.pages, timeout=args.timeout, report=report)
    except StreamlitVersionError as exc:
        print(f"Could not prepare {args.url}: {exc}", file=sys.stderr)
        return 1
    except (ProtocolError, OSError) as exc:
        print(f"Could not prepare {args.url}: {exc}. Is the explorer running there "
              "(streamlit run app.py)?", file=sys.stderr)
        return 1
    print(f"Prepared {len(args.pages)} page(s) in {seconds:.0f} s: every session now draws "
          "them from the shared cache.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
