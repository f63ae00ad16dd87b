"""Exceptions callers catch without importing Whoosh (the reader paints before Whoosh loads)."""


class IndexBusy(Exception):
    """Another process holds the index's write lock for longer than we are willing to wait."""


class IndexDamaged(Exception):
    """A search failed inside Whoosh's files: the index must be rebuilt."""


class CacheUnusable(OSError):
    """The cache folder cannot hold the search index (a file where a folder should be, no room,
    no permission): the message says which folder and why, in one line."""
