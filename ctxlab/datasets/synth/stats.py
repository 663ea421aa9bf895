"""Summary statistics of generated records, rendered as the Markdown table in data/README.md."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable

from .util import message_chars

GIANT_OUTPUT = 50_000


def record_stats(records: Iterable[dict]) -> dict:
    """Aggregate counts over ``records`` (consumed once, so a generator is fine).

    Returns:
        Conversations, message and character counts (total, min, median, max),
        the share of records with tool calls and with a tool output over 50,000
        characters, and the language counts.
    """
    n_msgs: list[int] = []
    n_chars: list[int] = []
    languages: Counter[str] = Counter()
    with_tools = with_giant = 0
    for record in records:
        messages = record["messages"]
        n_msgs.append(len(messages))
        n_chars.append(sum(message_chars(m) for m in messages))
        languages[record["meta"]["language"]] += 1
        with_tools += any(m.get("tool_calls") for m in messages)
        with_giant += any(m["role"] == "tool" and len(m["content"]) > GIANT_OUTPUT for m in messages)
    count = len(n_msgs)
    return {
        "conversations": count,
        "messages": (sum(n_msgs), min(n_msgs), statistics.median(n_msgs), max(n_msgs)),
        "characters": (sum(n_chars), min(n_chars), statistics.median(n_chars), max(n_chars)),
        "with_tools": with_tools / count,
        "with_giant_output": with_giant / count,
        "languages": dict(sorted(languages.items(), key=lambda kv: (-kv[1], kv[0]))),
    }


def _range(values: tuple) -> str:
    total, low, mid, high = values
    return f"{total:,} (min {low:,}, median {int(mid):,}, max {high:,})"


def markdown_table(columns: dict[str, dict]) -> str:
    """Render ``{file name: record_stats(...)}`` as a Markdown table, one column per file."""
    names = list(columns)
    rows = [
        ("Conversations", lambda s: f"{s['conversations']:,}"),
        ("Messages", lambda s: _range(s["messages"])),
        ("Characters (text + tool arguments)", lambda s: _range(s["characters"])),
        ("Share with tool calls", lambda s: f"{s['with_tools']:.0%}"),
        ("Share with a tool output > 50,000 chars", lambda s: f"{s['with_giant_output']:.0%}"),
        ("Languages", lambda s: ", ".join(f"{k} {v}" for k, v in s["languages"].items())),
    ]
    lines = ["| | " + " | ".join(f"`{n}`" for n in names) + " |", "|---|" + "---|" * len(names)]
    lines += [f"| {label} | " + " | ".join(fmt(columns[n]) for n in names) + " |" for label, fmt in rows]
    return "\n".join(lines)
