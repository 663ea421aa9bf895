"""Summary quality: ROUGE of a compaction's summary and how much it compressed.

`summary_metrics` scores the summary a result carries against the text of the messages it
replaced (how much of the source it echoes) and against ``meta.reference_summary`` when the
dataset has one. ROUGE-1/2 come from rouge-score with a tokenizer that keeps CJK characters as
tokens (its default tokenizer drops everything non-ASCII, which scores Chinese summaries 0).
ROUGE-L uses the same F1 on an LCS computed bit-parallel (Hyyrö), exact and fast enough for a
30k-token source, where rouge-score's pure-Python LCS table takes seconds.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

from rouge_score import rouge_scorer, tokenizers

from ctxlab.messages import Conversation, Message
from ctxlab.tokens import get_counter

_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]"
                    r"|[^\W_\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")


class CJKTokenizer(tokenizers.Tokenizer):
    """Lower-cased words and numbers; each CJK character (Han, kana, Hangul) is a token."""

    def tokenize(self, text: str) -> list[str]:
        return _TOKEN.findall(text.lower())


@functools.lru_cache(maxsize=1)
def _scorer() -> rouge_scorer.RougeScorer:
    return rouge_scorer.RougeScorer(["rouge1", "rouge2"], tokenizer=CJKTokenizer())


def rouge(summary: str, reference: str) -> dict[str, float]:
    """ROUGE-1, ROUGE-2 and ROUGE-L F1 of `summary` against `reference`."""
    scores = _scorer().score(reference, summary)
    tokens = CJKTokenizer()
    return {"rouge1": scores["rouge1"].fmeasure, "rouge2": scores["rouge2"].fmeasure,
            "rougeL": _lcs_f1(tokens.tokenize(reference), tokens.tokenize(summary))}


def summary_metrics(conversation: Conversation, result: Any) -> dict[str, Any]:
    """Summary figures of a result; empty when it has no summary.

    Keys: ``rouge1``, ``rouge2``, ``rougeL`` (against the compacted messages' text),
    ``ref_rouge1``, ``ref_rouge2``, ``ref_rougeL`` (against ``meta.reference_summary``, when
    present), ``summary_tokens``, ``compacted_tokens``, ``compacted_messages`` and
    ``compression_ratio`` (summary tokens / compacted tokens), under the result's counter.
    """
    text = result.summary
    if not text:
        return {}
    counter = get_counter(result.counter)
    compacted = _compacted(conversation, result.messages)
    source = "\n".join(_full_text(m) for m in compacted)
    summary_tokens = counter.count(text)
    compacted_tokens = sum(counter.count_message(m) for m in compacted)
    out: dict[str, Any] = {**rouge(text, source), "summary_tokens": summary_tokens,
                           "compacted_tokens": compacted_tokens, "compacted_messages": len(compacted),
                           "compression_ratio": summary_tokens / compacted_tokens if compacted_tokens else None}
    reference = (conversation.meta or {}).get("reference_summary")
    if isinstance(reference, str) and reference.strip():
        out.update({f"ref_{k}": v for k, v in rouge(text, reference).items()})
    return out


def _compacted(conversation: Conversation, messages: Sequence[Message]) -> list[Message]:
    """The original messages the result's summary messages stand for (carried summaries count
    through their own sources), in conversation order."""
    by_id = {m.id: m for m in conversation.messages}
    sources = {s for m in messages if m.mark == "summary" for s in m.source_ids}
    return [m for m in conversation.messages if m.id in sources and m.id in by_id]


def _full_text(message: Message) -> str:
    """All of a message's text, tool calls included (nothing clipped: the summary is scored
    against everything it replaced)."""
    return "\n".join([message.text, *(f"{c.name}({c.arguments})" for c in message.tool_calls)])


def _lcs_f1(reference: list[str], candidate: list[str]) -> float:
    if not reference or not candidate:
        return 0.0
    lcs = _lcs_length(reference, candidate)
    precision, recall = lcs / len(candidate), lcs / len(reference)
    return 0.0 if lcs == 0 else 2 * precision * recall / (precision + recall)


def _lcs_length(a: list[str], b: list[str]) -> int:
    """Length of the longest common subsequence, bit-parallel over `a` (Hyyrö 2004)."""
    masks: dict[str, int] = {}
    for i, token in enumerate(a):
        masks[token] = masks.get(token, 0) | (1 << i)
    full = (1 << len(a)) - 1
    v = full
    for token in b:
        u = v & masks.get(token, 0)
        v = ((v + u) | (v - u)) & full
    return len(a) - bin(v).count("1")

