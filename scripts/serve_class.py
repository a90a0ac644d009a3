"""A bigger room: several ``streamlit run app.py`` processes behind HAProxy, sticky per session.

Run: ``python scripts/serve_class.py [--processes N] [--port 8501] [--address 0.0.0.0]
[--store DIR] [--prepare]`` (``docs/class.md``). Stop it with Ctrl-C (or SIGTERM): it stops
what it started.

One Python process serves about one core (its sessions' scripts share the interpreter's lock),
so this starts N of them (default: one per core) on free ports of 127.0.0.1 and HAProxy in
front on ``--address:--port``:

* **Sticky sessions by cookie**: a session's WebSocket (``/_stcore/stream``) and its HTTP
  requests (uploads, media) must reach the process that holds the session. The first answer
  to a browser sets the cookie ``explorer_server`` naming a process (new visitors go round
  robin); every later request carries it. (Hashing the client's address would send a whole
  room behind one NAT, or every simulated user of ``benchmarks/bench_load.py``, to one
  process.)
* **Idle sessions stay open**: ``timeout tunnel`` lets a WebSocket idle for hours (a student
  reading); HTTP requests keep short timeouts.
* **Built-in studies computed once for all the processes**: every process gets
  ``EXPLORER_SHARED_DIR``, a directory where the shared store keeps built-in results on disk
  (:mod:`ui.diskstore`; uploads never go there). Without ``--store``, a new temporary
  directory, removed on exit; with it, the directory is kept (results computed by the same
  code are read again after a restart).
* **Prepared, each process**: with ``--prepare``, before the proxy opens, each process in turn
  is prepared as ``benchmarks/prepare_class.py`` prepares one server (every view of the
  class's pages at every ε): the first computes and writes the results to the store, the
  others read them from it (and import the app's modules, which a process's first visitor
  would otherwise wait for).
* **Memory**: each process's upload limit (``EXPLORER_MEMORY_LIMIT_MB``, :mod:`ui.memory`) is its
  share of 80 % of the machine, unless the variable is set.

HAProxy comes from Debian: when it is missing, it is installed with ``apt-get`` (as root, or
through ``sudo``), as ``scripts/install-test-deps.sh`` does; ``--no-install`` refuses instead.
The launcher prints one line ``serving http://ADDRESS:PORT`` once every process answers.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.error import URLError
from urllib.request import urlopen

ROOT = Path(__file__).resolve().parents[1]
COOKIE = "explorer_server"
STARTUP_TIMEOUT = 120.0
_SHARE_OF_MACHINE = 0.8
#: HAProxy's configuration; ``timeout tunnel`` is the WebSocket's idle limit once upgraded.
HAPROXY_CONFIG = """\
global
    maxconn 4096

defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 600s
    timeout http-request 30s
    timeout tunnel 8h
    timeout client-fin 30s

frontend explorer
    bind {address}:{port}
    default_backend streamlit

backend streamlit
    balance roundrobin
    cookie {cookie} insert indirect nocache httponly
    option httpchk GET /_stcore/health
{servers}
"""


def haproxy(install: bool = True) -> str:
    """The path of ``haproxy``, installed from Debian first when it is missing and ``install``.

    Raises
    ------
    RuntimeError
        When it is missing and cannot (or may not) be installed.
    """
    found = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/sbin")
    if found:
        return found
    if not install:
        raise RuntimeError("haproxy is not installed: run `apt-get install haproxy` (Debian), "
                           "or drop --no-install to let this script install it")
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    try:
        subprocess.run([*sudo, "apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run([*sudo, "apt-get", "install", "-y", "-qq", "haproxy"], check=True, env=env,
                       stdout=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise RuntimeError(f"could not install haproxy with apt-get ({exc}); install it "
                           "yourself (`apt-get install haproxy`) and run this again") from exc
    found = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/sbin")
    if not found:
        raise RuntimeError("apt-get installed haproxy, but no haproxy command was found")
    return found


def free_port() -> int:
    """A free TCP port of 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def config(address: str, port: int, backends: list[int]) -> str:
    """HAProxy's configuration for ``backends`` (ports of 127.0.0.1), listening on
    ``address:port``."""
    servers = "\n".join(f"    server s{i} 127.0.0.1:{p} check cookie s{i}"
                        for i, p in enumerate(backends))
    return HAPROXY_CONFIG.format(address=address, port=port, cookie=COOKIE, servers=servers)


