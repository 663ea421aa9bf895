"""`CompressionResult.summary` means one thing for every strategy: the text of the newest summary
message the result carries (written by the call or carried in), None when it carries none."""

from __future__ import annotations

import pytest

import ctxlab
from ctxlab.messages import Message
from ctxlab.summarize.message import wrap

CONTEXT = (Message("system", "Be brief.", id="s"),
           Message("user", wrap("an older summary"), id="x1", mark="summary", source_ids=("a",)),
           Message("user", wrap("the newest summary"), id="x2", mark="summary", source_ids=("b",)),
           Message("user", "What next?", id="u"))


@pytest.mark.parametrize("name", ctxlab.list_strategies())
def test_a_carried_summary_is_reported_by_every_strategy(name: str) -> None:
    result = ctxlab.get_strategy(name).compress(CONTEXT, 100_000, counter="o200k_base")
    carried = [m for m in result.messages if m.mark == "summary"]
    if not carried:
        assert result.summary is None, name  # folded away (gssc's structured context)
    elif carried[-1] in CONTEXT:  # unwrapped as the strategy's voice wraps (OpenHands' holds the summary alone)
        assert result.summary and "the newest summary" in result.summary and "older" not in result.summary, name
    else:
        assert result.summary and result.summary in carried[-1].text, name  # a new summary it wrote


def test_a_new_summary_is_the_one_reported() -> None:
    messages = [Message("system", "Be brief.", id="s")]
    for i in range(8):
        messages += [Message("user", f"Task {i}: edit src/mod_{i}.py. " * 40, id=f"u{i}"),
                     Message("assistant", f"Done with src/mod_{i}.py. " * 40, id=f"a{i}")]
    result = ctxlab.get_strategy("compaction").compress(messages, 2000, counter="o200k_base")
    summaries = [m for m in result.messages if m.mark == "summary"]
    assert len(summaries) == 1 and result.summary and result.summary in summaries[0].text
