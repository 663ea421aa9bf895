"""The report's example conversations: the original messages against what a few strategies kept.

The store keeps counts, not messages, so each example re-runs the stored strategy spec on the
stored conversation record at one of the run's windows (`ctxlab.analysis.explain`); strategies that would
call an LLM are left out, so writing a report never needs a network or spends money.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from ctxlab.analysis import explain
from ctxlab.report import htmlkit as H

EXAMPLE_CONVERSATIONS = 3
EXAMPLE_STRATEGIES = 3
# Strategies whose results differ most from one another come first; `noop` shows nothing.
PREFERENCE = ("compaction", "observation_masking", "window_guard", "key_message", "sliding_window", "gssc", "pipeline")
EXACT = ("o200k_base", "cl100k_base", "claude_legacy")
TEXT_PREVIEW = 110
TEXT_LIMIT = 4000


def example_conversations(conversations: pd.DataFrame, n: int = EXAMPLE_CONVERSATIONS) -> list[tuple[str, int, str]]:
    """(dataset, seq, conversation_id) of the first conversation of each dataset, then the next
    ones, up to `n`."""
    if conversations.empty:
        return []
    ordered = conversations.sort_values(["seq", "dataset"])
    firsts = ordered.drop_duplicates("dataset")
    rest = ordered.drop(firsts.index)
    picked = pd.concat([firsts, rest]).head(n)
    return [(str(r.dataset), int(r.seq), str(r.conversation_id)) for r in picked.itertuples()]


def example_variants(variants: pd.DataFrame, n: int = EXAMPLE_STRATEGIES) -> list[tuple[str, str, str]]:
    """(label, counter, params JSON) of up to `n` strategies, each with its most exact counter.

    Args:
        variants: `ctxlab.analysis.frames.variants` of the run.
    """
    if variants.empty:
        return []
    rank = {name: i for i, name in enumerate(PREFERENCE)}
    variants = variants.assign(
        order=variants["strategy"].map(lambda s: rank.get(s, len(rank))),
        exact=variants["counter"].map(lambda c: EXACT.index(c) if c in EXACT else len(EXACT)))
    variants = variants[variants["strategy"] != "noop"].sort_values(["order", "label", "exact"])
    picked = variants.drop_duplicates("label").head(n)
    return [(str(r.label), str(r.counter), str(r.params)) for r in picked.itertuples()]


def pick_window(windows: list[int], tokens: int) -> int:
    """The largest window below the conversation's size (something must give), else the smallest."""
    below = [b for b in sorted(windows) if b < tokens]
    return below[-1] if below else min(windows)


def examples_section(run: Any, records: dict[tuple[str, int], Any]) -> list[str]:
    """The example conversations of one run as HTML blocks."""
    out = ["<h3>Example conversations</h3>",
           H.para("Original messages against what each strategy keeps, re-run from the stored spec on the stored "
                  "conversation. Bars: message size (grey) and the part kept (green). Click a message to read it.")]
    if not records:
        return [*out, H.para("This run stored no conversation records.", "muted")]
    variants = example_variants(run.variants)
    windows = sorted(int(b) for b in run.results["window"].dropna().unique())
    for (dataset, seq), conversation in records.items():
        tokens = _tokens(run.conversations, dataset, seq)
        window = pick_window(windows, tokens)
        out.append(f"<h4>{H.esc(dataset)} #{seq}: {H.esc(conversation.id)} "
                   f"<span class=\"muted\">({len(conversation.messages)} messages, {tokens:,} tokens; "
                   f"window {window:,})</span></h4>")
        for label, counter, params in variants:
            out.append(_example(conversation, label, counter, params, window))
    return out


def _tokens(conversations: pd.DataFrame, dataset: str, seq: int) -> int:
    row = conversations[(conversations["dataset"] == dataset) & (conversations["seq"] == seq)]
    if row.empty:
        return 0
    counts = json.loads(row.iloc[0]["tokens"] or "{}")
    return int(max(counts.values())) if counts else 0


def _example(conversation: Any, label: str, counter: str, params: str, window: int) -> str:
    strategy = explain.build_strategy(params)
    if explain.uses_llm(strategy):
        return H.para(f"{label} [{counter}]: left out (its summarizer calls an LLM).", "muted")
    try:
        result = explain.rerun(conversation, params, window=window, counter=counter)
    except Exception as exc:  # a failing strategy is a finding to show, not a broken report
        return H.para(f"{label} [{counter}] failed on this conversation: {type(exc).__name__}: {exc}", "warn")
    fates = explain.message_fates(conversation.messages, result)
    counts = explain.fate_counts(fates)
    summary = ", ".join(f"{v} {k}" for k, v in counts.items() if v)
    head = (f"{label} [{counter}]: {result.tokens_before:,} -> {result.tokens_after:,} tokens, "
            f"{'fits' if result.fits else 'does not fit'}; {summary}")
    inner = _fate_table(fates)
    if result.summary:
        inner += "<h4>Summary written</h4>" + H.pre(result.summary, limit=TEXT_LIMIT)
    return H.details(head, inner)


def _fate_table(fates: pd.DataFrame) -> str:
    scale = int(fates["tokens"].max()) if not fates.empty else 1
    rows = []
    for r in fates.itertuples():
        text = r.text or ""
        preview = text[:TEXT_PREVIEW].replace("\n", " ") + ("..." if len(text) > TEXT_PREVIEW else "")
        body = H.pre(text, limit=TEXT_LIMIT)
        if r.fate == "truncated":
            body += "<strong>kept:</strong>" + H.pre(r.kept_text, limit=TEXT_LIMIT)
        cell = H.details(preview or "(empty)", body)
        position = "+" if r.position < 0 else str(r.position)
        rows.append(f'<tr><td>{H.esc(position)}</td><td class="l">{H.esc(r.role)}</td>'
                    f'<td class="l">{H.fate_badge(r.fate)}</td><td>{r.tokens:,}</td><td>{r.kept_tokens:,}</td>'
                    f'<td class="l">{H.token_bar(r.tokens, r.kept_tokens, scale)}</td><td class="l">{cell}</td></tr>')
    head = ('<tr><th>#</th><th class="l">role</th><th class="l">fate</th><th>tokens</th><th>kept</th>'
            '<th class="l">size</th><th class="l">text</th></tr>')
    return f'<div class="scroll"><table><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table></div>'
