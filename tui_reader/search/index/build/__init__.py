"""The bulk build: one Whoosh segment for a whole collection, its postings written by worker
processes. bulk.py drives it; plan.py deals documents to workers in ranges; transport.py carries
them (pipes, run and chunk files); worker.py runs gather.py (a range into a run file, runs.py)
and merge.py (spans of terms across the runs, encoded by fast/listwriter.py); stitch.py writes
the segment. search/fast/selfcheck.py is w3's self-check (a sample built both ways, then
searched). Whoosh's internals are w3's alone."""

from tui_reader.search.fast.codec import NpCodec
from tui_reader.search.index.build.bulk import BulkBuild, BulkFailed, BulkUnsupported

__all__ = ["BulkBuild", "BulkFailed", "BulkUnsupported", "codec"]


def codec() -> NpCodec:
    """The codec every segment of an index is written with -- the bulk build, Whoosh's writer as
    its fallback, incremental updates and their merges (persistent.py): array posting blocks."""
    return NpCodec()
