"""The footer: the screen's shown bindings, as many as fit the width, the most important kept.

Textual's Footer lays its keys out in one row and lets the row run off the right edge (it
scrolls), so at 80 columns ``? Help`` and ``q Quit``, the last keys, were cut off. This one
shows the keys in the screen's order but chooses which: Help and Quit first, then the search
key and the command palette, then the others in order, while they fit; it lays out again on
every resize.

Textual recomposes its footer each time the screen announces its bindings (every focus change,
every reactive that refreshes bindings: about 17 times as the reader starts); this one lays out
again only when what it would show changed, and where only keys' enabled state or tooltip did
(about half the changes: a paper highlighted, the index ready), restyles those keys in place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

if TYPE_CHECKING:
    from textual.screen import Screen

FIRST_ACTIONS = ("help", "quit", "focus_search")
"""Actions shown before any other (in this order of importance), whatever the width."""

PALETTE_RANK = len(FIRST_ACTIONS)  # the command palette's key comes right after them


def key_cells(key_display: str, description: str) -> int:
    """Cells a FooterKey takes in the non-compact style: ' key ' then 'description '."""
    from rich.cells import cell_len

    return cell_len(key_display) + 2 + (cell_len(description) + 1 if description else 0)


def choose(items: list[tuple[str, int]], width: int, palette: int) -> set[str]:
    """Which actions fit in ``width`` cells: ``items`` are (action, cells) in the screen's
    order; FIRST_ACTIONS go first, then the palette key (``palette`` cells, 0: none), then the
    rest in order."""

    def rank(pair: tuple[int, tuple[str, int]]) -> tuple[int, int]:
        index, (action, _) = pair
        return (FIRST_ACTIONS.index(action), 0) if action in FIRST_ACTIONS else (PALETTE_RANK + 1, index)

    chosen: set[str] = set()
    used = 0
    ranked = sorted(enumerate(items), key=rank)
    palette_taken = palette == 0
    for _, (action, cells) in ranked:
        if not palette_taken and action not in FIRST_ACTIONS:
            palette_taken = True
            used += palette
        if used + cells <= width:
            chosen.add(action)
            used += cells
        elif action not in FIRST_ACTIONS:
            break  # keep the screen's order: nothing after a key that did not fit
    return chosen


def _layout(wanted: tuple[object, ...]) -> tuple[object, ...]:
    """What ``ReaderFooter._wanted`` says without the keys' enabled state and tooltips: where
    this is the same, the same keys are laid out."""
    width, shown, palette, compact = wanted
    keys = tuple((binding, display) for binding, _, _, display in shown)  # type: ignore[attr-defined]
    return (width, keys, palette[0] if palette else None, compact)  # type: ignore[index]


class ReaderFooter(Footer):
    """A Footer that never lets Help and Quit run off the edge (see the module's docstring)."""

    _laid_for = 0  # the width the keys were chosen for
    _shown: tuple[object, ...] | None = None  # what the keys were composed from (see _wanted)

    def _wanted(self) -> tuple[object, ...]:
        """What compose lays out from: the width, the shown bindings (enabled, tooltip, the
        key's display) and the palette's key if it is wanted."""
        app, bindings = self.app, self.screen.active_bindings
        shown = tuple(
            (binding, enabled, tooltip, app.get_key_display(binding))
            for (_, binding, enabled, tooltip) in bindings.values()
            if binding.show
        )
        palette = None
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
            palette = bindings.get(app.COMMAND_PALETTE_BINDING, (None,))[1:]
        return (self.size.width or app.size.width, shown, palette, self.compact)

    def compose(self) -> ComposeResult:
        if self._bindings_ready:
            self._shown = self._wanted()
        keys = [w for w in super().compose() if isinstance(w, FooterKey)]
        palette = [k for k in keys if k.has_class("-command-palette")]
        shown = [k for k in keys if not k.has_class("-command-palette")]
        for key in shown:  # bound to the footer's: set now, no '-compact' added then removed (2 restyles)
            key.set_reactive(FooterKey.compact, self.compact)
        width = self.size.width or self.app.size.width
        self._laid_for = self.size.width
        palette_cells = key_cells(palette[0].key_display, palette[0].description) + 2 if palette else 0
        items = [(k.action, key_cells(k.key_display, k.description)) for k in shown]
        chosen = choose(items, width, palette_cells)
        yield from (k for k in shown if k.action in chosen)
        if palette and (palette_cells + sum(c for a, c in items if a in chosen) <= width):
            yield palette[0]

    def bindings_changed(self, screen: Screen) -> None:
        """As Textual's, but no recompose when the keys shown would be the same."""
        self._bindings_ready = True
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self.call_after_refresh(self._lay_out)

    async def _lay_out(self) -> None:
        if not self.is_attached:
            return
        wanted = self._wanted()
        if wanted == self._shown:
            return
        if self._shown is not None and _layout(wanted) == _layout(self._shown):
            self._restate(wanted)
        else:
            await self.recompose()

    def _restate(self, wanted: tuple[object, ...]) -> None:
        """Set each shown key's enabled state and tooltip as a recompose would make them."""
        _, shown, palette, _ = wanted
        states = {(b.key, b.action): (enabled, tooltip) for b, enabled, tooltip, _ in shown}  # type: ignore[attr-defined]
        for key in self.query_children(FooterKey):
            if key.has_class("-command-palette"):
                enabled = palette[1] if palette else True  # type: ignore[index]
            else:
                enabled, tooltip = states[(key.key, key.action)]
                key.tooltip = tooltip or None
            key._disabled = not enabled
            key.set_class(not enabled, "-disabled")
        self._shown = wanted

    def on_mount(self) -> None:
        """Mounted after the screen's bindings were announced (swapped in): lay out now."""
        self.call_after_refresh(self.bindings_changed, self.screen)

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._laid_for:
            self._laid_for = event.size.width
            self.call_after_refresh(self.recompose)
