"""Files' encodings are detected (issues 18 and 22 item 10): byte order marks, a declared encoding,
UTF-8, then a guess the notice names; and malformed JSON Lines are named by line, apart from the
records that truly have no abstract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui_reader.corpus.corpus import Corpus
from tui_reader.corpus.formats import common, encoding
from tui_reader.corpus.loading import load_corpus
from tui_reader.corpus.paper import Paper

FIXTURES = Path(__file__).parent.parent / "fixtures" / "formats"


def by_title(corpus: Corpus) -> dict[str, Paper]:
    return {p.title: p for p in corpus}


def warned(corpus: Corpus, name: str) -> list[str]:
    return [w.split("/")[-1] for w in corpus.warnings if f"/{name}:" in w]


def test_a_utf16_bib_with_a_bom_lists_its_entries_without_a_notice() -> None:
    corpus = load_corpus([FIXTURES / "utf16-bom.bib"])
    papers = by_title(corpus)
    assert sorted(papers) == ["Naïve Bayes for Gödel Numbering", "Çelik on Möbius Maps"]
    assert warned(corpus, "utf16-bom.bib") == []
    # two co-authors with the same name are two people
    assert papers["Naïve Bayes for Gödel Numbering"].authors == ["Jörg Müller", "S. Zhang", "S. Zhang"]


def test_a_utf16_big_endian_ris_lists_its_record() -> None:
    corpus = load_corpus([FIXTURES / "utf16.ris"])
    (paper,) = list(corpus)
    assert paper.title == "Über die Möglichkeit einer UTF-16 RIS"
    assert paper.authors == ["Erwin Schrödinger"] and paper.venue == "Naturwissenschaften"
    assert warned(corpus, "utf16.ris") == []


def test_a_gbk_bib_is_read_as_gbk_and_the_notice_says_it_was_guessed() -> None:
    corpus = load_corpus([FIXTURES / "gbk.bib"])
    (paper,) = list(corpus)
    assert paper.title == "基于深度学习的中文文本分类方法研究"
    assert paper.authors == ["李明", "王芳"] and paper.venue == "计算机学报"
    assert warned(corpus, "gbk.bib") == ["gbk.bib: not UTF-8; read as GBK (guessed)"]


def test_a_jabref_encoding_line_is_the_encoding_and_nothing_is_guessed() -> None:
    corpus = load_corpus([FIXTURES / "gbk-declared.bib"])
    assert [p.title for p in corpus] == ["基于深度学习的中文文本分类方法研究"]
    assert warned(corpus, "gbk-declared.bib") == []


def test_a_wrong_declaration_falls_back_to_detection(tmp_path: Path) -> None:
    path = tmp_path / "resaved.bib"
    path.write_bytes(
        "% Encoding: UTF-8\n@article{a, title = {Naïve Bayes — a Möbius view}, year = 2020}\n".encode(
            "cp1252"
        )
    )
    corpus = load_corpus([path])
    assert [p.title for p in corpus] == ["Naïve Bayes — a Möbius view"]
    assert warned(corpus, "resaved.bib") == ["resaved.bib: not UTF-8; read as Windows-1252 (guessed)"]


def test_a_windows_1252_file_reads_as_windows_1252_not_a_central_european_lookalike(tmp_path: Path) -> None:
    path = tmp_path / "western.ris"
    path.write_bytes(
        "TY  - JOUR\r\nTI  - Naïve Bayes — a Möbius view\r\nAU  - Müller, Jörg\r\nER  - \r\n".encode("cp1252")
    )
    corpus = load_corpus([path])
    (paper,) = list(corpus)
    assert (paper.title, paper.authors) == ("Naïve Bayes — a Möbius view", ["Jörg Müller"])
    assert warned(corpus, "western.ris") == ["western.ris: not UTF-8; read as Windows-1252 (guessed)"]


def test_an_explicit_hint_wins_over_detection(tmp_path: Path) -> None:
    path = tmp_path / "x.bib"
    path.write_bytes("@misc{a, title = {Tokyo 東京}}".encode("shift_jis"))
    warnings: list[str] = []
    assert common.read_text(path, warnings, hint="Shift_JIS") == "@misc{a, title = {Tokyo 東京}}"
    assert warnings == []


@pytest.mark.parametrize("codec", ["utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-be"])
def test_every_byte_order_mark_decides_the_encoding(codec: str) -> None:
    text = "TY  - JOUR\nTI  - Ωmega\nER  - \n"
    raw = text.encode(codec)
    if codec in ("utf-16-le", "utf-16-be", "utf-32-be"):
        raw = "\ufeff".encode(codec) + raw
    decoded = encoding.decode(raw)
    assert (decoded.text, decoded.how) == (text, "bom")


def test_undecodable_bytes_are_replaced_and_said(tmp_path: Path) -> None:
    decoded = encoding.decode(b"\x81\x8d\x8f\x90\x9d" * 3)
    assert decoded.how in ("guessed", "fallback") and decoded.text


def test_malformed_json_lines_are_named_by_line_apart_from_records_without_an_abstract(
    tmp_path: Path,
) -> None:
    path = tmp_path / "papers.jsonl"
    lines = [
        json.dumps({"title": "Kept", "abstract": "An abstract that is kept."}),
        '{"title": "Cut short", "abstract": "no closing brace"',
        json.dumps({"title": "No abstract"}),
        "not json at all",
        "[1, 2]",
        json.dumps({"title": "Also kept", "abstract": "Another abstract that is kept."}),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    corpus = load_corpus([path])
    assert sorted(p.title for p in corpus) == ["Also kept", "Kept"]
    assert warned(corpus, "papers.jsonl") == [
        "papers.jsonl: skipped 3 malformed lines (line 2, line 4, line 5)",
        "papers.jsonl: skipped 1 record(s) without an abstract",
    ]


def test_a_utf16_json_lines_file_streams_line_by_line(tmp_path: Path) -> None:
    path = tmp_path / "papers.jsonl"
    lines = [
        json.dumps({"title": f"Größe {n}", "abstract": f"Abstract number {n} über alles."}) for n in range(3)
    ]
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-16"))
    corpus = load_corpus([path])
    assert sorted(p.title for p in corpus) == ["Größe 0", "Größe 1", "Größe 2"]
    assert warned(corpus, "papers.jsonl") == []


def test_json_lines_not_in_utf8_are_guessed_and_said(tmp_path: Path) -> None:
    path = tmp_path / "cn.jsonl"
    record = {
        "title": "基于深度学习的中文文本分类方法研究",
        "abstract": "本文提出一种基于深度学习的中文文本分类方法。",
    }
    path.write_bytes(json.dumps(record, ensure_ascii=False).encode("gbk") + b"\n")
    corpus = load_corpus([path])
    assert [p.title for p in corpus] == [record["title"]]
    assert warned(corpus, "cn.jsonl") == ["cn.jsonl: 1 line(s) not UTF-8; read as GBK (guessed)"]
