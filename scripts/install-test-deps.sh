#!/usr/bin/env bash
# Installs what the test suite and the benchmarks need: the Python packages of
# requirements-test.txt into the clone's virtual environment .venv (scripts/install.sh, which
# creates it) and, where they are missing, two Debian packages: chromium for the real-browser
# tests (Playwright drives /usr/bin/chromium; `playwright install` cannot download browsers on
# these machines) and haproxy for scripts/serve_class.py and its test (several processes behind
# a proxy).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh requirements-test.txt
missing=()
if [ ! -x /usr/bin/chromium ]; then missing+=(chromium); fi
if ! command -v haproxy >/dev/null && [ ! -x /usr/sbin/haproxy ]; then missing+=(haproxy); fi
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
