"""Everything of the user's that the reader opens with a collection, opened together (in the
reader's load worker): bookmarks, read state, search history, the session to restore, and what is
new in the collection since the last visit.

All of it lives in the data folder (``paths.data_dir()``, beside bookmarks.json): ``read.json``,
``history.json``, ``session.json`` and ``collections/<collection key>.json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tui_reader.corpus.corpus import Corpus
from tui_reader.library.arrivals import Arrivals, ArrivalStore, collection_file
from tui_reader.library.bookmarks import BookmarkStore, ReadOnlyStore
from tui_reader.library.history import SearchHistory
from tui_reader.library.migrate_ids import migrate
from tui_reader.library.reading import ReadStore
from tui_reader.library.session import Session, SessionStore


@dataclass(slots=True)
class UserData:
    bookmarks: BookmarkStore
    read: ReadStore
    history: SearchHistory
    session: SessionStore
    arrivals: Arrivals
    restored: Session  # where the reader was in this collection last time
    warnings: list[str] = field(default_factory=list)


def open_user_data(data_dir: Path, bookmarks_path: Path, corpus: Corpus) -> UserData:
    """Open the stores and record this launch of the collection. Store problems (a corrupt file
    set aside, a newer version) become warnings, never exceptions. The bookmarks' snapshots are
    refreshed from the collection (only bookmarked ids are looked up; one write, if any changed)."""
    bookmarks = BookmarkStore(bookmarks_path)
    read = ReadStore(data_dir / "read.json")
    session = SessionStore(data_dir / "session.json")
    visits = ArrivalStore(collection_file(data_dir, corpus), [str(r) for r in corpus.roots])
    # ids saved before issue 18 renamed to the papers' ids, once per collection
    warnings: list[str] = migrate(corpus, data_dir, bookmarks, read, session, visits).warnings
    if not bookmarks.read_only:
        try:
            bookmarks.refresh_snapshots(corpus.get)
        except ReadOnlyStore as exc:
            bookmarks.warnings.append(str(exc))
    history = SearchHistory(data_dir / "history.json")
    arrived = visits.record(corpus.ids)
    restored = session.get(corpus.key)
    for store in (bookmarks, read, history, session, visits):
        warnings += [w for w in store.warnings if w not in warnings]
    return UserData(bookmarks, read, history, session, arrived, restored, warnings)
