"""Fact extraction and fact recall (CONTRACTS.md: ground truth before `upto` plus auto facts of
messages the result does not keep whole)."""

from __future__ import annotations

import json
from types import SimpleNamespace

from ctxlab.messages import Conversation, Message, ToolCall
from ctxlab.metrics.facts import FactRecall, extract_facts, fact_recall, fact_recall_by_kind, ground_truth
from ctxlab.strategies import get_strategy

TEXT = """Fix the KeyError in src/app/db.py: UserRepository.get_by_id() fails with E1101 and HTTP 502.
Run `pytest -x tests/test_db.py` and read https://example.com/docs/cache. Cache TTL is 300s, limit 512 MB,
3 replicas, exit code 137, version 1.2.3, ERR_REQUIRE_ESM, max_retries in README.md
$ npm run build
共 5 个错误，耗时 3秒"""


def conversation(meta: dict | None = None) -> Conversation:
    messages = (
        Message("system", "You are an agent.", id="s"),
        Message("user", "Deploy api-gateway with 3 replicas to staging.", id="u1"),
        Message("assistant", "Reading the manifest.", id="a1",
                tool_calls=(ToolCall("c1", "read_file", json.dumps({"path": "deploy/gateway.yaml"})),)),
        Message("tool", "replicas: 2\nimage: gateway:1.4.2", id="t1", tool_call_id="c1"),
        Message("assistant", "Decision: use a rolling update with maxSurge 1.", id="a2"),
        Message("user", "Also set the memory limit to 512Mi.", id="u2"),
        Message("assistant", "Done.", id="a3"),
    )
    meta = meta if meta is not None else {"facts_detail": [
        {"fact": "3 replicas", "kind": "number", "message_index": 1},
        {"fact": "deploy/gateway.yaml", "kind": "path", "message_index": 2},
        {"fact": "use a rolling update  with maxSurge 1", "kind": "decision", "message_index": 4},
        {"fact": "512Mi", "kind": "number", "message_index": 5},
    ]}
    return Conversation("c", messages, meta=meta)


def result_of(messages, input_ids, dropped=(), truncated=()):
    return SimpleNamespace(messages=tuple(messages), input_ids=tuple(input_ids),
                           dropped_ids=tuple(dropped), truncated_ids=tuple(truncated))


def test_extract_facts_finds_the_concrete_kinds() -> None:
    facts = extract_facts(TEXT)
    for expected in ("src/app/db.py", "tests/test_db.py", "README.md", "KeyError", "E1101", "HTTP 502",
                     "exit code 137", "ERR_REQUIRE_ESM", "UserRepository", "get_by_id()", "max_retries",
                     "300s", "512 MB", "3 replicas", "1.2.3", "https://example.com/docs/cache",
                     "pytest -x tests/test_db.py", "npm run build", "5 个", "3秒"):
        assert expected in facts, expected
    assert len(facts) == len(set(facts))
    assert "the" not in facts and "Fix" not in facts


def test_extract_facts_does_not_split_urls_and_paths() -> None:
    facts = extract_facts("see https://docs.example.org/a_b/c.html and src/pkg/mod_x.py")
    assert "https://docs.example.org/a_b/c.html" in facts and "src/pkg/mod_x.py" in facts
    assert "a_b" not in facts and "mod_x" not in facts


def test_everything_kept_is_full_recall() -> None:
    conv = conversation()
    r = get_strategy("noop").compress(conv.messages, 10_000, counter="chars4")
    assert fact_recall(conv, r) == FactRecall(1.0, 4, 4, ())


def test_dropped_facts_are_missing_and_whitespace_is_normalized() -> None:
    conv = conversation()
    kept = [conv.messages[i] for i in (0, 4, 5, 6)]
    r = result_of(kept, [m.id for m in conv.messages], dropped=["u1", "a1", "t1"])
    fr = fact_recall(conv, r, auto=False)
    assert (fr.total, fr.kept) == (4, 2)
    assert set(fr.missing) == {"3 replicas", "deploy/gateway.yaml"}
    assert fr.recall == 0.5


