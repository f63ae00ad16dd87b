"""What the fuzz targets share: the profiles, a time budget per target, a hang guard, and the
mutations of real files (as SQLite's fuzzers start from real databases and queries).

A target is ``run(name, strategy, check)``: one Hypothesis run in the smoke profile (the normal
test run); under the fuzz profile, runs of FUZZ_CHUNK new random examples one after another until
the target's FUZZ_SECONDS are used, so ``make fuzz`` is bounded by time. The inputs each target
tried are printed at the end of the session (conftest.py).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sys
import time
import traceback
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import TypeVar

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

T = TypeVar("T")
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "formats"
SEEDS = ROOT / "seeds"

_QUIET = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large]
settings.register_profile(
    "smoke",  # the normal test run: a few examples per target, the same ones every time
    max_examples=8,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=_QUIET,
    print_blob=True,
)
settings.register_profile(
    "fuzz",  # make fuzz: many examples, new ones every run, bounded by FUZZ_SECONDS per target
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "100000")),
    deadline=None,
    derandomize=False,
    database=None,
    suppress_health_check=_QUIET,
    print_blob=True,
)


def profile_name() -> str:
    """HYPOTHESIS_PROFILE, else the one --hypothesis-profile loaded; smoke unless it is fuzz."""
    name = os.environ.get("HYPOTHESIS_PROFILE") or settings._current_profile or "smoke"
    return "fuzz" if name == "fuzz" else "smoke"


def fuzz_settings() -> settings:
    return settings.get_profile(profile_name())


FUZZING = profile_name() == "fuzz"
SECONDS = float(os.environ.get("FUZZ_SECONDS", "30")) if FUZZING else float("inf")
HANG_SECONDS = int(os.environ.get("FUZZ_HANG_SECONDS", "20"))


CHUNK = int(os.environ.get("FUZZ_CHUNK", "200"))
TRIED: dict[str, tuple[int, float]] = {}  # target -> (inputs tried, seconds)


def run(name: str, strategy: st.SearchStrategy[T], check: Callable[[T], None]) -> None:
    """Try ``check`` on inputs drawn from ``strategy`` (see the module's docstring)."""
    count = 0

    def once(value: T) -> None:
        nonlocal count
        count += 1
        check(value)

    start = time.monotonic()
    found: list[BaseException] = []
    try:
        while True:
            chunk = settings(fuzz_settings(), max_examples=CHUNK) if FUZZING else fuzz_settings()
            try:
                settings(chunk)(given(strategy)(once))()
            except Exception as exc:  # fuzzing: say it, and look for more until the time is up
                if not FUZZING:
                    raise
                found.append(exc)
                print(f"=== {name}: finding {len(found)} ===", file=sys.stderr)
                print("".join(traceback.format_exception(exc))[-6000:], file=sys.stderr)
            if not FUZZING or time.monotonic() - start > SECONDS:
                break
    finally:
        TRIED[name] = (count, time.monotonic() - start)
    if found:
        raise found[0]


def tally(name: str) -> None:
    """Count ``name`` in the statistics (--hypothesis-show-statistics); nothing outside a run."""
    with contextlib.suppress(InvalidArgument):
        event(name)


class Hang(Exception):
    """An example ran longer than FUZZ_HANG_SECONDS."""


@contextlib.contextmanager
def no_hang(seconds: int = HANG_SECONDS) -> Iterator[None]:
    """Raise Hang in the main thread if the block runs longer than ``seconds``."""

    def ring(_signum: int, _frame: FrameType | None) -> None:
        raise Hang(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


# -- mutations ------------------------------------------------------------------------------
TOKENS = [
    b"\x00",
    b"\x07",
    b"\x08",
    b"\x0b",
    b"\x0c",
    b"\r",
    b"\r\n",
    b"\t",
    b"\x1b]0;owned\x07",
    b"\x1b]8;;http://evil\x1b\\",
    b"\x1b[2J",
    b"\x1b[31m",
    b"\xc2\x85",  # NEL (C1)
    b"\xc2\x9b31m",  # 8-bit CSI
    b"\xe2\x80\xae",  # RLO
    b"\xe2\x80\x8b",  # zero width space
    b"\xe2\x80\xa8",  # line separator
    b"\xef\xbb\xbf",  # BOM
    b"\xed\xa0\x80",  # a surrogate, as bytes
    b"\xff\xfe",
    b"\x80",
    b"\xf0\x9d\x95\x8f" * 200,  # astral letters
    ("\u0301" * 50).encode(),  # combining marks
    "\U0010ffff".encode(),
    b"{",
    b"}",
    b"{{{{{{{{{{",
    b"}}}}}}}}}}",
    b'"',
    b"'",
    b"\\",
    b"\\\\",
    b"$",
    b"%",
    b"#",
    b"@",
    b",",
    b"=",
    b"[",
    b"]",
    b"\n",
    b"\n\n",
    b"@article{k,",
    b"@string{a = {x}}",
    b"@comment{",
    b"@preamble{\\def\\x{y}}",
    b"title = {",
    b"url = {\\url{https://ex.org/a b}}",
    b"doi = {10.1234/\x1b]0;x\x07}",
    b"\\input{/etc/passwd}",
    b"\\url{javascript:alert(1)}",
    b"\\href{file:///etc/passwd}{x}",
    b"\\'",
    b'\\"{',
    b"\\c{",
    b"\\begin{equation}",
    b"\\end{document}",
    b"\\def\\a{\\a}\\a",
    b"\\newcommand{\\b}{\\b\\b}\\b",
    b"TY  - JOUR\n",
    b"ER  - \n",
    b"UR  - javascript:alert(1)\n",
    b"DO  - 10.1/\x1b[2J\n",
    b"AB  - ",
    b'{"title": ',
    b'"url": "file:///etc/passwd"',
    b'"DOI": "10.1/\\u001b]0;x\\u0007"',
    b'"abstract": "\\ud800"',
    b"[[[[[[[[[[[[[[[[[[[[",
    b"]]]]]",
    b"null",
    b"1e999",
    b"-0",
    b"true",
    b"9" * 400,
    b"\\u0000",
    b"\\u001b",
    b"NaN",
    b"x" * 5000,
    b" " * 300,
]
ENCODINGS = ["utf-16", "utf-16-le", "utf-16-be", "utf-8-sig", "latin-1", "cp1252", "gbk", "utf-32"]


@st.composite
def mutated(draw: st.DrawFn, seeds: list[bytes], others: list[bytes]) -> bytes:
    """A real file changed a few times: byte flips, lines deleted or repeated, splices with
    another real file, inserted tokens, truncation, or the whole re-encoded."""
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(0, 6))):
        op = draw(st.sampled_from(_OPS))
        data = bytearray(op(draw, bytes(data), others))
    return bytes(data)


