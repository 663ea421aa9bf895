"""Properties of the synthetic dataset generator and of the bundled data files."""

from __future__ import annotations

import hashlib
import json
import re
import statistics
from pathlib import Path

import pytest

from ctxlab.datasets.synth import (
    AGENT_FILE,
    CHAT_FILE,
    DEFAULT_SEED,
    generate_agent_sessions,
    generate_chats,
    generate_mixed,
    write_samples,
)
from ctxlab.datasets.synth.util import FACT_KINDS, message_chars, message_text

DATA = Path(__file__).resolve().parents[2] / "data"
CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
HANGUL = re.compile(r"[\uac00-\ud7af]")
SUMMARY_HEADINGS = ("Goal:", "Constraints:", "Progress:", "Key Decisions:", "Next Steps:")


def _load(name: str) -> list[dict]:
    with (DATA / name).open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


@pytest.fixture(scope="module")
def agents() -> list[dict]:
    return _load(AGENT_FILE)


@pytest.fixture(scope="module")
def chats() -> list[dict]:
    return _load(CHAT_FILE)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_generation_is_deterministic():
    assert list(generate_agent_sessions(4, seed=7)) == list(generate_agent_sessions(4, seed=7))
    assert list(generate_chats(20, seed=7)) == list(generate_chats(20, seed=7))
    assert list(generate_agent_sessions(2, seed=7)) != list(generate_agent_sessions(2, seed=8))


def test_record_does_not_depend_on_how_many_are_requested():
    assert list(generate_agent_sessions(3))[2] == list(generate_agent_sessions(5))[2]


def test_committed_files_equal_a_fresh_generation(tmp_path):
    written = write_samples(tmp_path, seed=DEFAULT_SEED)
    assert [p.name for p in written] == [AGENT_FILE, CHAT_FILE]
    for path in written:
        stale = f"data/{path.name} is stale; regenerate it with: python -m ctxlab.datasets.synth data/"
        assert _sha256(path) == _sha256(DATA / path.name), stale


def test_every_tool_call_is_answered_right_after_its_message(agents, chats):
    for record in agents + chats:
        messages = record["messages"]
        offered = {tool["function"]["name"] for tool in record.get("tools", [])}
        seen_ids: set[str] = set()
        i = 0
        while i < len(messages):
            message = messages[i]
            assert message["role"] != "tool", f"{record['id']}: orphan tool result at {i}"
            calls = message.get("tool_calls") or []
            assert message["content"] is not None or calls, f"{record['id']}: empty message at {i}"
            for offset, call in enumerate(calls, start=1):
                answer = messages[i + offset] if i + offset < len(messages) else {}
                assert answer.get("role") == "tool", f"{record['id']}: call {call['id']} unanswered"
                assert answer["tool_call_id"] == call["id"] and answer["name"] == call["function"]["name"]
                assert call["type"] == "function" and call["id"].startswith("call_")
                assert call["function"]["name"] in offered
                assert isinstance(json.loads(call["function"]["arguments"]), dict)
                assert call["id"] not in seen_ids
                seen_ids.add(call["id"])
            i += 1 + len(calls)


def test_messages_are_well_formed(agents, chats):
    for record in agents + chats:
        assert 2 <= len(record["messages"]) <= 150
        for message in record["messages"]:
            assert message["role"] in {"system", "user", "assistant", "tool"}
            assert "id" not in message


def test_agent_facts_are_verbatim_in_their_message_and_in_the_summary(agents):
    first_half = total = 0
    for record in agents:
        meta = record["meta"]
        details = meta["facts_detail"]
        assert 8 <= len(details) <= 25, record["id"]
        assert meta["facts"] == [d["fact"] for d in details]
        assert len(set(meta["facts"])) == len(meta["facts"])
        for detail in details:
            assert detail["kind"] in FACT_KINDS
            assert detail["fact"] in message_text(record["messages"][detail["message_index"]]), (record["id"], detail)
            assert detail["fact"] in meta["reference_summary"], (record["id"], detail["fact"])
            first_half += detail["message_index"] < len(record["messages"]) / 2
            total += 1
        assert all(heading in meta["reference_summary"] for heading in SUMMARY_HEADINGS), record["id"]
        assert any(d["kind"] == "decision" for d in details)
    assert first_half / total >= 0.5  # compression drops the beginning first: test it hardest


