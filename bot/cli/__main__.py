"""`python -m bot.cli` is `coach`."""

import sys

from bot.cli.main import main

sys.exit(main())
