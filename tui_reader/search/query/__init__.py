"""How a text becomes a query: what was typed (pure, no Whoosh), the query language and its limits,
completions of the word being typed, "did you mean", and the search modes."""
