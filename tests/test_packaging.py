"""The package as pip installs it: the seeds travel inside it, and it finds them there."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from support import SEED_FILES

REPO = Path(__file__).resolve().parent.parent


def test_an_installed_package_finds_its_own_seeds(tmp_path: Path) -> None:
    """Laid out as the wheel is (seeds under tui_reader/, nothing beside the package), with no
    source tree in reach: the reader's default corpus is the packaged copy."""
    site = tmp_path / "site-packages"
    shutil.copytree(REPO / "tui_reader", site / "tui_reader", ignore=shutil.ignore_patterns("__pycache__"))
    (site / "tui_reader" / "seeds").mkdir()
    for f in SEED_FILES:
        shutil.copy2(f, site / "tui_reader" / "seeds" / f.name)
    code = "from tui_reader import paths; print(paths.seeds_dir())"
    out = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(site)!r}); {code}"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    assert Path(out.stdout.strip()) == (site / "tui_reader" / "seeds").resolve()


def test_the_wheel_ships_the_seeds() -> None:
    text = (REPO / "pyproject.toml").read_text()
    assert '"seeds" = "tui_reader/seeds"' in text  # hatch's force-include: the path seeds_dir() reads
