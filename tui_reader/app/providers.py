"""Command palette: 'go to paper' by title (a bounded substring scan: instant at 87k titles), the
recent searches, and the tags in use with their counts (choosing one searches ``tag:name``)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from tui_reader.app.screens.tags import tag_query

if TYPE_CHECKING:
    from tui_reader.app.screens.main import MainScreen
    from tui_reader.corpus.corpus import Corpus

MAX_HITS = 40
RECENT = 10  # recent searches listed when the palette opens
TAGS = 10  # tags listed when the palette opens (the most used; typing finds every one)


def _literal(text: str) -> str:
    """Help text shown as is. The palette parses a str help as markup (a title holding ``[/]``
    would crash it, ``\\`` would be eaten) and passes Content through untouched; Hit's type says
    str, hence the cast."""
    return cast(str, Content(text))


class PaperProvider(Provider):
    def _screen(self) -> MainScreen | None:
        from tui_reader.app.screens.main import MainScreen

        for screen in reversed(self.app.screen_stack):
            if isinstance(screen, MainScreen):
                return screen
        return None

    _cache: tuple[int, list[str]] | None = None

    @classmethod
    def _folded(cls, corpus: Corpus) -> list[str]:
        """Case-folded titles, computed once per corpus (87k: ~20 ms)."""
        if cls._cache is None or cls._cache[0] != id(corpus):
            cls._cache = (id(corpus), [t.casefold() for t in corpus.titles])
        return cls._cache[1]

    async def search(self, query: str) -> Hits:
        screen = self._screen()
        needle = query.strip().casefold()
        if screen is None or screen.corpus is None or len(needle) < 2:
            return
        corpus = screen.corpus
        found = 0
        for row, folded_title in enumerate(self._folded(corpus)):
            at = folded_title.find(needle)
            if at < 0:
                continue
            title = corpus.titles[row]
            display = Content(title).stylize("bold $text-accent", at, at + len(needle))
            yield Hit(
                100.0 - at / 10,
                display,
                partial(screen.go_to_row, row),
                text=title,
                help=_literal(f"go to paper {corpus.ids[row]}"),
            )
            found += 1
            if found >= MAX_HITS:
                break

    async def discover(self) -> Hits:
        screen = self._screen()
        if screen is None or screen.corpus is None:
            return
        row = screen.papers.highlighted_row
        if row is not None:
            yield DiscoveryHit(
                Content("Go to paper… (type part of a title)"),
                partial(screen.go_to_row, row),
                help=_literal(screen.corpus.titles[row]),
            )


class HistoryProvider(Provider):
    """Recent searches: listed when the palette opens, found by what is typed; choosing one runs
    it (as Enter does)."""

    def _screen(self) -> MainScreen | None:
        from tui_reader.app.screens.main import MainScreen

        for screen in reversed(self.app.screen_stack):
            if isinstance(screen, MainScreen):
                return screen
        return None

    def _searches(self) -> tuple[MainScreen | None, list[str]]:
        screen = self._screen()
        return screen, (screen.search_bar.history if screen is not None else [])

    async def discover(self) -> Hits:
        screen, searches = self._searches()
        if screen is None:
            return
        for query in searches[:RECENT]:
            yield DiscoveryHit(
                Content("Search again: ") + Content(query).stylize("bold"),
                partial(screen.search_for, query),
                help=_literal("a recent search"),
            )

    async def search(self, query: str) -> Hits:
        screen, searches = self._searches()
        if screen is None:
            return
        matcher = self.matcher(query)
        typed = query.strip().casefold()
        for found, past in enumerate(searches):
            # the search typed again ranks above "go to paper"; a looser match, with the actions
            again = past.casefold().startswith(typed)
            score = 101.0 - found / 1000 if again else matcher.match(past)
            if score > 0:
                yield Hit(
                    score,
                    Content("Search again: ") + Content(past).stylize("bold"),  # highlight() reads markup
                    partial(screen.search_for, past),
                    text=past,
                    help=_literal("a recent search"),
                )


class TagProvider(Provider):
    """Each tag in use, with how many papers carry it: "Tag: toread (12)" searches tag:toread."""

    def _screen(self) -> MainScreen | None:
        from tui_reader.app.screens.main import MainScreen

        for screen in reversed(self.app.screen_stack):
            if isinstance(screen, MainScreen):
                return screen
        return None

    def _tags(self) -> tuple[MainScreen | None, dict[str, int]]:
        screen = self._screen()
        store = screen.store if screen is not None else None
        return screen, (store.tag_counts() if store is not None else {})

    @staticmethod
    def _shown(tag: str, count: int) -> Content:
        return Content("Tag: ") + Content(tag).stylize("bold") + Content(f" ({count})")

    async def discover(self) -> Hits:
        screen, counts = self._tags()
        if screen is None:
            return
        for tag in sorted(counts, key=lambda t: (-counts[t], t.casefold()))[:TAGS]:
            query = tag_query(tag)
            yield DiscoveryHit(
                self._shown(tag, counts[tag]),
                partial(screen.search_for, query),
                help=_literal(f"search {query}"),
            )

    async def search(self, query: str) -> Hits:
        screen, counts = self._tags()
        if screen is None:
            return
        matcher = self.matcher(query)
        for tag, count in counts.items():
            text = f"Tag: {tag} ({count})"
            score = matcher.match(text)
            if score > 0:
                found = tag_query(tag)
                yield Hit(
                    score,
                    self._shown(tag, count),  # highlight() reads markup: a tag is data
                    partial(screen.search_for, found),
                    text=text,
                    help=_literal(f"search {found}"),
                )