def test_chat_facts_are_verbatim_in_their_message(chats):
    for record in chats:
        for detail in record["meta"]["facts_detail"]:
            assert detail["fact"] in message_text(record["messages"][detail["message_index"]]), (record["id"], detail)
    assert sum(bool(r["meta"]["facts"]) for r in chats) / len(chats) > 0.9


def test_enough_sessions_have_a_giant_tool_output(agents):
    giant = [r for r in agents if any(m["role"] == "tool" and len(m["content"]) > 50_000 for m in r["messages"])]
    assert len(giant) / len(agents) >= 0.15


def test_sizes_match_the_intended_shape(agents, chats):
    chars = [sum(message_chars(m) for m in r["messages"]) for r in agents]
    assert min(chars) >= 10_000 and max(chars) <= 250_000
    assert 30_000 <= statistics.median(chars) <= 50_000
    assert sum(len(r["messages"]) >= 100 for r in agents) >= 3  # for repeated-compaction drift
    assert all(2 <= len(r["messages"]) <= 40 for r in chats)
    total_mb = ((DATA / AGENT_FILE).stat().st_size + (DATA / CHAT_FILE).stat().st_size) / 1e6
    assert 4 <= total_mb <= 8


def test_language_mix(agents, chats):
    def share(records, lang):
        return sum(r["meta"]["language"] == lang for r in records) / len(records)

    assert 0.15 <= share(agents, "zh") <= 0.25 and 0.05 <= share(agents, "ja") <= 0.15
    assert share(agents, "mixed") > 0
    for record in agents:
        users = " ".join(message_text(m) for m in record["messages"] if m["role"] == "user")
        assert bool(CJK.search(users)) == (record["meta"]["language"] != "en"), record["id"]
    assert any(CJK.search(message_text(m)) for r in agents for m in r["messages"] if m["role"] == "assistant")
    assert 0.15 <= share(chats, "zh") <= 0.25 and share(chats, "ko") > 0
    assert all(HANGUL.search(message_text(r["messages"][-1])) for r in chats if r["meta"]["language"] == "ko")


def test_chat_variants_are_present(chats):
    users = [m for r in chats for m in r["messages"] if m["role"] == "user"]
    assert any(isinstance(m["content"], list) and m["content"][0]["type"] == "text" for m in users)
    assert any("name" in m for m in users)
    assert any("```" in message_text(m) for r in chats for m in r["messages"])
    assert all("tools" not in r for r in chats)


def test_front_end_sessions_carry_raw_html(agents):
    texts = [m["content"] for r in agents for m in r["messages"] if m["role"] == "tool"]
    assert any('<script src="app.js"></script>' in t for t in texts)
    assert any("<img src=x onerror" in t for t in texts)


def test_tool_definitions_are_well_formed(agents):
    for record in agents:
        names = [tool["function"]["name"] for tool in record["tools"]]
        assert 5 <= len(names) <= 8 and len(set(names)) == len(names)
        for tool in record["tools"]:
            assert tool["type"] == "function"
            fn = tool["function"]
            assert fn["description"] and fn["parameters"]["type"] == "object"
            props = fn["parameters"]["properties"]
            assert set(fn["parameters"]["required"]) <= set(props)
            for prop in props.values():
                assert prop["type"] in {"string", "integer", "boolean"} and prop["description"]
                assert "enum" not in prop or all(isinstance(v, str) for v in prop["enum"])


def test_mixed_stream_has_unique_ids_and_reuses_the_family_records():
    ids, first_agents = [], []
    for record in generate_mixed(2000):
        ids.append(record["id"])
        if record["meta"]["kind"] == "agent" and len(first_agents) < 2:
            first_agents.append(record)
    assert len(set(ids)) == len(ids) == 2000
    assert {i.split("-")[0] for i in ids} == {"agent", "chat"}
    assert first_agents == list(generate_agent_sessions(2))
