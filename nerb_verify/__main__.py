"""``python -m nerb_verify`` runs the command-line interface."""

import sys

from nerb_verify.cli import main

sys.exit(main())
