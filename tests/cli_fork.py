"""Run ``python -m tui_reader ARGS`` as a child process forked from a server that has already
imported the command line: a few hundred CLI runs in the suite each paid ~0.2-0.3 s of CPU to
start Python and import tui_reader.cli and its corpus and numpy modules (and most, Whoosh and the
search modules: the server imports those too, see _WARM).

The child is still a separate process: its own working folder, environment, standard streams
(files), exit code and exit handlers; what the server imported is only imported (no module of
tui_reader reads the environment when imported). What it does not repeat is the
interpreter's start-up, so settings read only there (PYTHON* and locale variables) must be the
server's: a run whose environment differs in them is a real subprocess. TUI_READER_TEST_SPAWN=1
makes every run a real subprocess (tests/test_imports.py and test_layers.py check the start-up
imports in real ones).

This file is also the server: ``python tests/cli_fork.py`` reads one JSON request a line on
stdin and answers each with one JSON line when its child has exited.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
# What the interpreter reads only when it starts: a run that needs other values is spawned.
_STARTUP_PREFIXES = ("PYTHON", "LC_", "LANG")
_STARTUP_FREE = {"PYTHONIOENCODING", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED"}


def _startup_env(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(_STARTUP_PREFIXES) and k not in _STARTUP_FREE}


# ---------------------------------------------------------------- the test side


class _Server:
    def __init__(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "TUI_READER_"))}
        env["XDG_CACHE_HOME"] = env["XDG_DATA_HOME"] = env["XDG_CONFIG_HOME"] = "/nonexistent-cli-fork"
        self.env = env
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
            cwd=str(HERE.parent),
        )
        self.pid = os.getpid()

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the CLI fork server died")
        return dict(json.loads(line))

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


_server: _Server | None = None
child_cpu = 0.0  # CPU seconds of the forked runs so far (their server's children: conftest's log)


def _get_server() -> _Server:
    global _server
    if _server is None or _server.pid != os.getpid() or _server.proc.poll() is not None:
        _server = _Server()
        atexit.register(_server.close)
    return _server


def _decode(data: bytes) -> str:
    """As subprocess's text mode does: the locale's encoding, universal newlines."""
    import locale

    text = data.decode(locale.getpreferredencoding(False))
    return text.replace("\r\n", "\n").replace("\r", "\n")


def run_forked(
    args: tuple[str, ...] | list[str], cwd: Path, env: dict[str, str], timeout: float
) -> subprocess.CompletedProcess[str] | None:
    """The run's result, or None where it must be a real subprocess (see the module's doc)."""
    if os.environ.get("TUI_READER_TEST_SPAWN") == "1" or not hasattr(os, "pidfd_open"):
        return None  # asked for, or not Linux
    server = _get_server()
    if _startup_env(env) != _startup_env(server.env):
        return None
    with tempfile.TemporaryDirectory(prefix="cli-fork-") as folder:
        out, err = Path(folder) / "out", Path(folder) / "err"
        answer = server.run(
            {
                "argv": list(args),
                "cwd": str(cwd),
                "env": env,
                "out": str(out),
                "err": str(err),
                "timeout": timeout,
            }
        )
        global child_cpu
        child_cpu += float(answer.get("cpu", 0.0))
        if answer.get("timeout"):
            raise subprocess.TimeoutExpired(list(args), timeout)
        return subprocess.CompletedProcess(
            [sys.executable, "-m", "tui_reader", *args],
            int(answer["code"]),
            _decode(out.read_bytes()),
            _decode(err.read_bytes()),
        )


# ---------------------------------------------------------------- the server side


def _streams(env: dict[str, str]) -> None:
    """sys.std* on fds 0-2 as a fresh interpreter would make them for pipes."""
    import io

    spec = env.get("PYTHONIOENCODING", "")
    encoding, _, errors = spec.partition(":")
    import locale

    encoding = encoding or locale.getpreferredencoding(False)
    unbuffered = bool(env.get("PYTHONUNBUFFERED"))

    def stream(fd: int, mode: str, errs: str) -> io.TextIOWrapper:
        raw = io.FileIO(fd, mode, closefd=False)
        buffered: Any = (
            raw
            if (unbuffered and mode == "w")
            else (io.BufferedWriter(raw) if mode == "w" else io.BufferedReader(raw))
        )
        return io.TextIOWrapper(buffered, encoding=encoding, errors=errs, write_through=unbuffered)

    for name, fd, mode, errs in (
        ("stdin", 0, "r", errors or "strict"),
        ("stdout", 1, "w", errors or "strict"),
        ("stderr", 2, "w", "backslashreplace"),
    ):
        made = stream(fd, mode, errs)
        setattr(sys, name, made)
        setattr(sys, f"__{name}__", made)


def _child(request: dict[str, Any]) -> None:
    """In the forked child: become ``python -m tui_reader ARGV`` and exit with its code."""
    import atexit as child_atexit
    import traceback
    import types

    code = 1
    try:
        os.chdir(request["cwd"])
        sys.path[0] = os.getcwd()  # as -m puts it first
        os.environ.clear()
        os.environ.update(request["env"])
        null = os.open(os.devnull, os.O_RDONLY)
        out = os.open(request["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        err = os.open(request["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        for fd, target in ((null, 0), (out, 1), (err, 2)):
            os.dup2(fd, target)
            os.close(fd)
        _streams(request["env"])
        signal.signal(signal.SIGINT, signal.default_int_handler)
        main_module = types.ModuleType("__main__")  # no file: a spawned worker imports none
        sys.modules["__main__"] = main_module
        import tui_reader

        sys.argv = [str(Path(tui_reader.__file__).parent / "__main__.py"), *request["argv"]]
        from tui_reader.cli import main

        try:
            result = main()
            code = 0 if result is None else int(result)
        except SystemExit as stop:
            if stop.code is None:
                code = 0
            elif isinstance(stop.code, int):
                code = stop.code
            else:
                print(stop.code, file=sys.stderr)
                code = 1
        except BaseException:  # what the interpreter prints for an uncaught exception
            traceback.print_exc()
            code = 1
        import threading

        threading._shutdown()  # type: ignore[attr-defined]  # as the interpreter does at exit
        child_atexit._run_exitfuncs()
        for s in (sys.stdout, sys.stderr):
            try:
                s.flush()
            except Exception:  # a closed or broken stream: the interpreter ignores it too
                code = code or 120
    finally:
        os._exit(code & 0xFF)


def _wait(pid: int, timeout: float) -> tuple[int | None, bool, float]:
    """The child's exit code (negative: killed by that signal), or None after a kill (then
    True), and the CPU seconds it used."""
    fd = os.pidfd_open(pid)
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
        timed_out = not ready
        if timed_out:
            os.kill(pid, signal.SIGKILL)
        _, status, usage = os.wait4(pid, 0)
    finally:
        os.close(fd)
    cpu = usage.ru_utime + usage.ru_stime
    if timed_out:
        return None, True, cpu
    return os.waitstatus_to_exitcode(status), False, cpu


# Imported by the server too (no code of theirs run): most runs search, and each paid ~0.1 s of CPU
# to import Whoosh and the search modules. One that fails (renamed, broken) is left to the runs.
_WARM = (
    "tui_reader.search",
    "tui_reader.search.searcher",
    "tui_reader.search.opening",
    "tui_reader.search.index.persistent",
    "tui_reader.search.query.querytext",
    "tui_reader.library.bookmarks",
    "tui_reader.library.reading",
    "tui_reader.corpus.outcomes",
    "tui_reader.corpus.formats.seedtext",
    "tui_reader.corpus.formats.jsonfmt",
)


def serve() -> None:
    import importlib

    # The tree the tests are in, not the installed one (a clone's tests run the clone's CLI).
    sys.path.insert(1, str(HERE.parent.parent))
    import tui_reader.cli  # noqa: F401  (what every run would import first)

    for name in _WARM:
        with contextlib.suppress(Exception):  # a broken one fails again in the run that imports it
            importlib.import_module(name)

    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            _child(request)
        code, timed_out, cpu = _wait(pid, float(request["timeout"]))
        print(json.dumps({"code": code, "timeout": timed_out, "cpu": cpu}), flush=True)


if __name__ == "__main__":
    serve()
