#!/usr/bin/env bash
# Installs what the dashboard needs (requirements.txt, or the requirements file given as the first
# argument) into the clone's virtual environment .venv, which it creates where it is missing.
#
# The environment is made by `python3` (or $PYTHON), Python 3.11 or later. Debian and Ubuntu ship
# the venv module's pip bootstrap (ensurepip) in the python3-venv package: as root it is installed
# here; otherwise this says what to install. Installing into .venv, never into the system Python,
# also avoids pip's `externally-managed-environment` refusal on Debian 12.
set -euo pipefail
cd "$(dirname "$0")/.."
requirements="${1:-requirements.txt}"
python="${PYTHON:-python3}"
venv=.venv

fail() {
    echo "scripts/install.sh: $*" >&2
    exit 1
}

if ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
    command -v "$python" >/dev/null \
        || fail "no $python found: install Python 3.11 or later (Debian: apt-get install python3 python3-venv), or set PYTHON."
    "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
        || fail "$python is Python $("$python" -c 'import platform; print(platform.python_version())'); the explorer needs 3.11 or later: set PYTHON to one (e.g. PYTHON=python3.11)."
    if ! "$python" -c 'import ensurepip, venv' 2>/dev/null; then
        if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
            apt-get update -qq
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
        else
            fail "$python cannot create a virtual environment (no ensurepip): run 'sudo apt-get install python3-venv' (Debian, Ubuntu), then this again."
        fi
    fi
    # --clear: a .venv left without pip (a failed earlier attempt) is made anew.
    "$python" -m venv --clear "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