def _at(draw: st.DrawFn, data: bytes) -> int:
    return draw(st.integers(0, len(data)))


def _flip(draw: st.DrawFn, data: bytes, _others: list[bytes]) -> bytes:
    if not data:
        return data
    i = draw(st.integers(0, len(data) - 1))
    return data[:i] + bytes([data[i] ^ draw(st.integers(1, 255))]) + data[i + 1 :]


def _lines(draw: st.DrawFn, data: bytes, _others: list[bytes]) -> bytes:
    lines = data.split(b"\n")
    i = draw(st.integers(0, len(lines) - 1))
    j = draw(st.integers(i, min(len(lines), i + 8)))
    how = draw(st.sampled_from(["delete", "repeat", "swap"]))
    if how == "delete":
        lines[i:j] = []
    elif how == "repeat":
        lines[i:j] = lines[i:j] * draw(st.integers(2, 5))
    else:
        k = draw(st.integers(0, len(lines) - 1))
        lines[i], lines[k] = lines[k], lines[i]
    return b"\n".join(lines)


def _splice(draw: st.DrawFn, data: bytes, others: list[bytes]) -> bytes:
    other = draw(st.sampled_from(others))
    return data[: _at(draw, data)] + other[_at(draw, other) :]


def _insert(draw: st.DrawFn, data: bytes, _others: list[bytes]) -> bytes:
    token = draw(st.sampled_from(TOKENS) | st.binary(min_size=1, max_size=8))
    i = _at(draw, data)
    return data[:i] + token + data[i:]


def _insert_text(draw: st.DrawFn, data: bytes, _others: list[bytes]) -> bytes:
    text = draw(st.text(min_size=1, max_size=20))
    i = _at(draw, data)
    return data[:i] + text.encode("utf-8", "surrogatepass") + data[i:]


def _truncate(draw: st.DrawFn, data: bytes, _others: list[bytes]) -> bytes:
    return data[: _at(draw, data)]


def _encode(draw: st.DrawFn, data: bytes, _others: list[bytes]) -> bytes:
    text = data.decode("utf-8", "replace")
    return text.encode(draw(st.sampled_from(ENCODINGS)), "replace")


_OPS = [_flip, _flip, _lines, _lines, _splice, _insert, _insert, _insert, _insert_text, _truncate, _encode]


# -- what a record must never hold ----------------------------------------------------------
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
CONTROLS_NO_TAB_NL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
URL_BAD = re.compile("[\x00-\x20\x7f-\x9f]")


def bad_chars(text: str, newline: bool) -> list[str]:
    pattern = CONTROLS if newline else CONTROLS_NO_TAB_NL
    found = pattern.findall(text)
    if not newline and "\n" in text:
        found.append("\n")
    return found


def url_problem(url: str) -> str | None:
    """None when ``url`` may be a link target: empty, or http(s) with a host, or file."""
    if not url:
        return None
    if URL_BAD.search(url):
        return "a space or control character"
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError as exc:
        return f"urlsplit refuses it ({exc})"
    if parts.scheme not in ("http", "https", "file"):
        return f"scheme {parts.scheme!r}"
    if parts.scheme != "file" and not parts.hostname:
        return "no host"
    return None
