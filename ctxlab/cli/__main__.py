"""`python -m ctxlab.cli`: the same as the `ctxlab` command."""

from ctxlab.cli import main

main()
