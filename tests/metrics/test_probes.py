"""Probe QA: deterministic probes from the lost region, answered and judged through the local
fake endpoint (cached, failures recorded per probe)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from ctxlab.messages import Conversation, Message, ToolCall
from ctxlab.metrics.probes import make_probes, probe_table, run_probes
from ctxlab.strategies import get_strategy
from ctxlab.summarize.cache import MemoryCache
from ctxlab.summarize.client import Retry
from tests.summarize.fake_openai import FakeOpenAI

FAST = Retry(attempts=2, base_delay=0.01)


def conversation() -> Conversation:
    msgs = [Message("system", "You are a coding agent.", id="sys"),
            Message("user", "The checkout service fails with HTTP 502 after 30 seconds. Fix it.", id="u0"),
            Message("assistant", "Reading the ingress.", id="a0", tool_calls=(
                ToolCall("c0", "read_file", json.dumps({"path": "k8s/checkout/ingress.yaml"})),)),
            Message("tool", "proxy-read-timeout: 30\n" * 200, id="t0", tool_call_id="c0"),
            Message("assistant", "Decision: raise proxy-read-timeout to 120s because uploads take long.", id="a1",
                    tool_calls=(ToolCall("c1", "edit_file", json.dumps({"path": "k8s/checkout/ingress.yaml"})),)),
            Message("tool", "ok", id="t1", tool_call_id="c1"),
            Message("assistant", "Next, I will run conftest test k8s/ to check the policies.", id="a2")]
    for k in range(4):
        msgs += [Message("user", f"Also review service_{k}.yaml please, it has {k + 2} replicas.", id=f"u{k + 1}"),
                 Message("assistant", "Looked at it; nothing to change. " * 30, id=f"r{k + 1}")]
    facts = [{"fact": "HTTP 502", "kind": "error_code", "message_index": 1},
             {"fact": "30 seconds", "kind": "number", "message_index": 1},
             {"fact": "k8s/checkout/ingress.yaml", "kind": "path", "message_index": 2},
             {"fact": "raise proxy-read-timeout to 120s", "kind": "decision", "message_index": 4}]
    return Conversation("c", tuple(msgs), meta={"facts_detail": facts})


def window_result(conv: Conversation) -> SimpleNamespace:
    """A result that kept only the system prompt and the last two rounds."""
    kept = tuple(m for m in conv.messages if m.id in ("sys", "u3", "r3", "u4", "r4"))
    ids = {m.id for m in kept}
    return SimpleNamespace(messages=kept, input_ids=tuple(m.id for m in conv.messages),
                           dropped_ids=tuple(m.id for m in conv.messages if m.id not in ids), truncated_ids=())


def replies(body: dict) -> str:
    system = body["messages"][0]["content"]
    if system.startswith("You grade answers"):
        return 'Sure: {"score": 4, "reason": "mostly right"}'
    return "I believe it was HTTP 502."


def test_probes_cover_every_kind_from_the_lost_region() -> None:
    conv = conversation()
    probes = make_probes(conv, window_result(conv))
    kinds = [p.kind for p in probes]
    assert kinds[:2] == ["artifact", "continuation"] and {"recall", "decision"} <= set(kinds)
    artifact = probes[0]
    assert artifact.expected == ("k8s/checkout/ingress.yaml",)
    recall = next(p for p in probes if p.expected == ("HTTP 502",))
    assert '"The checkout service fails with ____ after 30 seconds."' in recall.question
    decision = next(p for p in probes if p.kind == "decision")
    assert "Decision: ____ because uploads take long." in decision.question
    continuation = probes[1]
    assert continuation.expected[0].startswith("Also review service_3.yaml")
    assert make_probes(conv, window_result(conv), max_probes=3)[2].kind in ("decision", "recall")
    kept_all = get_strategy("noop").compress(conv.messages, 100_000, counter="o200k_base")
    assert make_probes(conv, kept_all) == []


def test_run_probes_with_a_judge_and_the_cache() -> None:
    conv = conversation()
    result = window_result(conv)
    cache = MemoryCache()
    with FakeOpenAI(reply_fn=replies) as server:
        out = run_probes(conv, result, model="openai/gpt-4o-mini", api_base=server.api_base, api_key="sk-x",
                         cache=cache, retry=FAST)
        n = len(server.requests)
        again = run_probes(conv, result, model="openai/gpt-4o-mini", api_base=server.api_base, api_key="sk-x",
                           cache=cache, retry=FAST)
        assert len(server.requests) == n  # every answer and verdict came from the cache
    assert n == 2 * len(out) and out == again
    assert all(r.score == 4.0 and r.reason == "mostly right" and r.error is None for r in out)
    assert all(r.answer == "I believe it was HTTP 502." and r.cost_usd > 0 for r in out)
    context = server.requests[0]["messages"][0]["content"]
    assert "Also review service_3.yaml" in context and "HTTP 502" not in context
    table = probe_table(out)
    assert set(table["kind"]) == {"artifact", "continuation", "recall", "decision"}
    assert (table["mean_score"] == 4.0).all() and table["failed"].sum() == 0


def test_failures_and_bad_verdicts_are_recorded(monkeypatch) -> None:
    conv = conversation()
    with FakeOpenAI("error500") as server:
        out = run_probes(conv, window_result(conv), model="openai/x", api_base=server.api_base, cache="memory",
                         retry=FAST, max_probes=2)
    assert len(out) == 2 and all(r.score is None and "500" in r.error for r in out)
    with FakeOpenAI(reply="no json here") as server:
        out = run_probes(conv, window_result(conv), model="openai/x", api_base=server.api_base, cache="memory",
                         retry=FAST, max_probes=1)
    assert out[0].score is None and "unparsable" in out[0].error
    assert probe_table(out)["failed"].tolist() == [1]


def test_nothing_without_a_configured_model(monkeypatch) -> None:
    monkeypatch.delenv("CTXLAB_LLM_MODEL", raising=False)
    conv = conversation()
    assert run_probes(conv, window_result(conv), cache="memory") == []
    assert probe_table([]).empty


@pytest.mark.parametrize("reply,score", [('{"score": 7}', 5.0), ('{"score": -1, "reason": "x"}', 0.0)])
def test_scores_are_clamped(reply, score) -> None:
    from ctxlab.metrics.probes import _verdict

    assert _verdict(reply)[0] == score
