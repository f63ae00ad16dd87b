"""The fuzz targets: profiles are registered in fuzzing.py (imported here first)."""

import fuzzing  # noqa: F401  (registers the smoke and fuzz profiles before any test runs)
