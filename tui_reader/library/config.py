"""The user's configuration: ``$XDG_CONFIG_HOME/tui-reader/config.toml`` (``TUI_READER_CONFIG``
names another file). Read with the standard library's tomllib; every setting is optional::

    theme = "nord"          # one of Textual's themes; picking one in the palette saves it here
    sort = "year"           # the order a collection opens in: relevance, year, venue, title, added
    read_delay = 1.5        # seconds a paper's detail is shown before it counts as read; 0: never

    [keys]                  # action = key (tui-reader config lists the actions)
    open_link = "O"

A mistake never stops the reader: each problem is one line naming the file and the line, and that
entry keeps its default while the others apply. A line that is not TOML at all is left out and the
rest of the file is read again. Saving the theme rewrites only the ``theme = ...`` line (or adds
one), under the file lock and atomically, so comments and everything else stay as written.

No Textual here (the command line prints the configuration without loading it): the callers pass
the action names, their default keys and the theme names in.
"""

from __future__ import annotations

import json
import re
import tomllib
import unicodedata
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tui_reader.atomic import atomic_write_bytes, file_lock, open_regular, real_path
from tui_reader.corpus.text import clean_label
from tui_reader.library.sorting import SORTS

DEFAULT_SORT = "relevance"
DEFAULT_READ_DELAY = 1.5
MAX_READ_DELAY = 3600.0
MAX_BYTES = 2**20
MAX_RETRIES = 20  # lines left out of a file that is not TOML before giving up on it
SETTINGS = ("theme", "sort", "read_delay", "keys")

_TABLE = re.compile(r"^\s*\[")
_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
_MODIFIERS = ("ctrl", "alt", "shift", "meta", "super", "hyper")
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
# Textual's names for characters whose Unicode name it shortens (textual.keys)
_REPLACED = {
    "solidus": "slash",
    "reverse_solidus": "backslash",
    "commercial_at": "at",
    "hyphen_minus": "minus",
    "plus_sign": "plus",
    "low_line": "underscore",
}
# Keys a terminal sends as the same code as another key: Textual sees only the other one, so a
# binding to them would never fire (and the footer would show it, as "^[" for ctrl+[).
_TERMINAL_SAME = {
    "ctrl+i": "tab",
    "ctrl+m": "enter",
    "ctrl+h": "backspace",
    "ctrl+left_square_bracket": "escape",
    "ctrl+left_square_brace": "escape",
}


class ConfigNotSaved(Exception):
    """The theme could not be written to the configuration file; the message says why."""


@dataclass(slots=True)
class Config:
    path: Path
    found: bool = False
    theme: str | None = None
    sort: str = DEFAULT_SORT
    read_delay: float = DEFAULT_READ_DELAY
    keys: dict[str, str] = field(default_factory=dict)  # action -> key, the user's (valid) choices
    problems: list[str] = field(default_factory=list)


# -- keys ---------------------------------------------------------------------------------------
def _key_name(char: str) -> str:
    """A character as Textual names its key ("/" -> "slash", "?" -> "question_mark")."""
    if char.isalnum():
        return char
    try:
        name = unicodedata.name(char).lower().replace("-", "_").replace(" ", "_")
    except ValueError:
        return char
    return _REPLACED.get(name, name)


def normalise_key(spec: str) -> str | None:
    """A key spec ("O", "ctrl+o", "/", "f5, x") in Textual's form, or None if it is not one."""
    out = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            return None
        if part == "+" or part.endswith("++"):
            mods, last = part[:-1].rstrip("+").split("+") if len(part) > 1 else [], "+"
        else:
            *mods, last = part.split("+")
        mods = [m.strip().lower() for m in mods if m.strip() or None]
        if any(m not in _MODIFIERS for m in mods) or not last:
            return None
        if len(last) == 1:
            if not last.isprintable() or last.isspace():
                return None
            name = _key_name(last)
        else:
            name = last.lower()
            if not _NAME.match(name):
                return None
        out.append("+".join([*mods, name]))
    return ",".join(out)


def terminal_same(key: str) -> str | None:
    """The key a terminal sends instead of ``key`` (Textual's form), if it cannot send its own:
    ``ctrl+i`` arrives as tab. Shift changes nothing for these; the letter's case neither."""
    *mods, last = key.split("+") if key != "+" else ["+"]
    if "ctrl" not in mods or set(mods) - {"ctrl", "shift"}:
        return None
    return _TERMINAL_SAME.get(f"ctrl+{last.lower()}")


# -- reading ------------------------------------------------------------------------------------
def line_of(text: str, table: str, key: str) -> int | None:
    """The line (1-based) where ``key`` is set in ``[table]`` ('' for the top level)."""
    current = ""
    plain = re.escape(key)
    setting = re.compile(rf"""^\s*(?:{plain}|"{plain}"|'{plain}')\s*=""")
    dotted = re.compile(rf"""^\s*{re.escape(table)}\s*\.\s*{plain}\s*=""") if table else None
    for n, line in enumerate(text.splitlines(), 1):
        header = re.match(r"^\s*\[+\s*([^\]]*?)\s*\]", line)
        if header:
            current = header.group(1).strip().strip("\"'")
            continue
        if current == table and setting.match(line):
            return n
        if current == "" and dotted is not None and dotted.match(line):
            return n
    return None


