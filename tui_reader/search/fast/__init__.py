"""The fast paths beside Whoosh's own: the project's posting codec, block-at-a-time scoring,
phrase checks, type-ahead's bounds, and the self-check that turns them off on any mismatch.

Whoosh's writer and searcher stay the reference: every index written here reads through Whoosh's
own searcher too, and the tests compare the two posting by posting and query by query.
"""
