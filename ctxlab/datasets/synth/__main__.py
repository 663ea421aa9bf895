"""Regenerate the bundled datasets: ``python -m ctxlab.datasets.synth data/``.

Prints the statistics table pasted into ``data/README.md``.
"""

from __future__ import annotations

import argparse
import json

from . import DEFAULT_SEED, SAMPLE_SIZE, write_samples
from .stats import markdown_table, record_stats


def main(argv: list[str] | None = None) -> int:
    """Write the sample files and print their statistics; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m ctxlab.datasets.synth", description=__doc__)
    parser.add_argument("data_dir", help="directory to write agent_sessions.jsonl and chats.jsonl into")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"dataset seed (default {DEFAULT_SEED})")
    parser.add_argument("-n", type=int, default=SAMPLE_SIZE, help=f"records per file (default {SAMPLE_SIZE})")
    args = parser.parse_args(argv)
    columns = {}
    for path in write_samples(args.data_dir, seed=args.seed, n=args.n):
        with path.open(encoding="utf-8") as fh:
            columns[f"{path.name} ({path.stat().st_size / 1e6:.2f} MB)"] = record_stats(json.loads(line) for line in fh)
    print(markdown_table(columns))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
