"""The bulk build: one Whoosh segment for a whole collection, its postings written by worker
processes. bulk.py drives it; plan.py deals documents to workers in ranges; transport.py carries
them (pipes, part files); worker.py gathers and writes postings; stitch.py writes the segment.
search/fast/selfcheck.py is w3's self-check (a sample built both ways, then searched).
Whoosh's internals are w3's alone."""

from tui_reader.search.index.build.bulk import BulkBuild, BulkFailed, BulkUnsupported

__all__ = ["BulkBuild", "BulkFailed", "BulkUnsupported"]
