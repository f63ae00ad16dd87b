"""Search: the only package that imports Whoosh (README, "Architecture").

Its log (``tui_reader.search``: fast-path errors, damaged files) goes wherever the application
sends logs; with none configured it is not printed on the terminal as a traceback.
"""

import logging

logging.getLogger("tui_reader.search").addHandler(logging.NullHandler())