class _Reader:
    def __init__(self, path: Path, text: str) -> None:
        self.path, self.text = path, text
        self.problems: list[str] = []

    def where(self, table: str, key: str) -> str:
        n = line_of(self.text, table, key)
        shown = clean_label(str(self.path))
        return f"{shown}, line {n}" if n else shown

    def problem(self, table: str, key: str, message: str) -> None:
        self.problems.append(f"{self.where(table, key)}: {message}")

    def parse(self) -> dict[str, object]:
        """The file as TOML; a line that breaks it is reported and left out, and the rest read."""
        lines = self.text.splitlines()
        for _ in range(MAX_RETRIES):
            try:
                return tomllib.loads("\n".join(lines))
            except tomllib.TOMLDecodeError as exc:
                message = str(exc)
                at = _POSITION.search(message)
                reason = _POSITION.sub("", message)
                shown = clean_label(str(self.path))
                if at is None or not (1 <= int(at.group(1)) <= len(lines)):
                    self.problems.append(f"{shown}: not valid TOML ({reason}); using the defaults")
                    return {}
                n = int(at.group(1))
                self.problems.append(
                    f"{shown}, line {n}, column {at.group(2)}: not valid TOML ({reason}); line ignored"
                )
                lines[n - 1] = ""
        self.problems.append(f"{clean_label(str(self.path))}: too many errors; using the defaults")
        return {}


def _value(value: object) -> str:
    return clean_label(json.dumps(value, ensure_ascii=False, default=str))[:80]


def load_config(
    path: Path,
    actions: Mapping[str, str],
    themes: Collection[str] | None = None,
    reserved: Mapping[str, str] | None = None,
) -> Config:
    """Read the configuration. ``actions`` maps each action to its default key (Textual's form),
    ``themes`` the theme names (None: not checked), ``reserved`` keys that panes own to what they
    do there. Never raises: problems are in ``Config.problems``."""
    config = Config(path)
    shown = clean_label(str(path))
    try:
        with open_regular(path) as fh:
            raw = fh.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return config
    except OSError as exc:
        config.problems.append(f"cannot read {shown} ({exc.strerror or exc}); using the defaults")
        return config
    config.found = True
    if len(raw) > MAX_BYTES:
        config.problems.append(f"{shown} is larger than 1 MiB; using the defaults")
        return config
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        config.problems.append(f"{shown} is not UTF-8 text (byte {exc.start}); using the defaults")
        return config
    reader = _Reader(path, text)
    data = reader.parse()
    for name, value in data.items():
        if name == "theme":
            if not isinstance(value, str) or (themes is not None and value not in themes):
                known = f" ({', '.join(sorted(themes))})" if themes is not None else ""
                reader.problem("", name, f"theme {_value(value)} is not one of Textual's themes{known}")
            else:
                config.theme = value
        elif name == "sort":
            if value in SORTS:
                config.sort = str(value)
            else:
                choices = ", ".join(SORTS)
                reader.problem(
                    "", name, f"sort must be one of {choices}, not {_value(value)}; using {DEFAULT_SORT}"
                )
        elif name == "read_delay":
            number = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else -1.0
            if 0 <= number <= MAX_READ_DELAY:
                config.read_delay = number
            else:
                reader.problem(
                    "",
                    name,
                    f"read_delay must be a number of seconds from 0 (never) to {MAX_READ_DELAY:g}, "
                    f"not {_value(value)}; using {DEFAULT_READ_DELAY:g}",
                )
        elif name == "keys":
            if isinstance(value, dict):
                config.keys = _keys(reader, value, actions, reserved or {})
            else:
                reader.problem("", name, 'keys must be a table: [keys] then lines like open_link = "O"')
        else:
            reader.problem(
                "", name, f"unknown setting {_value(name)} (settings: {', '.join(SETTINGS)}); ignored"
            )
    config.problems += reader.problems
    return config


