"""Summary quality: ROUGE of a compaction's summary and how much it compressed.

`summary_metrics` scores the summary a result carries against the text of the messages it
replaced (how much of the source it echoes) and against ``meta.reference_summary`` when the
dataset has one. Tokens come from `CJKTokenizer`, which keeps CJK characters as tokens
(rouge-score's default tokenizer drops everything non-ASCII, which scores Chinese summaries 0).

The scores are rouge-score's ``RougeScorer(["rouge1", "rouge2"], tokenizer=CJKTokenizer())``
plus ROUGE-L on the same tokens, to the last bit (the tests compare them), computed here
because per-turn replay scores hundreds of summaries against sources of tens of thousands of
tokens that grow turn by turn, and rouge-score spends seconds there:

- Tokens are cached per text: a source is the messages' texts joined by newlines, and no token
  spans a newline nor does ``str.lower`` look across one (final sigma stops at it), so the
  source's tokens are its messages' cached tokens, concatenated. Each message is tokenized once
  per conversation instead of twice per summary.
- ROUGE-N counts only the source n-grams the summary has (C-speed ``Counter`` over a filter),
  not every n-gram of the source through rouge-score's Python generator; the F1 is rouge-score's
  own formula (`scoring.fmeasure`) on the same integer counts.
- ROUGE-L takes an exact bit-parallel LCS (Hyyrö) whose bit vectors span the shorter side (the
  summary) and which skips the longer side's tokens the shorter lacks (they cannot change the
  vector); rouge-score's Python LCS table takes seconds on a 30k-token source.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import chain, islice
from typing import Any

from rouge_score import scoring, tokenizers

from ctxlab import caches
from ctxlab.messages import Conversation, Message
from ctxlab.tokens import get_counter

_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]"
                    r"|[^\W_\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")


class CJKTokenizer(tokenizers.Tokenizer):
    """Lower-cased words and numbers; each CJK character (Han, kana, Hangul) is a token."""

    def tokenize(self, text: str) -> list[str]:
        return _TOKEN.findall(text.lower())


# Per-turn replay scores the same messages again at every turn and window of a conversation;
# 2048 texts hold the messages of a long conversation, and bound the memory to theirs.
@caches.per_conversation
@functools.lru_cache(maxsize=2048)
def _text_tokens(text: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(text.lower()))


def _joined_tokens(texts: Iterable[str]) -> list[str]:
    """The tokens of ``"\\n".join(texts)``, from each text's cached tokens (no token spans a
    newline and lower-casing does not look across one, so they concatenate)."""
    return list(chain.from_iterable(map(_text_tokens, texts)))


def rouge(summary: str, reference: str) -> dict[str, float]:
    """ROUGE-1, ROUGE-2 and ROUGE-L F1 of `summary` against `reference`."""
    return _rouge_of_tokens(_text_tokens(summary), _text_tokens(reference))


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
    source_tokens = _joined_tokens(_full_text(m) for m in compacted)
    summary_tokens = counter.count(text)
    compacted_tokens = sum(counter.count_message(m) for m in compacted)
    out: dict[str, Any] = {**_rouge_of_tokens(_text_tokens(text), source_tokens), "summary_tokens": summary_tokens,
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


def _rouge_of_tokens(candidate: Sequence[str], reference: Sequence[str]) -> dict[str, float]:
    return {"rouge1": _ngram_f1(candidate, reference, 1), "rouge2": _ngram_f1(candidate, reference, 2),
            "rougeL": _f1(_lcs_length(candidate, reference), len(candidate), len(reference))}


def _ngram_f1(candidate: Sequence[str], reference: Sequence[str], n: int) -> float:
    """rouge-score's ROUGE-N F1: clipped n-gram matches over each side's n-gram count."""
    candidate_grams = Counter(_ngrams(candidate, n))
    # Only the reference n-grams the candidate has can match: count just those, at C speed.
    found = Counter(filter(candidate_grams.__contains__, _ngrams(reference, n)))
    matched = sum(map(min, found.values(), map(candidate_grams.__getitem__, found)))
    return _f1(matched, max(len(candidate) - n + 1, 0), max(len(reference) - n + 1, 0))


def _ngrams(tokens: Sequence[str], n: int) -> Iterable[Any]:
    """Unigrams as the tokens themselves, longer n-grams as tuples (as rouge-score keys them;
    only equality matters here)."""
    return tokens if n == 1 else zip(*(islice(tokens, i, None) for i in range(n)), strict=False)


def _f1(matched: int, candidate_total: int, reference_total: int) -> float:
    """rouge-score's F1 of `matched` units, guarded the way it guards empty sides."""
    return scoring.fmeasure(matched / max(candidate_total, 1), matched / max(reference_total, 1))


def _lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence, bit-parallel (Hyyrö 2004) over the shorter side."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    masks: dict[str, int] = {}
    for i, token in enumerate(short):
        masks[token] = masks.get(token, 0) | (1 << i)
    full = (1 << len(short)) - 1
    v = full
    # A token the shorter side lacks has mask 0 and leaves v as it is: skip it.
    for mask in filter(None, map(masks.get, long)):
        u = v & mask
        v = ((v + u) | (v - u)) & full
    return len(short) - v.bit_count()
