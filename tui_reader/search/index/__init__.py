"""How a collection becomes a Whoosh index and stays in step with its files: the schema and its
analyzers, the bulk build, reading segments in place, the manifest, faults and leftovers."""
