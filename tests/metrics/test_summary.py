"""Summary metrics: ROUGE with a CJK-aware tokenizer, the fast LCS, and the figures of a result.

ROUGE is computed in ctxlab for speed; rouge-score stays the reference, matched to the last bit."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer

from ctxlab.messages import Conversation, Message, ToolCall
from ctxlab.metrics.summary import CJKTokenizer, rouge, summary_metrics
from ctxlab.strategies import get_strategy
from tests.strategies.test_compaction import session

REFERENCE = rouge_scorer.RougeScorer(["rouge1", "rouge2"], tokenizer=CJKTokenizer())
REFERENCE_L = rouge_scorer.RougeScorer(["rougeL"], tokenizer=CJKTokenizer())

# Words in several cases and scripts (Greek capital sigma, final and medial), CJK, kana, Hangul,
# separators that are and are not token characters, so generated texts share n-grams.
PIECES = ["alpha", "Alpha", "ALPHA", "beta", "v2", "42", "x_y", "ΟΔΟΣ", "οδος", "Σ", "σ", "ς", "ΑΣ",
          "登", "录", "用户", "修复", "ログイン", "ひらがな", "서울", "한국어", "İ", "Straße", "café",
          " ", " ", "\n", "\t", ".", "!", "？", "、", "_", "-", "'", "🙂"]
texts = st.one_of(st.just(""), st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=4)), max_size=60).map("".join))
PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reference_rouge(summary: str, reference: str) -> dict[str, float]:
    scores = {**REFERENCE.score(reference, summary), **REFERENCE_L.score(reference, summary)}
    return {k: s.fmeasure for k, s in scores.items()}


def test_tokenizer_keeps_cjk_characters() -> None:
    assert CJKTokenizer().tokenize("Fix 登录 bug in auth_v2！ログイン") == \
        ["fix", "登", "录", "bug", "in", "auth", "v2", "ロ", "グ", "イ", "ン"]
    scores = rouge("用户要求修复登录", "用户要求修复登录问题")
    assert scores["rouge1"] == pytest.approx(2 * 8 / (8 + 10))
    assert rouge("", "abc") == {"rouge1": 0.0, "rouge2": 0.0, "rougeL": 0.0}


@PROPERTY
@given(summary=texts, reference=texts)
def test_rouge_is_rouge_score_exactly(summary: str, reference: str) -> None:
    assert rouge(summary, reference) == reference_rouge(summary, reference)


def test_rouge_is_rouge_score_exactly_on_long_texts() -> None:
    rng = random.Random(7)
    vocab = "alpha beta gamma delta 中 文 x y z".split()
    for _ in range(100):
        a = " ".join(rng.choice(vocab) for _ in range(rng.randint(0, 400)))
        b = " ".join(rng.choice(vocab) for _ in range(rng.randint(0, 60)))
        assert rouge(b, a) == reference_rouge(b, a) and rouge(a, b) == reference_rouge(a, b)


@PROPERTY
@given(parts=st.lists(st.one_of(texts, st.text()), max_size=6))
def test_text_splits_at_newlines_without_changing_its_tokens(parts: list[str]) -> None:
    """Why a source may be tokenized message by message: lower-casing (final sigma included)
    never looks across a newline, and no token spans one."""
    joined = "\n".join(parts)
    assert joined.lower() == "\n".join(p.lower() for p in parts)
    tokenizer = CJKTokenizer()
    assert tokenizer.tokenize(joined) == [t for p in parts for t in tokenizer.tokenize(p)]


def test_final_sigma_stops_at_a_newline() -> None:
    assert "ΟΔΟΣ\nΑ".lower() == "οδος\nα" == "\n".join(["ΟΔΟΣ".lower(), "Α".lower()])
    assert "ΟΔΟΣΑ".lower() == "οδοσα"  # without the newline the sigma is not final


@PROPERTY
@given(bodies=st.lists(st.tuples(st.one_of(texts, st.lists(texts, min_size=1, max_size=3).map(tuple)),
                                 st.lists(texts, max_size=2)), min_size=1, max_size=6),
       summary=texts, data=st.data())
def test_summary_metrics_score_the_joined_source_exactly(bodies, summary: str, data) -> None:
    messages = tuple(Message("tool" if calls else "user", content, id=f"m{i}",
                             tool_calls=tuple(ToolCall(f"c{i}{j}", f"f{j}", a) for j, a in enumerate(calls)))
                     for i, (content, calls) in enumerate(bodies))
    compacted = data.draw(st.lists(st.sampled_from([m.id for m in messages]), min_size=1, unique=True))
    result = SimpleNamespace(summary=summary or "s", counter="o200k_base", messages=(
        Message("user", summary or "s", id="sum", mark="summary", source_ids=tuple(compacted)),))
    source = "\n".join("\n".join([m.text, *(f"{c.name}({c.arguments})" for c in m.tool_calls)])
                       for m in messages if m.id in compacted)
    for _ in range(2):  # the second time from cached tokens
        m = summary_metrics(Conversation("c", messages), result)
        assert {k: m[k] for k in ("rouge1", "rouge2", "rougeL")} == reference_rouge(result.summary, source)


def test_summary_metrics_of_a_compaction() -> None:
    msgs = session(6)
    conv = Conversation("c", msgs, meta={"reference_summary": "Fixed src/mod_0.py through src/mod_3.py."})
    r = get_strategy("compaction").compress(msgs, 5000, counter="o200k_base")
    m = summary_metrics(conv, r)
    assert set(m) == {"rouge1", "rouge2", "rougeL", "ref_rouge1", "ref_rouge2", "ref_rougeL", "summary_tokens",
                      "compacted_tokens", "compacted_messages", "compression_ratio"}
    assert 0 < m["rouge1"] <= 1 and 0 < m["ref_rouge1"] <= 1
    assert m["compacted_messages"] == 20 and m["summary_tokens"] < m["compacted_tokens"]
    assert m["compression_ratio"] == pytest.approx(m["summary_tokens"] / m["compacted_tokens"])
    assert {k: m[f"ref_{k}"] for k in ("rouge1", "rouge2", "rougeL")} == \
        reference_rouge(r.summary, conv.meta["reference_summary"])


def test_no_summary_no_metrics() -> None:
    msgs = session(2)
    r = get_strategy("noop").compress(msgs, 100_000, counter="o200k_base")
    assert summary_metrics(Conversation("c", msgs), r) == {}


def test_carried_summaries_trace_back_to_the_originals() -> None:
    msgs = session(8)
    compaction = get_strategy("compaction")
    first = compaction.compress(msgs[:26], 5000, counter="o200k_base")
    second = compaction.compress(first.messages + msgs[26:], 5000, counter="o200k_base")
    m = summary_metrics(Conversation("c", msgs), second)
    assert m["compacted_messages"] == 30  # rounds 0..5, through the first summary
