"""The ``pi`` command. Keep imports here minimal: ``--version`` and ``--help`` must stay fast."""

from __future__ import annotations

import sys

from pi_app import __version__

HELP = """pi - a terminal coding agent (Python)

Usage: pi [options] [@files...] [messages...]

Options:
  -h, --help        Show this help
  -v, --version     Show the version
"""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if any(a in ("-v", "--version") for a in args):
        print(__version__)
        return 0
    if any(a in ("-h", "--help") for a in args):
        print(HELP, end="")
        return 0
    print("pi: interactive mode is not available yet; use --help", file=sys.stderr)
    return 1
