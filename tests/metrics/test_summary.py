"""Summary metrics: ROUGE with a CJK-aware tokenizer, the fast LCS, and the figures of a result."""

from __future__ import annotations

import random

import pytest
from rouge_score import rouge_scorer

from ctxlab.messages import Conversation
from ctxlab.metrics.summary import CJKTokenizer, rouge, summary_metrics
from ctxlab.strategies import get_strategy
from tests.strategies.test_compaction import session


def test_tokenizer_keeps_cjk_characters() -> None:
    assert CJKTokenizer().tokenize("Fix 登录 bug in auth_v2！ログイン") == \
        ["fix", "登", "录", "bug", "in", "auth", "v2", "ロ", "グ", "イ", "ン"]
    scores = rouge("用户要求修复登录", "用户要求修复登录问题")
    assert scores["rouge1"] == pytest.approx(2 * 8 / (8 + 10))
    assert rouge("", "abc") == {"rouge1": 0.0, "rouge2": 0.0, "rougeL": 0.0}


def test_rouge_l_matches_rouge_score() -> None:
    scorer = rouge_scorer.RougeScorer(["rougeL"], tokenizer=CJKTokenizer())
    rng = random.Random(7)
    vocab = "alpha beta gamma delta 中 文 x y z".split()
    for _ in range(300):
        a = " ".join(rng.choice(vocab) for _ in range(rng.randint(0, 50)))
        b = " ".join(rng.choice(vocab) for _ in range(rng.randint(0, 50)))
        assert rouge(b, a)["rougeL"] == pytest.approx(scorer.score(a, b)["rougeL"].fmeasure, abs=1e-12)


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
