"""The persistent Whoosh index: one per opened collection, kept in step with its files.

Whoosh cannot tell that a corpus file changed, so a manifest beside the index records the schema,
library versions, each source file's size and mtime, and a signature per paper. Reopening an
unchanged collection is a stat per file; a changed file updates only the papers that differ; a
schema or library change, or an index that will not open, rebuilds in a fresh folder that is then
swapped in, so a reader never sees a half-built index.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import whoosh
import whoosh.index

from tui_reader import paths
from tui_reader.atomic import atomic_write_parts, file_lock, remove_leftovers
from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.text import clean_label
from tui_reader.errors import CacheUnusable, IndexBusy, IndexDamaged
from tui_reader.search.fast import selfcheck
from tui_reader.search.index import faults, isolated, leftovers
from tui_reader.search.index import manifest as manifests
from tui_reader.search.index.manifest import Sigs, read_signatures, signatures
from tui_reader.search.index.schema import SCHEMA_VERSION, document, documents, make_schema
from tui_reader.search.index.storage import MappedStorage

Progress = Callable[[int, int, str], None]


@dataclass(slots=True)
class UpdateReport:
    action: str  # "unchanged", "updated", "built"
    added: int = 0
    removed: int = 0
    changed: int = 0
    seconds: float = 0.0
    reason: str = ""


def _versions() -> dict[str, object]:
    from tui_reader.corpus.formats import LOADER_VERSION  # a normalisation change changes ids: rebuild

    return {"schema": SCHEMA_VERSION, "whoosh": whoosh.versionstring(), "loader": LOADER_VERSION}


def codec() -> Any:
    """NpCodec, imported only when an index is written (~30 ms of a one-shot search)."""
    from tui_reader.search.index.build import codec as made

    return made()


class _InUse(Exception):
    """Another process holds the build lock and the index there is complete: use it."""


class SearchIndex:
    """One collection's index folder, its manifest, and the process's single shared searcher.
    ``isolate``: a large cold build runs in a process of its own (isolated.py); the reader sets
    it (its memory), a one-shot command need not (its memory goes back when it ends)."""

    isolate: ClassVar[bool] = False

    def __init__(self, corpus: Corpus, root: Path | None = None) -> None:
        self.corpus = corpus
        self.base = root or paths.cache_dir() / "index"
        self.dir = self.base / corpus.key
        self.lock = threading.RLock()  # Whoosh searchers are not safe to share across threads
        self._ix: whoosh.index.Index | None = None
        self._searcher = None

    # -- state ------------------------------------------------------------------------------
    @property
    def manifest_path(self) -> Path:
        return self.dir / "manifest.json"

    def _manifest(self, docs: bool = False) -> dict | None:
        """The manifest; without ``docs`` (every paper's signature) unless asked for."""
        return manifests.load(self.manifest_path, docs)

    def _write_manifest(self, sigs: Sigs, target: Path | None = None) -> None:
        """Every paper's signature (``sigs``, in corpus order) as "docs", written last."""
        folder = target or self.dir
        head = {
            **_versions(),
            "files": read_signatures(self.corpus),
            "roots": [str(r) for r in self.corpus.roots],
            "index_files": faults.index_files(folder),
            "layout": manifests.LAYOUT,
        }
        atomic_write_parts(folder / "manifest.json", manifests.encode_parts(head, self.corpus.ids, sigs))

    def status(self) -> str:
        """'fresh', 'stale' (files changed: incremental update), 'missing', 'damaged' or
        'outdated' (written by another schema, Whoosh or loader version); the last three mean a
        full build."""
        manifest = self._manifest()
        try:
            if manifest is None or not whoosh.index.exists_in(str(self.dir)):
                return "missing" if not self.dir.exists() or manifest is None else "damaged"
            if not faults.same_files(manifest.get("index_files"), faults.index_files(self.dir)):
                return "damaged"  # a segment file went missing, was cut short or overwritten
        except Exception:  # a garbled TOC makes Whoosh raise anything at all
            return "damaged"
        if {k: manifest.get(k) for k in _versions()} != _versions():
            return "outdated"
        return "fresh" if manifest.get("files") == read_signatures(self.corpus) else "stale"

    def _outdated(self) -> str:
        manifest = self._manifest() or {}
        changed = [
            f"{what} {manifest.get(what)} -> {now}"
            for what, now in _versions().items()
            if manifest.get(what) != now
        ]
        return f"the search index was made by another version ({', '.join(changed)}); rebuilt it"

    # -- building ---------------------------------------------------------------------------
    def ensure(
        self,
        progress: Progress | None = None,
        rebuild: bool = False,
        procs: int | None = None,
        wait: bool = False,
    ) -> UpdateReport:
        """Make the index match the corpus: nothing, an incremental update, or a full build.
        Raises CacheUnusable when the cache folder cannot hold it (a file where a folder should
        be, no room): one line that says which folder and why. While another process builds or
        updates it, a complete index of this collection is used as it is (a search never waits
        for someone else's rebuild), unless ``wait``; a missing one is waited for."""
        try:
            return self._ensure(progress, rebuild, procs, wait)
        except OSError as exc:
            problem = faults.cache_problem(exc, self.base)
            if problem is None:
                raise
            raise CacheUnusable(problem) from exc

    def _ensure(
        self, progress: Progress | None, rebuild: bool, procs: int | None, wait: bool
    ) -> UpdateReport:
        started = time.perf_counter()
        self.base.mkdir(parents=True, exist_ok=True)
        previous = ""  # the state of the index used while another process holds the lock

        def waiting() -> None:
            nonlocal previous
            state = "missing" if rebuild or wait else self.status()
            if state in ("fresh", "stale"):  # complete, and of this version: use it meanwhile
                previous = state
                raise _InUse
            if progress:
                progress(0, 0, "waiting for another tui-reader")

        try:
            with file_lock(leftovers.lock_path(self.base, self.corpus.key), on_wait=waiting):
                report = self._locked(progress, rebuild, procs)
        except _InUse:
            report = UpdateReport("unchanged")
            if previous == "stale":
                report.reason = "another tui-reader is updating the search index: searching the previous one"
        report.seconds = time.perf_counter() - started
        self.refresh()
        return report

    def _locked(self, progress: Progress | None, rebuild: bool, procs: int | None) -> UpdateReport:
        leftovers.sweep(self.base, held=self.corpus.key)  # what killed builds left behind
        remove_leftovers(self.dir, [".manifest.json.*.tmp"])  # a killed manifest write's
        state = "missing" if rebuild else self.status()
        report = UpdateReport("unchanged")
        if state == "damaged":
            state, report.reason = "missing", "the search index was damaged; rebuilt it"
        elif state == "outdated":
            state, report.reason = "missing", self._outdated()
        usable = (self.status() if rebuild else state) in ("fresh", "stale")  # kept if no room
        try:
            return self._change(state, report, progress, rebuild, procs)
        except OSError as exc:
            if not (usable and faults.disk_full(exc)):
                raise
            self._drop_strays()
            return UpdateReport("unchanged", reason=f"{self._full()}: searching the previous index")

    def _full(self) -> str:
        return f"the cache disk is full ({clean_label(str(self.base))})"

    def _drop_strays(self) -> None:
        """Remove what a failed update wrote beside the index (files its manifest does not
        list), so the index there stays as it was."""
        faults.drop_strays(self.dir, (self._manifest() or {}).get("index_files"))

    def _change(
        self, state: str, report: UpdateReport, progress: Progress | None, rebuild: bool, procs: int | None
    ) -> UpdateReport:
        if state == "stale":
            try:
                report = self._update(progress)
            except IndexBusy:
                raise
            except Exception as exc:  # a damaged index: start again rather than fail
                if faults.disk_full(exc):
                    raise
                state, report.reason = "missing", f"index unreadable ({exc}); rebuilt"
        if state == "missing":
            reason = report.reason or ("rebuild requested" if rebuild else "")
            report = self._build(progress, procs)
            report.reason = "; ".join(filter(None, [reason, report.reason]))
        return report

    def _build(self, progress: Progress | None, procs: int | None) -> UpdateReport:
        corpus = self.corpus
        n = len(corpus)
        staging = self.base / f"{corpus.key}.build-{secrets.token_hex(4)}"
        staging.mkdir(parents=True)
        procs = procs if procs is not None else (min(2, os.cpu_count() or 1) if n > 5000 else 1)
        reason = ""
        try:
            if isolated.wanted(corpus, self.isolate):
                asked = isolated.request(corpus, self.base, staging, procs)
                reason = isolated.build_or_here(asked, progress, lambda: self.fill(staging, procs, progress))
            else:
                self.fill(staging, procs, progress)
            self._swap_in(staging)
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
        return UpdateReport("built", added=n, reason=reason)

    def fill(self, staging: Path, procs: int, progress: Progress | None) -> None:
        """A complete index of the corpus in ``staging``: segments, then the manifest."""
        from tui_reader.search.index.build import BulkFailed, BulkUnsupported

        corpus = self.corpus
        ix = whoosh.index.create_in(str(staging), make_schema())
        try:
            self._bulk(ix, procs, progress)
        except (BulkUnsupported, BulkFailed) as exc:  # slower, but the collection gets its index
            if faults.disk_full(exc):  # Whoosh's writer would find no room either
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)) from exc
            self._standard(ix, progress)
        ix.close()
        self._write_manifest(signatures(corpus), staging)  # after the workers

    def _bulk(self, ix: whoosh.index.Index, procs: int, progress: Progress | None) -> None:
        """One segment from worker processes (see build/): ~5x faster than Whoosh's writer. It
        raises BulkUnsupported when w3's self-check switched the fast paths off."""
        from tui_reader.search.index.build import BulkBuild

        selfcheck.status()  # the gate: BulkBuild refuses when the fast paths are off
        corpus, n = self.corpus, len(self.corpus)
        writer = ix.writer(codec=codec())
        build = None
        try:
            build = BulkBuild(
                writer, n, procs=procs, progress=progress, tempdir=self.base, prefix=f"{corpus.key}.bulk-"
            )
            step = max(1, n // 200)
            for count, (i, doc) in enumerate(documents(corpus, build.order())):
                build.add(i, doc)
                if progress and build.procs == 1 and count % step == 0:
                    progress(count, n, "indexing")  # may raise to cancel (the app is quitting)
            build.finish()
            writer.commit(merge=False)
        except BaseException:
            faults.release(writer)
            raise
        finally:
            if build is not None:
                build.close()

    def _standard(self, ix: whoosh.index.Index, progress: Progress | None) -> None:
        """Whoosh's own writer, for a writer or schema build/ does not reproduce."""
        corpus, n = self.corpus, len(self.corpus)
        writer = ix.writer(limitmb=128, codec=codec())
        step = max(1, n // 200)
        try:
            for i in range(n):
                writer.add_document(**document(corpus, i))
                if progress and i % step == 0:
                    progress(i, n, "indexing")
        except BaseException:
            writer.cancel()
            raise
        writer.commit(optimize=True)

    def _swap_in(self, staging: Path) -> None:
        """Old folder aside, new one in place; the old one is removed by a later ensure() (see
        leftovers.py: a reader in another process may still have it open)."""
        self.close()
        if self.dir.exists():
            aside = self.base / f"{self.corpus.key}.old-{secrets.token_hex(4)}"
            os.replace(self.dir, aside)
            os.utime(aside)
        os.replace(staging, self.dir)

    def _update(self, progress: Progress | None) -> UpdateReport:
        corpus = self.corpus
        sigs = signatures(corpus)
        removed, added, changed = manifests.changes(self.manifest_path, corpus.ids, sigs)
        ix = MappedStorage(str(self.dir)).open_index()  # open_dir copied each segment in (3.4 GB at 2.7M)
        try:
            writer = ix.writer(timeout=30.0, delay=0.1, codec=codec())
        except whoosh.index.LockError as exc:
            raise IndexBusy("another tui-reader is writing this index") from exc
        total = len(removed) + len(added) + len(changed)
        try:
            for pid in removed:
                writer.delete_by_term("id", pid)
            for n, pid in enumerate(added + changed):
                writer.update_document(**document(corpus, corpus.index_of[pid]))
                if progress and n % 50 == 0:
                    progress(n, total, "updating")
            writer.commit()
        except BaseException:
            faults.release(writer)
            ix.close()
            raise
        ix.close()
        self._write_manifest(sigs)
        return UpdateReport("updated", len(added), len(removed), len(changed))

    # -- searching --------------------------------------------------------------------------
    def index(self) -> whoosh.index.Index:
        """The open index; IndexDamaged when Whoosh cannot open its files (the caller rebuilds)."""
        with self.lock:
            if self._ix is None:
                self._ix = self._open()
            return self._ix

    def _open(self) -> whoosh.index.Index:
        """Mapped, not copied into memory (storage.py). Another process may swap a rebuilt
        index in while we open it (readers do not wait for builds): then open the new one."""
        for attempt in range(3):
            before = faults.folder_id(self.dir)
            try:
                return MappedStorage(str(self.dir)).open_index()
            except Exception as exc:
                if attempt < 2 and (before is None or faults.folder_id(self.dir) != before):
                    time.sleep(0.05)
                    continue
                raise IndexDamaged(f"the search index is damaged: it does not open ({exc!r})") from exc
        raise AssertionError("unreachable")

    @contextlib.contextmanager
    def searcher(self) -> Iterator[Any]:
        """The one searcher, held under the lock for the duration of a search."""
        with self.lock:
            if self._searcher is None:
                ix = self.index()
                try:
                    self._searcher = ix.searcher()
                except Exception as exc:
                    raise IndexDamaged(f"the search index is damaged: it does not open ({exc!r})") from exc
            yield self._searcher

    def refresh(self) -> None:
        with self.lock:
            if self._searcher is not None:
                self._searcher = self._searcher.refresh()

    def close(self) -> None:
        with self.lock:
            if self._searcher is not None:
                self._searcher.close()
            self._searcher = None
            if self._ix is not None:
                self._ix.close()
            self._ix = None
