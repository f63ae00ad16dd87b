"""Reading corpus files: formats, dedup, stable ids, and bad files that never stop the others."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest
from support import SEED_FILES, SEEDS, seed_paragraphs

from tui_reader.corpus.formats import CorpusError, discover
from tui_reader.corpus.loading import load_corpus
from tui_reader.corpus.paper import paper_id
from tui_reader.corpus.text import normalise

GOOD = {"title": "Good paper", "abstract": "A good abstract about kernels.", "authors": ["A. B."]}


def write_json(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), "utf-8")
    return path


def write_jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(r) + "\n" for r in records).encode()
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)
    return path


# -- the seeds ----------------------------------------------------------------------------------
def test_seeds_fold_38_paragraphs_into_30_papers() -> None:
    assert len(SEED_FILES) == 2
    assert sum(len(seed_paragraphs(f)) for f in SEED_FILES) == 38
    corpus = load_corpus()
    assert len(corpus) == 30 and corpus.warnings == []
    assert len(set(corpus.ids)) == 30
    by_sources = sorted(len(p.sources) for p in corpus)
    assert by_sources.count(2) == 8 and by_sources.count(1) == 22
    names = {f.name for f in SEED_FILES}
    for paper in corpus:
        assert set(paper.sources) <= names
        assert paper.venue == "ICML" and paper.year == 2026  # from the header "ICML 2026 Papers"
        assert paper.id == paper_id(paper.abstract)
        assert len(paper.id) == 12 and int(paper.id, 16) >= 0


def test_ids_are_the_hash_of_each_normalised_paragraph() -> None:
    expected = {paper_id(normalise(p)) for f in SEED_FILES for p in seed_paragraphs(f)}
    assert set(load_corpus().ids) == expected


def test_shared_papers_list_both_files() -> None:
    corpus = load_corpus()
    shared = {p.id for p in corpus if len(p.sources) == 2}
    in_both = set.intersection(*({paper_id(normalise(p)) for p in seed_paragraphs(f)} for f in SEED_FILES))
    assert shared == in_both
    for pid in shared:
        paper = corpus.get(pid)
        assert paper is not None
        assert paper.sources == [f.name for f in SEED_FILES]


def test_ids_do_not_depend_on_file_order(tmp_path: Path) -> None:
    forward = load_corpus([str(f) for f in SEED_FILES])
    backward = load_corpus([str(f) for f in reversed(SEED_FILES)])
    assert set(forward.ids) == set(backward.ids)
    # order follows the files: the first file's papers come first
    first = {paper_id(normalise(p)) for p in seed_paragraphs(SEED_FILES[-1])}
    assert set(backward.ids[: len(first)]) == first
    for pid in forward.ids:
        a, b = forward.get(pid), backward.get(pid)
        assert a is not None and b is not None
        assert a.abstract == b.abstract and sorted(a.sources) == sorted(b.sources)


def test_ids_do_not_depend_on_where_the_files_live(tmp_path: Path) -> None:
    other = tmp_path / "elsewhere" / "deeper"
    other.mkdir(parents=True)
    for n, f in enumerate(SEED_FILES):
        shutil.copy(f, other / f"renamed-{n}.txt")
    assert load_corpus([other]).ids == load_corpus([SEEDS]).ids


def test_same_file_twice_is_loaded_once() -> None:
    f = SEED_FILES[0]
    corpus = load_corpus([f, f.parent / "." / f.name])
    assert len(corpus.files) == 1
    assert len(corpus) == len(seed_paragraphs(f))


# -- formats ------------------------------------------------------------------------------------
def test_json_array_with_field_aliases(tmp_path: Path) -> None:
    path = write_json(
        tmp_path / "papers.json",
        [
            {
                "title": "Alpha",
                "abstract": "Alpha abstract.",
                "venue": "NeurIPS 2024",
                "authors": ["Ada Lovelace", "Alan Turing"],
                "url": "https://example.org/alpha",
            },
            {
                "name": "Beta",
                "summary": "Beta summary text.",
                "author": "Grace Hopper and Kurt Gödel",
                "date": "2021-05-01",
            },
            {
                "paper_title": "Gamma",
                "description": "Gamma text.",
                "creators": "X; Y",
                "conference": "ICML",
                "year": 2019,
            },
        ],
    )
    papers = {p.title: p for p in load_corpus([path])}
    assert set(papers) == {"Alpha", "Beta", "Gamma"}
    a, b, g = papers["Alpha"], papers["Beta"], papers["Gamma"]
    assert a.authors == ["Ada Lovelace", "Alan Turing"] and a.year == 2024
    assert a.venue == "NeurIPS" and a.url == "https://example.org/alpha"
    assert b.abstract == "Beta summary text." and b.authors == ["Grace Hopper", "Kurt Gödel"]
    assert b.year == 2021
    assert g.abstract == "Gamma text." and g.authors == ["X", "Y"] and g.venue == "ICML"
    assert g.year == 2019
    assert not any(p.title_generated for p in papers.values())
    assert all(p.sources == ["papers.json"] for p in papers.values())


def test_author_shapes(tmp_path: Path) -> None:
    path = write_json(
        tmp_path / "authors.json",
        [
            {
                "abstract": "One.",
                "authors": [{"name": "Ada Lovelace"}, {"given": "Alan", "family": "Turing"}],
            },
            {"abstract": "Two.", "authors": "Hopper, Grace"},  # one comma: a single "Last, First"
            {"abstract": "Three.", "authors": "A. One, B. Two, C. Three"},
            {"abstract": "Four.", "authors": "Kurt G\u00f6del\nEmmy Noether"},
        ],
    )
    by_abstract = {p.abstract: p.authors for p in load_corpus([path])}
    assert by_abstract == {
        "One.": ["Ada Lovelace", "Alan Turing"],
        "Two.": ["Hopper, Grace"],
        "Three.": ["A. One", "B. Two", "C. Three"],
        "Four.": ["Kurt G\u00f6del", "Emmy Noether"],
    }


def test_json_object_holding_a_list(tmp_path: Path) -> None:
    path = write_json(tmp_path / "wrapped.json", {"meta": 1, "papers": [GOOD]})
    assert [p.title for p in load_corpus([path])] == ["Good paper"]


def test_a_json_file_of_json_lines_streams_and_one_object_per_file_is_still_json(tmp_path: Path) -> None:
    lines = write_jsonl(tmp_path / "lines.json.gz", [GOOD, {"abstract": "Second line abstract."}])
    assert [p.abstract for p in load_corpus([lines])][1] == "Second line abstract."
    single = tmp_path / "single.json"
    single.write_text(json.dumps({"papers": [GOOD]}) + "\n", "utf-8")  # one line, one document
    assert [p.title for p in load_corpus([single])] == ["Good paper"]
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps({"papers": [GOOD]}, indent=2), "utf-8")  # "{" alone on line 1
    assert load_corpus([pretty]).titles == ["Good paper"]


def test_jsonl_and_gzipped_jsonl(tmp_path: Path) -> None:
    plain = write_jsonl(tmp_path / "a.jsonl", [GOOD, {"abstract": "Second line abstract."}])
    packed = write_jsonl(tmp_path / "b.jsonl.gz", [{"summary": "Gzipped abstract.", "author": "Solo Author"}])
    corpus = load_corpus([plain, packed])
    assert corpus.warnings == []
    by_abstract = {p.abstract: p for p in corpus}
    assert set(by_abstract) == {
        "A good abstract about kernels.",
        "Second line abstract.",
        "Gzipped abstract.",
    }
    assert by_abstract["Gzipped abstract."].sources == ["b.jsonl.gz"]
    assert by_abstract["Gzipped abstract."].authors == ["Solo Author"]
    assert by_abstract["Second line abstract."].title_generated


def test_gzipped_seed_text(tmp_path: Path) -> None:
    packed = tmp_path / "seeds.txt.gz"
    packed.write_bytes(gzip.compress(SEED_FILES[0].read_bytes()))
    assert load_corpus([packed]).ids == load_corpus([SEED_FILES[0]]).ids


def test_folder_is_read_recursively_skipping_hidden_and_foreign_files(tmp_path: Path) -> None:
    root = tmp_path / "root"
    write_json(root / "top.json", [{"abstract": "Top level."}])
    write_jsonl(root / "sub" / "mid.jsonl", [{"abstract": "Middle level."}])
    write_jsonl(root / "sub" / "deeper" / "low.jsonl.gz", [{"abstract": "Lowest level."}])
    (root / "sub" / "deeper" / "seed.txt").write_text("Header\n\nText level.\n", "utf-8")
    write_json(root / ".hidden.json", [{"abstract": "Hidden file."}])
    write_json(root / ".git" / "x.json", [{"abstract": "Hidden folder."}])
    (root / "notes.md").write_text("Header\n\nMarkdown file.\n", "utf-8")
    assert sorted(p.relative_to(root).as_posix() for p in discover([root])) == [
        "sub/deeper/low.jsonl.gz",
        "sub/deeper/seed.txt",
        "sub/mid.jsonl",
        "top.json",
    ]
    corpus = load_corpus([root])
    assert sorted(p.abstract for p in corpus) == [
        "Lowest level.",
        "Middle level.",
        "Text level.",
        "Top level.",
    ]


def test_seed_text_with_crlf_and_bom(tmp_path: Path) -> None:
    raw = SEED_FILES[0].read_text("utf-8").replace("\n", "\r\n")
    path = tmp_path / "dos.txt"
    path.write_bytes(b"\xef\xbb\xbf" + raw.encode("utf-8"))
    corpus = load_corpus([path])
    assert corpus.ids == load_corpus([SEED_FILES[0]]).ids
    assert all(p.venue == "ICML" and p.year == 2026 for p in corpus)


# -- bad files ----------------------------------------------------------------------------------
def test_non_utf8_file_loads_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes("Header\n\nCaf\u00e9 na\u00efve r\u00e9sum\u00e9 abstract.\n".encode("cp1252"))
    corpus = load_corpus([path])
    assert [p.abstract for p in corpus] == ["Caf\u00e9 na\u00efve r\u00e9sum\u00e9 abstract."]
    assert len(corpus.warnings) == 1
    assert str(path) in corpus.warnings[0] and "UTF-8" in corpus.warnings[0]


@pytest.mark.parametrize(
    ("name", "content", "needle"),
    [
        ("empty.txt", b"", "empty"),
        ("blank.jsonl", b"\n  \n\n", "empty"),
        ("corrupt.jsonl.gz", b"this is not gzip data", "gzip"),
        ("truncated.json.gz", gzip.compress(json.dumps([GOOD]).encode(), mtime=0)[:20], "gzip"),
        ("malformed.json", b'[{"abstract": "x",}', "malformed JSON"),
        ("scalar.json", b"42", "not a list"),
        ("noabstract.json", json.dumps([{"title": "only"}]).encode(), "without an abstract"),
    ],
)
def test_bad_file_warns_by_name_and_others_still_load(
    tmp_path: Path, name: str, content: bytes, needle: str
) -> None:
    bad = tmp_path / name
    bad.write_bytes(content)
    good = write_json(tmp_path / "good.json", [GOOD])
    corpus = load_corpus([bad, good, SEED_FILES[0]])
    assert len(corpus) == 1 + len(seed_paragraphs(SEED_FILES[0]))
    assert "Good paper" in corpus.titles
    assert len(corpus.warnings) == 1, corpus.warnings
    assert str(bad) in corpus.warnings[0] and needle in corpus.warnings[0]


def test_bad_file_inside_a_folder_does_not_stop_the_folder(tmp_path: Path) -> None:
    root = tmp_path / "mixed"
    write_json(root / "a.json", [GOOD])
    (root / "b.jsonl.gz").write_bytes(b"garbage")
    (root / "c.json").write_text("{not json", "utf-8")
    (root / "d.txt").write_text("", "utf-8")
    write_jsonl(root / "e.jsonl", [{"abstract": "Last file."}])
    corpus = load_corpus([root])
    assert sorted(p.abstract for p in corpus) == ["A good abstract about kernels.", "Last file."]
    assert sorted(Path(w.split(":")[0]).name for w in corpus.warnings) == [
        "b.jsonl.gz",
        "c.json",
        "d.txt",
    ]


def test_malformed_jsonl_lines_are_skipped_with_their_numbers(tmp_path: Path) -> None:
    path = tmp_path / "some.jsonl"
    path.write_text(
        json.dumps(GOOD) + "\nnot json at all\n" + json.dumps({"abstract": "Two."}) + "\n", "utf-8"
    )
    corpus = load_corpus([path])
    assert sorted(p.abstract for p in corpus) == ["A good abstract about kernels.", "Two."]
    assert len(corpus.warnings) == 1
    assert str(path) in corpus.warnings[0] and "line 2" in corpus.warnings[0]


def test_missing_path_raises_corpus_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope" / "papers.json"
    with pytest.raises(CorpusError, match="nope"):
        load_corpus([missing])
    with pytest.raises(CorpusError, match="nope"):
        load_corpus([SEED_FILES[0], missing])


def test_folder_without_corpus_files_warns(tmp_path: Path) -> None:
    (tmp_path / "readme.md").write_text("nothing here", "utf-8")
    corpus = load_corpus([tmp_path])
    assert len(corpus) == 0
    assert len(corpus.warnings) == 1 and str(tmp_path) in corpus.warnings[0]


def test_duplicate_across_json_and_text_prefers_the_real_title(tmp_path: Path) -> None:
    abstract = seed_paragraphs(SEED_FILES[0])[2]  # the M-IDoL paper, untitled in the seeds
    path = write_json(
        tmp_path / "titled.json", [{"title": "M-IDoL (published title)", "abstract": abstract, "year": 2026}]
    )
    corpus = load_corpus([SEED_FILES[0], path])
    assert len(corpus) == len(seed_paragraphs(SEED_FILES[0]))
    pid = paper_id(normalise(abstract))
    paper = corpus.get(pid)
    assert paper is not None
    assert paper.title == "M-IDoL (published title)" and not paper.title_generated
    assert paper.sources == [SEED_FILES[0].name, "titled.json"]