def test_upto_limits_ground_truth() -> None:
    conv = conversation()
    r = result_of(conv.messages[:3], [m.id for m in conv.messages[:3]])
    fr = fact_recall(conv, r, upto=3, auto=False)
    assert fr.total == 2 and fr.recall == 1.0


def test_auto_facts_come_from_messages_not_kept_whole() -> None:
    conv = conversation()
    kept = [conv.messages[i] for i in (0, 1, 2, 4, 5, 6)]
    r = result_of(kept, [m.id for m in conv.messages], dropped=["t1"])
    fr = fact_recall(conv, r)
    assert fr.missing == ("1.4.2",)
    assert fr.total == 5
    # an id the result never saw (an earlier compaction removed it) counts as not kept whole
    r2 = result_of(kept, [m.id for m in kept])
    assert fact_recall(conv, r2).missing == fr.missing


def test_truncated_messages_contribute_auto_facts() -> None:
    conv = conversation()
    short = conv.messages[3].with_text("replicas: 2")
    kept = [*conv.messages[:3], short, *conv.messages[4:]]
    r = result_of(kept, [m.id for m in conv.messages], truncated=["t1"])
    assert fact_recall(conv, r).missing == ("1.4.2",)


def test_tool_call_arguments_count_as_kept_text() -> None:
    conv = Conversation("c", (
        Message("user", "Write the config.", id="u"),
        Message("assistant", None, id="a", tool_calls=(ToolCall("c1", "write_file", json.dumps(
            {"path": "conf/app.toml", "content": "timeout = 30\nretries = 5"})),)),
        Message("tool", "ok", id="t", tool_call_id="c1"),
    ), meta={"facts": ["conf/app.toml", "timeout = 30 retries = 5"]})
    r = get_strategy("noop").compress(conv.messages, 10_000, counter="chars4")
    assert fact_recall(conv, r, auto=False).recall == 1.0


def test_plain_facts_get_the_index_of_their_first_message() -> None:
    conv = conversation({"facts": ["3 replicas", "512Mi"]})
    assert [f.message_index for f in ground_truth(conv)] == [1, 5]
    r = result_of(conv.messages[:2], [m.id for m in conv.messages[:2]])
    assert fact_recall(conv, r, upto=2, auto=False).total == 1


def test_no_facts_is_none() -> None:
    conv = Conversation("c", (Message("user", "hello there", id="u"),), meta={})
    r = get_strategy("noop").compress(conv.messages, 100, counter="chars4")
    assert fact_recall(conv, r) == FactRecall(None, 0, 0, ())


def test_recall_by_kind() -> None:
    conv = conversation()
    kept = [conv.messages[i] for i in (0, 4, 5, 6)]
    r = result_of(kept, [m.id for m in conv.messages], dropped=["u1", "a1", "t1"])
    assert fact_recall_by_kind(conv, r) == {"number": (1, 2), "path": (0, 1), "decision": (1, 1)}


def test_facts_are_extracted_once_per_message_across_many_results(monkeypatch) -> None:
    from ctxlab.metrics import facts

    calls: list[int] = []
    original = facts.extract_facts
    monkeypatch.setattr(facts, "extract_facts", lambda text: calls.append(1) or original(text))
    big = tuple(Message("user", f"line {i}: src/mod_{i}.py took {i} ms\n" * 40, id=f"x{i}") for i in range(40))
    conv = Conversation("big", conversation().messages + big, meta=conversation().meta)
    messages = conv.messages
    results = [result_of(messages[k % 40:], [m.id for m in messages], dropped=[m.id for m in messages[:k % 40]])
               for k in range(2000)]
    recalls = [fact_recall(conv, r).recall for r in results]
    assert 0 < len(calls) <= len(messages)  # 2,000 results, yet each message's facts are extracted at most once
    assert recalls[0] > recalls[39]  # and the numbers still follow what each result keeps