"""tui-reader: a keyboard-first terminal reader for research-paper abstracts."""

__version__ = "0.1.0"