def process_env(store: Path, processes: int) -> dict[str, str]:
    """The environment of each ``streamlit run``: one BLAS thread, the shared store on disk,
    and a share of the machine's memory for uploads."""
    env = dict(os.environ, EXPLORER_SHARED_DIR=str(store))
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(variable, "1")
    if "EXPLORER_MEMORY_LIMIT_MB" not in env:
        with open("/proc/meminfo") as meminfo:
            total_mb = next(int(line.split()[1]) for line in meminfo
                            if line.startswith("MemTotal:")) / 1024
        env["EXPLORER_MEMORY_LIMIT_MB"] = f"{_SHARE_OF_MACHINE * total_mb / processes:.0f}"
    return env


def wait_healthy(url: str, children: list[subprocess.Popen]) -> None:
    """Wait until ``url/_stcore/health`` answers.

    Raises
    ------
    RuntimeError
        When a child exits first, or after :data:`STARTUP_TIMEOUT` seconds.
    """
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        for child in children:
            if child.poll() is not None:
                raise RuntimeError(f"{child.args[0]} exited with {child.returncode}")
        try:
            with urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                if answer.status == 200:
                    return
        except (URLError, OSError):
            pass
        time.sleep(0.25)
    raise RuntimeError(f"{url} was not healthy after {STARTUP_TIMEOUT:.0f} s")


def prepare(url: str, python: str) -> None:
    """``benchmarks/prepare_class.py url``, its time printed.

    Raises
    ------
    RuntimeError
        When the preparation fails.
    """
    began = time.perf_counter()
    done = subprocess.run([python, "benchmarks/prepare_class.py", url], cwd=ROOT,
                          stdout=subprocess.DEVNULL, check=False)
    if done.returncode:
        raise RuntimeError(f"could not prepare the process at {url}")
    print(f"prepared {url} in {time.perf_counter() - began:.0f} s", flush=True)


def stop(children: list[subprocess.Popen]) -> None:
    """SIGTERM to each child, then SIGKILL to those still running after 10 s."""
    for child in children:
        if child.poll() is None:
            child.terminate()
    deadline = time.monotonic() + 10
    for child in children:
        try:
            child.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def serve(args: argparse.Namespace) -> int:
    """Start the processes and the proxy, wait for a signal or a child's exit, stop them."""
    proxy = haproxy(install=not args.no_install)
    temporary = Path(tempfile.mkdtemp(prefix="explorer-class-"))
    store = args.store or temporary / "store"
    store.mkdir(mode=0o700, parents=True, exist_ok=True)
    env = process_env(store, args.processes)
    children: list[subprocess.Popen] = []
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    try:
        ports = [free_port() for _ in range(args.processes)]
        for port in ports:
            children.append(subprocess.Popen([
                args.python, "-m", "streamlit", "run", "app.py",
                "--server.port", str(port),
                "--server.address", "127.0.0.1",
                "--server.headless", "true",
                "--browser.gatherUsageStats", "false",
                "--server.fileWatcherType", "none",
            ], cwd=ROOT, env=env))  # fmt: skip
        for port in ports:
            wait_healthy(f"http://127.0.0.1:{port}", children)
        if args.prepare:
            for port in ports:
                prepare(f"http://127.0.0.1:{port}", args.python)
        (temporary / "haproxy.cfg").write_text(config(args.address, args.port, ports))
        children.append(subprocess.Popen([proxy, "-db", "-f", str(temporary / "haproxy.cfg")]))
        wait_healthy(f"http://127.0.0.1:{args.port}", children)
        print(f"serving http://{args.address}:{args.port} with {args.processes} processes "
              f"(store {store}, launcher pid {os.getpid()})", flush=True)
        while not stopping and all(child.poll() is None for child in children):
            time.sleep(0.5)
        exited = [child for child in children if child.poll() is not None]
        for child in exited:
            print(f"{child.args[0]} exited with {child.returncode}", file=sys.stderr)
        return 1 if exited and not stopping else 0
    except KeyboardInterrupt:
        return 0
    finally:
        stop(children)
        shutil.rmtree(temporary, ignore_errors=True)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1,
                        help="streamlit processes (default: one per core)")
    parser.add_argument("--port", type=int, default=8501, help="the proxy's port")
    parser.add_argument("--address", default="127.0.0.1",
                        help="the proxy's address (0.0.0.0 to serve a room)")
    parser.add_argument("--store", type=Path,
                        help="the built-in results' directory, kept on exit (default: a "
                             "temporary one, removed on exit)")
    parser.add_argument("--prepare", action="store_true",
                        help="prepare each process before the proxy opens (prepare_class.py)")
    parser.add_argument("--python", default=sys.executable,
                        help="the Python that runs streamlit (default: this one)")
    parser.add_argument("--no-install", action="store_true",
                        help="refuse to start when haproxy is missing instead of installing it")
    args = parser.parse_args(argv)
    if args.processes < 1:
        parser.error("--processes >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        return serve(args)
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
