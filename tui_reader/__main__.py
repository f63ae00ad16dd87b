import sys

from tui_reader.cli import main

sys.exit(main())
