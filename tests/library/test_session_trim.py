"""Issue 22, item 4: a session.json of 20,000 entries trims to LIMIT in one pass, newest kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui_reader.library import session
from tui_reader.library.session import LIMIT, Session, SessionStore


def test_a_huge_session_file_trims_to_the_newest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    n = 20_000
    # saved times out of file order: entry k was saved at second (k * 7919) % n
    entries = {f"c{k}": {"query": f"q{k}", "saved": f"2025-01-01T{(k * 7919) % n:06d}"} for k in range(n)}
    path = tmp_path / "session.json"
    path.write_text(json.dumps({"version": 1, "collections": entries, "other": [1]}))
    calls = 0
    real = session._saved

    def counted(entry: object) -> str:
        nonlocal calls
        calls += 1
        if calls > 10 * n:  # a scan per dropped entry (quadratic) would make ~4e8 calls
            raise AssertionError("the trim is not linear")
        return real(entry)

    monkeypatch.setattr(session, "_saved", counted)
    SessionStore(path).save("mine", Session(query="now"))
    doc = json.loads(path.read_text())
    kept = doc["collections"]
    newest = sorted(entries, key=lambda k: entries[k]["saved"])[-(LIMIT - 1) :]
    assert len(kept) == LIMIT and set(kept) == {*newest, "mine"}
    assert list(kept)[-1] == "mine" and [k for k in kept if k != "mine"] == [
        k for k in entries if k in newest
    ]
    assert kept["mine"]["query"] == "now" and doc["other"] == [1]
