"""A bulk-build worker: analyse ranges of documents, write each range's posting blocks.

Run as ``python -m tui_reader.search.index.build.worker`` (transport.py has the protocol); the builder
also runs a Gatherer in-process for small collections. The blocks are Whoosh 3's layout
(blocks.PartWriter), so the parent can stitch them into one segment as they are.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pickle
import signal
import sys
import threading
import time
import traceback
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

from whoosh import formats

from tui_reader.search.index.build import blocks, transport

Doc = transport.Doc
Postings = dict[bytes, tuple["array[int]", "array[float]", list[bytes]]]  # term -> ids, weights, values


def _fused(field: Any) -> Callable[[str], dict[str, list[int]]] | None:
    """The fused analyzer's ``positions`` when it alone decides the field's postings."""
    positions = getattr(field.analyzer, "positions", None)
    if type(field.format) in (formats.Positions, formats.Frequency) and field.format.field_boost == 1.0:
        return positions
    return None


class Gatherer:
    """One range's share: the postings of documents base..base+count-1, grouped by term."""

    def __init__(self, schema: Any, base: int) -> None:
        self.schema = schema
        self.base = base
        self.count = 0
        names = [n for n in schema.names() if schema[n].indexed]
        self.index = {n: schema[n].index for n in names}  # fields the fused path does not cover
        self.fused = {
            n: (f, type(schema[n].format) is formats.Positions)
            for n in names
            if (f := _fused(schema[n])) is not None
        }
        self.scorable = {n for n in names if schema[n].scorable}
        # term -> (docnums, weights, values); values are mostly shared (see blocks.positions_value)
        self.postings: dict[str, Postings] = {n: {} for n in names}
        self.lengths = {n: array("I") for n in names}
        self._once: dict[int, bytes] = {}
        self._floats = [float(n) for n in range(256)]

    def add(self, docnum: int, doc: Doc) -> None:
        if docnum != self.base + self.count:
            raise ValueError(f"document {docnum} out of order (expected {self.base + self.count})")
        self.count += 1
        for lengths in self.lengths.values():
            lengths.append(0)
        for name, value in doc.items():
            if value is None or name.startswith("_") or name not in self.index:
                continue
            post = self.postings[name]
            fused = self.fused.get(name)
            if fused is not None and isinstance(value, str):
                length = self._add_fused(post, docnum, fused[0](value), fused[1])
            else:
                length = 0
                for btext, freq, weight, vbytes in self.index[name](value):
                    entry = post.get(btext)
                    if entry is None:
                        post[btext] = (array("I", (docnum,)), array("f", (weight,)), [vbytes])
                    else:
                        entry[0].append(docnum)
                        entry[1].append(weight)
                        entry[2].append(vbytes)
                    length += freq
            if name in self.scorable:
                self.lengths[name][-1] = length

    def _add_fused(
        self, post: Postings, docnum: int, positions: dict[str, list[int]], with_positions: bool
    ) -> int:
        """``field.index``'s items, made from the fused analyzer's positions and added as they
        are made: the build's innermost loop, so the append below is written out twice."""
        once, floats = self._once, self._floats
        encode, count_value = blocks.positions_value, blocks.frequency_value
        length = 0
        for word, poslist in positions.items():
            n = len(poslist)
            vbytes = encode(poslist, once) if with_positions else count_value(n)
            weight = floats[n] if n < 256 else float(n)
            btext = word.encode("utf-8")
            entry = post.get(btext)
            if entry is None:
                post[btext] = (array("I", (docnum,)), array("f", (weight,)), [vbytes])
            else:
                entry[0].append(docnum)
                entry[1].append(weight)
                entry[2].append(vbytes)
            length += n
        return length

    def write(
        self, path: Path, params: tuple[int, int], report: Callable[[int, int], None] | None = None
    ) -> transport.Part:
        """Write every posting list to ``path``; return the term table the parent stitches."""
        total = sum(len(p) for p in self.postings.values())
        done = 0
        out = blocks.PartWriter(path, params)
        fields: dict[str, tuple[list[bytes], list[bytes], array[int]]] = {}
        try:
            for name in sorted(self.postings):
                post = self.postings.pop(name)  # free each field's arrays once it is written
                terms = sorted(post)
                infos: list[bytes] = []
                lasts = array("Q")
                out.start_field(self.schema[name].format)
                lengths = self.lengths[name]
                for btext in terms:
                    docs, weights, values = post.pop(btext)
                    info, last = out.term(docs, weights, values, lengths, self.base)
                    infos.append(info)
                    lasts.append(last)
                    done += 1
                    if report and done % 20000 == 0:
                        report(done, total)
                fields[name] = (terms, infos, lasts)
        finally:
            out.close()
        return {"base": self.base, "count": self.count, "fields": fields, "path": str(path)}


PARENT_CHECK_SECONDS = 0.25  # how often a worker looks whether its parent is still there
PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(parent: int) -> None:
    """End this worker when the process that started it ends, even while it is busy writing and
    even if its pipes stay open (inherited by a sibling): the kernel's parent-death signal on
    Linux, and everywhere a thread watching the parent pid (which changes when it dies)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):  # no libc, no prctl: the watch below still works
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os.kill(os.getpid(), signal.SIGKILL)

    if os.getppid() != parent:  # it died before the signal was asked for
        os.kill(os.getpid(), signal.SIGKILL)
    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def main() -> None:
    """A worker process: the header, then chunks of documents until None, each range written
    out (and its memory freed) when the next starts or the input ends."""
    parent = os.environ.get(transport.PARENT_ENV, "")
    die_with_parent(int(parent) if parent.isdigit() else os.getppid())
    pipe = transport.Pipe()

    def finish(gatherer: Gatherer) -> None:
        base = gatherer.base
        pipe.send("lengths", base, gatherer.count, gatherer.lengths)  # the parent writes these meanwhile
        path = transport.part_path(folder, base)
        part = gatherer.write(path, params, lambda d, t: pipe.send("written", d, t))
        transport.write_table(part)
        pipe.send("done", base)

    try:
        schema_bytes, folder, params = pipe.header()
        schema = pickle.loads(schema_bytes)
        gatherer: Gatherer | None = None
        for chunk in pipe.chunks():
            first = chunk[0][0]
            if gatherer is None or first != gatherer.base + gatherer.count:
                if gatherer is not None:
                    finish(gatherer)
                gatherer = None  # free one range's postings before gathering the next
                gatherer = Gatherer(schema, first)
            for docnum, doc in chunk:
                gatherer.add(docnum, doc)
            pipe.send("added", len(chunk))
        if gatherer is not None:
            finish(gatherer)
    except BaseException:
        with contextlib.suppress(Exception):
            pipe.send("error", traceback.format_exc())
        raise


if __name__ == "__main__":
    main()