def _keys(
    reader: _Reader, table: dict[str, object], actions: Mapping[str, str], reserved: Mapping[str, str]
) -> dict[str, str]:
    chosen: dict[str, str] = {}
    for action, spec in table.items():
        if action not in actions:
            reader.problem(
                "keys", action, f"no action {_value(action)} (tui-reader config lists them); ignored"
            )
            continue
        keys = normalise_key(spec) if isinstance(spec, str) else None
        if keys is None:
            reader.problem("keys", action, f"{_value(spec)} is not a key; keeping {_value(actions[action])}")
            continue
        same = next((k for k in keys.split(",") if terminal_same(k)), None)
        if same is not None:
            reader.problem(
                "keys",
                action,
                f"{_value(same)} reaches the reader as {terminal_same(same)} (a terminal sends one "
                f"code for both); keeping {_value(actions[action])}",
            )
            continue
        taken = next((k for k in keys.split(",") if k in reserved), None)
        if taken is not None:
            keeping = _value(actions[action])
            reader.problem(
                "keys", action, f"{_value(taken)} is the key for {reserved[taken]}; keeping {keeping}"
            )
            continue
        chosen[action] = keys
    # Two actions on one key: the later line gives way (a swap of two keys is fine).
    while True:
        effective = {**actions, **chosen}
        holders: dict[str, list[str]] = {}
        for action, keys in effective.items():
            for key in keys.split(","):
                holders.setdefault(key, []).append(action)
        clashes = (names for names in holders.values() if len(names) > 1 and set(names) & set(chosen))
        clash = next(clashes, None)
        if clash is None:
            return chosen
        mine = [a for a in clash if a in chosen]
        loser = max(mine, key=lambda a: line_of(reader.text, "keys", a) or 0)
        other = next(a for a in clash if a != loser)
        key = next(k for k in chosen[loser].split(",") if k in effective[other].split(","))
        reader.problem(
            "keys", loser, f"{_value(key)} is already the key of {other}; keeping {_value(actions[loser])}"
        )
        del chosen[loser]


# -- writing the theme --------------------------------------------------------------------------
def _toml_lines(text: str) -> list[str]:
    """Lines as TOML has them, each with its ending: only LF ends one (str.splitlines also
    splits at U+0085 and other breaks, which may sit inside a quoted value)."""
    return [line for line in re.split(r"(?<=\n)", text) if line]


def with_theme(text: str, theme: str) -> str:
    """The file's text with ``theme = "<theme>"`` at the top level: the existing line's value
    replaced (its comment kept), or a line added before the first table."""
    value = json.dumps(theme, ensure_ascii=False)
    lines = _toml_lines(text)
    setting = re.compile(
        r"""^(\s*(?:theme|"theme"|'theme')\s*=\s*)("(?:[^"\\]|\\.)*"|'[^']*'|[^\s#]*)(.*)$"""
    )
    first_table = len(lines)
    for n, line in enumerate(lines):
        if _TABLE.match(line):
            first_table = n
            break
        body = line.rstrip("\r\n")
        found = setting.match(body)
        if found:
            lines[n] = found.group(1) + value + found.group(3) + line[len(body) :]
            return "".join(lines)
    if not text:
        return f"# tui-reader settings (`tui-reader config` shows them all)\ntheme = {value}\n"
    if first_table == len(lines):
        ending = "" if text.endswith("\n") else "\n"
        return text + ending + f"theme = {value}\n"
    lines.insert(first_table, f"theme = {value}\n\n")
    return "".join(lines)


def save_theme(path: Path, theme: str) -> None:
    """Record the theme in the configuration file (created if need be). Raises ConfigNotSaved
    with a message fit for the user; the file is then unchanged."""
    target = real_path(path)
    shown = clean_label(str(path))
    try:
        with file_lock(target):
            try:
                with open_regular(target) as fh:
                    raw = fh.read(MAX_BYTES + 1)
            except FileNotFoundError:
                raw = b""
            if len(raw) > MAX_BYTES:
                raise ConfigNotSaved(f"{shown} is larger than 1 MiB")
            try:
                text = raw.decode("utf-8")
                tomllib.loads(text)
            except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
                raise ConfigNotSaved(f"{shown} has an error to fix first ({exc})") from exc
            new = with_theme(text, theme)
            if tomllib.loads(new).get("theme") != theme:
                raise ConfigNotSaved(f"could not find where to write the theme in {shown}")
            atomic_write_bytes(target, new.encode("utf-8"))
    except OSError as exc:
        raise ConfigNotSaved(f"cannot write {shown} ({(exc.strerror or str(exc)).lower()})") from exc


# -- showing ------------------------------------------------------------------------------------
def as_toml(config: Config, actions: Mapping[str, str], helps: Mapping[str, str], default_theme: str) -> str:
    """The effective configuration as a config file would say it, every action listed."""
    lines = [
        f"theme = {json.dumps(config.theme or default_theme)}",
        f"sort = {json.dumps(config.sort)}  # {', '.join(SORTS)}",
        f"read_delay = {config.read_delay:g}  # seconds; 0: only Enter and u mark papers read",
        "",
        "[keys]  # action = key",
    ]
    width = max((len(a) for a in actions), default=0)
    for action, default in actions.items():
        key = config.keys.get(action, default)
        mark = "" if action not in config.keys else f" (default {json.dumps(default)})"
        setting = f"{action} = {json.dumps(key)}"
        lines.append(f"{setting:<{width + 18}}# {helps.get(action, '')}{mark}")
    return "\n".join(lines) + "\n"
