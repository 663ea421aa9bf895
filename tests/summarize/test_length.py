"""The offline summary's length law (`ctxlab.summarize.length`): as long as an LLM answering the
same request would write, calibrated on the compactions the shared logs record, never over the cap."""

from __future__ import annotations

import pytest

from ctxlab.datasets import load_conversations
from ctxlab.strategies.mechanics.agent_llm import request_prompts
from ctxlab.strategies.mechanics.shaped import Shaped
from ctxlab.strategies.mechanics.voices import VOICES
from ctxlab.summarize import get_summarizer
from ctxlab.summarize.length import HALF, RATE, STRUCTURED, summary_length
from ctxlab.tokens import get_counter
from tests.cost.conftest import REALLOGS

O200K = get_counter("o200k_base")


def test_the_law_grows_with_the_prompt_and_saturates_with_the_input():
    assert summary_length(1000, 0) == 0 and summary_length(0, 5000) == 0
    assert summary_length(1000, HALF) == round(RATE * 1000 / 2)
    assert summary_length(1000, 10 * HALF) < summary_length(1000, 100 * HALF) < RATE * 1000
    assert summary_length(2000, 50_000) == pytest.approx(2 * summary_length(1000, 50_000), abs=1)


@pytest.mark.parametrize(("log", "voice", "prompt"), [
    ("claude_code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl", "claude_code", "history"),
    ("claude_code/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl", "claude_code", "history"),
])
def test_it_predicts_the_recorded_summaries_it_was_fitted_on(log, voice, prompt):
    conv = next(iter(load_conversations(REALLOGS / log)))
    record = conv.meta["compactions"][0]
    read = sum(O200K.count_message(m) for m in conv.messages[:record["index"]])
    predicted = summary_length(O200K.count(getattr(request_prompts(voice), prompt)), read)
    assert abs(predicted / O200K.count(record["summary"]) - 1) < 0.05


def test_the_extractive_summary_follows_the_law_under_the_cap():
    conv = next(iter(load_conversations(REALLOGS / "claude_code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl")))
    part = conv.messages[:135]
    read = sum(O200K.count_message(m) for m in part)
    plain = get_summarizer("extractive").summarize(part, counter=O200K, max_tokens=50_000)
    target = summary_length(O200K.count(STRUCTURED.history), read)
    assert 0.8 * target <= plain.output_tokens <= target
    assert get_summarizer("extractive").summarize(part, counter=O200K, max_tokens=300).output_tokens <= 300
    prefix = get_summarizer("extractive").summarize_turn_prefix(part, counter=O200K, max_tokens=50_000)
    assert prefix.output_tokens <= summary_length(O200K.count(STRUCTURED.prefix), read) < plain.output_tokens


def test_an_agent_voice_writes_as_long_as_its_own_prompt_asks():
    conv = next(iter(load_conversations(REALLOGS / "claude_code/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl")))
    part = conv.messages[:302]
    sizes = {v: Shaped(VOICES[v], voice_name=v).summarize(part, counter=O200K, max_tokens=50_000).output_tokens
             for v in ("claude_code", "pi", "codex")}
    assert sizes["claude_code"] > 2 * sizes["pi"] > 2 * sizes["codex"]
    assert abs(sizes["claude_code"] / 3579 - 1) < 0.15  # the recorded summary of this compaction
    assert request_prompts("ctxlab") == STRUCTURED and request_prompts("pi").update != request_prompts("pi").history
