"""Copying and opening: the abstract, a Markdown quote, a citation or the link to the clipboard,
and the paper's attachment or link to the browser. The system clipboard, citations and the
browser run in thread workers that report with messages; every notice is one line, the details
go to the log.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from tui_reader.app.browser import browser_problem
from tui_reader.app.messages import CitationMade, Copied, LinkOpened, NoBrowser, NoTarget
from tui_reader.app.tmux import terminal_copy_problem
from tui_reader.library.citation import citation
from tui_reader.library.clipboard import as_markdown_quote, copy_text
from tui_reader.library.links import attachment_paths, best_link, existing_file, file_link

if TYPE_CHECKING:
    from tui_reader.app.screens.main import MainScreen
    from tui_reader.corpus.paper import Paper

NO_LINK = "This paper has no link: its record has no URL, DOI or arXiv id."
NO_FILE = "Attachment not found ({path}), and the record has no URL, DOI or arXiv id."
NO_ABSTRACT = "This paper has no abstract to copy: its source lists it by title only."


class Sharing:
    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self._told_terminal = False  # the terminal's copy problem, said in full once

    def _run(self, work: partial[None], group: str = "clipboard") -> None:
        self.screen.run_worker(work, thread=True, group=group, exit_on_error=False)

    # -- the clipboard --------------------------------------------------------------------------
    def copy(self, markdown: bool) -> None:
        paper = self.screen.current_paper()
        if paper is None:
            return
        if not paper.has_abstract:
            self.screen.notify(NO_ABSTRACT, severity="warning")
            return
        link = best_link(paper) or ""
        text = (
            as_markdown_quote(paper.title, paper.abstract, paper.sources, link)
            if markdown
            else paper.abstract
        )
        self.copy_out(text, "Markdown quote" if markdown else "abstract", paper.title)

    def copy_out(self, text: str, what: str, title: str, lead: str = "", shown: str = "") -> None:
        self.screen.app.copy_to_clipboard(text)  # OSC 52: works over SSH, never raises
        self._run(partial(self._to_system, text, what, title, lead, shown))

    def _to_system(self, text: str, what: str, title: str, lead: str, shown: str) -> None:
        outcome = copy_text(text)
        terminal = terminal_copy_problem()  # runs tmux: here, off the UI thread
        copied = Copied(what, len(text), title, outcome.ok, outcome.detail, terminal, lead, shown)
        self.screen.post_message(copied)

    def copied(self, event: Copied) -> None:
        screen = self.screen
        screen.log.info(f"copied {event.what} of {event.title!r}: {event.detail} {event.terminal}")
        notice = copied_notice(event, self._told_terminal)
        self._told_terminal |= bool(event.terminal)
        screen.notify(notice, severity="warning" if event.terminal else "information")

    def cite(self, entry: bool) -> None:
        screen = self.screen
        paper = screen.current_paper()
        if paper is None:
            return
        mark = screen.store.get(paper.id) if screen.store is not None else None
        self._run(partial(self._make_citation, paper, mark.note if mark else "", entry))

    def _make_citation(self, paper: Paper, note: str, entry: bool) -> None:
        post = self.screen.post_message
        try:
            made = citation(paper, note)
        except Exception as exc:  # a field the writer chokes on must not take the reader down
            post(CitationMade("", "citation", paper.title, error=f"{exc.__class__.__name__}: {exc}"))
            return
        if entry:  # the bookmark's note goes in as the entry's note field
            post(CitationMade(made.entry, "BibTeX entry", paper.title))
        else:
            post(CitationMade(made.cite, "citation", paper.title, made.cite))

    def citation_made(self, event: CitationMade) -> None:
        if event.error:
            self.screen.notify(f"No citation to copy: {event.error}", severity="error")
            return
        self.copy_out(event.text, event.what, event.title, shown=event.shown)

    # -- links ----------------------------------------------------------------------------------
    def copy_link_key(self) -> None:
        paper = self.screen.current_paper()
        if paper is None:
            return
        link = best_link(paper)
        if link is None:
            self.screen.notify(NO_LINK, severity="warning")
            return
        self.copy_link(link, paper.title)

    def copy_link(self, link: str, title: str, lead: str = "") -> None:
        self.copy_out(link, "link", title, lead, link)

    def _source_folders(self) -> list[Path]:
        """The folders of the highlighted paper's source files (relative attachments live there)."""
        screen = self.screen
        row = screen.papers.highlighted_row
        if row is None or screen.corpus is None:
            return []
        return list(dict.fromkeys(data.path.parent for data, _r in screen.corpus.records(row)))

    def open_link(self) -> None:
        """The local PDF the record names when it exists (looked for in a worker), else the link."""
        paper = self.screen.current_paper()
        if paper is None:
            return
        files = attachment_paths(paper, self._source_folders())
        link = best_link(paper)
        if not files and link is None:
            self.screen.notify(NO_LINK, severity="warning")
            return
        self._run(partial(self._open, link, paper.title, files), group="browser")

    def _open(self, link: str | None, title: str, files: list[Path]) -> None:
        """App.open_url goes through Python's webbrowser, which honours $BROWSER and may wait for
        the browser command to return: here, in a thread, never on the UI thread."""
        screen = self.screen
        found = existing_file(files)
        target = (file_link(found) if found is not None else None) or link
        if target is None:
            screen.post_message(NoTarget(NO_FILE.format(path=str(files[0]) if files else "?"), title))
            return
        why = browser_problem()
        if why:
            screen.post_message(NoBrowser(target, title, why))
            return
        screen.app.open_url(target)
        screen.post_message(LinkOpened(target, title))


def copied_notice(event: Copied, told_before: bool = False) -> str:
    """What arrived where, in one short line (the details are in the log)."""
    if not event.system and event.terminal:
        told = f"Copying the {event.what} may have failed: {event.detail}."
    else:
        how = ""
        if event.terminal:
            how = f" ({event.terminal})" if not told_before else " (the terminal's copy may not arrive)"
        elif not event.system:
            how = " (terminal only)"
        told = (
            f"Copied the {event.what}{how}: {event.shown}"
            if event.shown
            else f"Copied the {event.what} ({event.chars:,} chars){how}."
        )
    return f"{event.lead} {told}" if event.lead else told
