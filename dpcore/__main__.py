"""``python -m dpcore``: the command line (see :mod:`dpcore.cli`)."""

import sys

from dpcore.cli import main

if __name__ == "__main__":
    sys.exit(main())
