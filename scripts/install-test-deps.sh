#!/usr/bin/env bash
# Installs what the test suite and the benchmarks need: the Python packages of
# requirements-test.txt into the clone's virtual environment .venv (scripts/install.sh, which
# creates it) and, if it is missing, Debian's chromium for the real-browser tests (Playwright
# drives /usr/bin/chromium; `playwright install` cannot download browsers on these machines).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh requirements-test.txt
if [ ! -x /usr/bin/chromium ]; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi
