"""inspect_ai, Gemini CLI and Aider importers on the real logs in ``../shared/reallogs``: the counts
its README measured are the expectations. A missing folder is a failure, never a skip
(``CTXLAB_REALLOGS`` points a checkout elsewhere at it)."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from ctxlab.datasets import load_conversations
from ctxlab.datasets.logs.aider import NO_DELTA
from ctxlab.datasets.logs.aider_lines import sessions
from ctxlab.datasets.logs.deltas import delta_spans
from ctxlab.datasets.logs.gemini_responses import responses_usage
from ctxlab.metrics.provider import estimate_span
from ctxlab.tokens import get_counter

REAL = Path(os.environ.get("CTXLAB_REALLOGS") or Path(__file__).resolve().parents[3].parent / "shared" / "reallogs")
BROWSER = "inspect/2025-05-12T20-27-36-04-00_browser.json"
POPULARITY = "inspect/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"
GEMINI = "gemini_cli/test_conversation_gemini.json"
RESPONSES = {"gemini_cli/browser-agent.persistent-session.responses": 26,
             "gemini_cli/hooks-system.multiple-events.responses": 4}


@pytest.fixture(scope="module")
def real() -> Path:
    assert REAL.is_dir(), f"the real agent logs are missing: expected {REAL} (or set CTXLAB_REALLOGS)"
    return REAL


def test_every_file_of_the_new_formats_loads_or_is_refused_in_one_line(real):
    skips: list[tuple[str, str]] = []
    loaded = Counter(c.meta["format"] for folder in ("inspect", "gemini_cli", "aider")
                     for c in load_conversations(str(real / folder), strict=False,
                                                 on_skip=lambda w, r: skips.append((w, r))))
    assert loaded == {"inspect": 11, "gemini_cli": 1, "aider": 11}
    assert sorted(Path(w).name for w, _ in skips) == sorted(Path(p).name for p in RESPONSES)
    assert all(r.startswith("gemini-cli recorded responses (--record-responses): responses only, no prompts")
               and "\n" not in r for _, r in skips)


def test_the_inspect_browser_log_is_its_five_model_calls(real):
    conv, = load_conversations(str(real / BROWSER))
    assert Counter(m.role for m in conv.messages) == {"user": 1, "assistant": 5, "tool": 4}
    assert Counter(c.name for m in conv.messages for c in m.tool_calls) == {"web_browser_go": 1,
                                                                             "web_browser_click": 3}
    calls = conv.meta["provider_calls"]
    assert [c["prompt_tokens"] for c in calls] == [1124, 1568, 2732, 3896, 5915]
    assert [c["output_tokens"] for c in calls] == [23, 17, 17, 17, 207]
    assert [c["cache_read_tokens"] for c in calls] == [0, 1024, 1536, 2688, 3840]
    assert conv.meta["usage_check"]["agree"] and conv.meta["log_usage_check"]["agree"]
    assert conv.meta["log_usage_check"]["recorded"]["openai/gpt-4o-mini"]["input_tokens_cache_read"] == 9088
    assert "omitted" not in conv.meta and conv.meta["compactions"] == []  # all 93 attachment references resolved
    spans = delta_spans(conv)
    assert [s.skipped for s in spans] == [None] * 4
    o200k = get_counter("o200k_base")  # gpt-4o-mini's tokenizer: each delta within 1% of what was billed
    assert all(abs(estimate_span(o200k, conv, s) - s.actual) <= 0.01 * s.actual for s in spans)


def test_the_inspect_eval_zip_is_ten_single_turn_samples(real):
    convs = list(load_conversations(str(real / POPULARITY)))
    assert len(convs) == 10
    assert all([m.role for m in c.messages] == ["system", "user", "assistant"] for c in convs)
    assert all(len(c.meta["provider_calls"]) == 1 for c in convs)
    assert sum(c.meta["provider_calls"][0]["prompt_tokens"] for c in convs) == 620
    assert sum(c.meta["provider_calls"][0]["output_tokens"] for c in convs) == 20
    assert convs[-1].meta["log_usage_check"]["agree"] is True


def test_the_gemini_session_and_why_its_deltas_are_set_aside(real):
    conv, = load_conversations(str(real / GEMINI))
    assert Counter(m.role for m in conv.messages) == {"user": 1, "assistant": 3, "tool": 7}
    assert [[c.name for c in m.tool_calls] for m in conv.messages if m.role == "assistant"] == [
        ["read_file"] * 3, ["write_file"] * 4, []]
    assert conv.meta["model"] == "gemini-3.1-pro-preview-customtools"
    calls = conv.meta["provider_calls"]
    assert [(c["prompt_tokens"], c["cache_read_tokens"], c["output_tokens"]) for c in calls] == [
        (11894, 7900, 68 + 344), (20960, 11834, 8960 + 10849), (43494, 20092, 297 + 423)]
    thinking = Counter(t["message_id"] for t in conv.meta["thinking"])
    assert [thinking[m.id] for m in conv.messages if m.role == "assistant"] == [1, 36, 2]
    # Each later prompt grew by the span's messages plus the earlier call's thoughts (its
    # thoughtsTokenCount, resent as thought signatures; the short summaries recorded were not sent):
    # counted as they are, both deltas are usable and within 5% with o200k_base (-3.9% and +0.8%).
    spans = delta_spans(conv)
    assert [(s.skipped, s.thinking_tokens, s.thinking, s.actual) for s in spans] == [
        (None, 344, (), 20960 - 11894), (None, 10849, (), 43494 - 20960)]
    o200k = get_counter("o200k_base")
    errors = [(estimate_span(o200k, conv, s) - s.actual) / s.actual for s in spans]
    assert -0.05 < errors[0] < -0.03 and 0 < errors[1] < 0.01


@pytest.mark.parametrize(("name", "calls"), list(RESPONSES.items()))
def test_recorded_responses_give_their_usage(real, name, calls):
    usage = responses_usage(real / name)
    assert len(usage) == calls and {u.method for u in usage} == {"generateContentStream"}
    assert all(u.prompt_tokens > 0 and u.total_tokens >= u.prompt_tokens for u in usage)


def aider_history(real: Path, name: str) -> tuple[list, list]:
    path = real / "aider" / f"{name}.aider.chat.history.md"
    parsed = list(sessions(enumerate(path.read_text(encoding="utf-8").split("\n"), 1)))
    return parsed, list(load_conversations(str(path)))


def test_the_afi_core_aider_history(real):
    parsed, convs = aider_history(real, "afi-core")
    assert len(parsed) == 9 and sum(b.kind == "user" for s in parsed for b in s.blocks) == 49
    assert len(convs) == 8 and convs[4].meta["skipped"]["empty session before this one"] == 1
    calls = [c for conv in convs for c in conv.meta["provider_calls"]]
    assert len(calls) == 39 and all(c["cache_read_tokens"] == 0 for c in calls)
    assert abs(sum(c["prompt_tokens"] for c in calls) - 326_000) < 500  # "about 326k sent, 10.3k received"
    assert abs(sum(c["output_tokens"] for c in calls) - 10_300) < 50
    assert {c["model"] for c in calls} == {"gpt-4o", "gpt-4.1"}
    assert {conv.meta["version"] for conv in convs} == {"0.85.1", "0.85.2"}
    assert {s.skipped for conv in convs for s in delta_spans(conv)} == {NO_DELTA}


def test_the_mozgoslav_aider_history(real):
    parsed, convs = aider_history(real, "mozgoslav")
    assert len(parsed) == 3 and sum(b.kind == "user" for s in parsed for b in s.blocks) == 21
    calls = [c for conv in convs for c in conv.meta["provider_calls"]]
    assert len(calls) == 14 and {conv.meta["usage_total"]["cost_usd"] for conv in convs} == {None}
    assert abs(sum(c["prompt_tokens"] for c in calls) - 84_000) < 500  # "about 84k sent, 25.6k received"
    assert abs(sum(c["output_tokens"] for c in calls) - 25_600) < 100
    assert {c["model"] for c in calls} == {"lm_studio/qwen3.6-35b-a3b-uncensored-hauhaucs-aggressive"}
    # answers to "Add file to the chat?" echoed as input are not messages; the files they added are
    assert not any(m.text.startswith("Add file to the chat?") for conv in convs for m in conv.messages)
    assert sum(m.text.startswith("I added these files to the chat:") for conv in convs for m in conv.messages) == 6
