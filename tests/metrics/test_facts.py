"""Fact extraction and fact recall (CONTRACTS.md: ground truth before `upto` plus auto facts of
messages the result does not keep whole).

The module's fast paths (bitmasks, pieces of text cut at line breaks, chunks of long lines,
rewritten extraction patterns) are checked against the plain definitions written out here."""

from __future__ import annotations

import json
import re
import time
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ctxlab.datasets import load_conversations
from ctxlab.messages import Conversation, Message, ToolCall
from ctxlab.metrics import facts
from ctxlab.metrics.facts import (FactRecall, extract_facts, fact_recall, fact_recall_by_kind, ground_truth,
                                  kept_facts, kept_text, normalize)
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

# --- the plain definitions -------------------------------------------------------------------

def plain_universe(conv: Conversation) -> list[str]:
    """Every fact of the conversation: the ground truth, then each message's auto facts."""
    found = [normalize(f.fact) for f in ground_truth(conv)]
    found += [normalize(f) for m in conv.messages for f in extract_facts(facts._raw_text(m))]
    return list(dict.fromkeys(f for f in found if f))


def plain_kept(conv: Conversation, messages) -> set[str]:
    """A fact is kept when it occurs in the normalized text of one of the messages."""
    texts = [kept_text([m]) for m in messages]
    return {f for f in plain_universe(conv) if any(f in t for t in texts)}


def plain_fact_recall(conv: Conversation, result, upto: int | None = None, auto: bool = True) -> FactRecall:
    wanted = [normalize(f.fact) for f in ground_truth(conv) if upto is None or f.message_index < upto]
    if auto:
        whole = set(result.input_ids).difference(result.dropped_ids, result.truncated_ids)
        wanted += [normalize(f) for m in conv.messages[:upto] if m.id not in whole
                   for f in extract_facts(facts._raw_text(m))]
    wanted = list(dict.fromkeys(f for f in wanted if f))
    kept = plain_kept(conv, result.messages)
    missing = tuple(f for f in wanted if f not in kept)
    total = len(wanted)
    return FactRecall((total - len(missing)) / total if total else None, total, total - len(missing), missing)


# Pieces that make facts (paths, identifiers, numbers with units, errors), CJK, and every kind of
# whitespace normalization collapses (a fact can span what was a line break).
PIECES = ["src/app.py", "db.py", "a/b", "FooBar", "fooBar", "max_retries", "get()", "3", "12", "1.2.3",
          " replicas", " MB", "ms", "个", "秒", "KeyError", "E1101", "HTTP 502", "exit code 1", "`ls -la`",
          "用户", "。", "x", "y", ".", ":", ";", ",", "-", "@", "(", ")", " ", " ", "  ", "\n", "\n\n",
          "\t", "\r\n", "\u3000", "\x1c", " \n "]
texts = st.lists(st.one_of(st.sampled_from(PIECES), st.text(alphabet="ab .\n3", max_size=3)), max_size=25).map("".join)
PROPERTY = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def conversations(draw) -> Conversation:
    bodies = draw(st.lists(texts, min_size=1, max_size=6))
    messages = tuple(Message("user" if i % 2 == 0 else "assistant", body, id=f"m{i}") for i, body in enumerate(bodies))
    normalized = [normalize(b) for b in bodies if normalize(b)]
    extracted = [normalize(f) for b in bodies for f in extract_facts(b)]
    # Ground truth from a few candidates (so repeated, at indices in any order): pieces of the
    # messages' normalized text (so across line breaks), facts also extracted, or anything.
    candidate = st.one_of(
        st.sampled_from(normalized or [""]).flatmap(
            lambda s: st.tuples(st.integers(0, len(s)), st.integers(1, 12)).map(lambda ab: s[ab[0]:ab[0] + ab[1]])),
        st.sampled_from(extracted or [""]), texts)
    pool = draw(st.lists(candidate, min_size=1, max_size=4))
    ground = draw(st.lists(st.tuples(st.sampled_from(pool), st.integers(0, len(messages) - 1)), max_size=8))
    return Conversation("c", messages, meta={"facts_detail": [
        {"fact": f, "kind": "k", "message_index": i} for f, i in ground]})


@st.composite
def results(draw, conv: Conversation):
    """A result: originals kept whole, truncated copies, and new messages made of pieces of the
    conversation's texts (joined by newlines or spaces, repeated into long lines at times). Some
    messages are absent though the result does not say it dropped them."""
    messages = conv.messages
    upto = draw(st.one_of(st.none(), st.integers(0, len(messages))))
    before = messages[:upto]
    kept: list[Message] = []
    truncated: list[str] = []
    whole: set[str] = set()
    for m in before:
        fate = draw(st.sampled_from(["whole", "dropped", "truncated", "absent"]))
        if fate == "whole":
            kept.append(m)
        elif fate == "truncated":
            cut = draw(st.integers(0, len(m.text)))
            kept.append(m.with_text(m.text[:cut]))
            truncated.append(m.id)
        whole.update([m.id] if fate in ("whole", "absent") else [])
    for n in range(draw(st.integers(0, 3))):
        parts = draw(st.lists(st.sampled_from([m.text for m in messages]).flatmap(
            lambda t: st.tuples(st.integers(0, len(t)), st.integers(0, len(t))).map(lambda ab: t[min(ab):max(ab)])),
            max_size=5))
        body = draw(st.sampled_from(["\n", " ", "\n\n", ""])).join(parts) * draw(st.sampled_from([1, 1, 60]))
        kept.append(Message("user", body, id=f"s{n}", mark="summary"))
    ids = [m.id for m in before]
    # Sometimes the result saw fewer messages than `upto` (an earlier compaction removed some).
    input_ids = ids if draw(st.booleans()) else ids[:len(ids) // 2]
    return upto, SimpleNamespace(messages=tuple(kept), input_ids=tuple(input_ids), truncated_ids=tuple(truncated),
                                 dropped_ids=tuple(i for i in input_ids if i not in whole and i not in truncated))


@PROPERTY
@given(st.data())
def test_recall_matches_the_plain_definition(data) -> None:
    conv = data.draw(conversations())
    for _ in range(3):  # several results against one conversation, as a replay scores them
        upto, result = data.draw(results(conv))
        for auto in (True, False):
            assert fact_recall(conv, result, upto, auto=auto) == plain_fact_recall(conv, result, upto, auto)
        assert kept_facts(conv, result.messages) == plain_kept(conv, result.messages)
        plain = plain_kept(conv, result.messages)
        by_kind = fact_recall_by_kind(conv, result, upto)
        wanted = [f for f in ground_truth(conv) if upto is None or f.message_index < upto]
        assert by_kind == ({"k": (sum(normalize(f.fact) in plain for f in wanted), len(wanted))} if wanted else {})


@PROPERTY
@given(st.lists(texts, min_size=1, max_size=4), st.lists(texts, max_size=8))
def test_facts_are_found_wherever_they_occur(bodies, candidates) -> None:
    """Overlapping and nested facts, facts across line breaks and across the chunks of long lines."""
    conv = Conversation("c", tuple(Message("user", b, id=f"m{i}") for i, b in enumerate(bodies)),
                        meta={"facts": candidates})
    long_line = Message("user", " ".join(b.replace("\n", " ") for b in bodies) * 80, id="long")
    probes = [*conv.messages, long_line, Message("user", "\n".join(bodies), id="joined")]
    for message in probes:
        assert kept_facts(conv, [message]) == plain_kept(conv, [message])


def order_conversation(ground: list[tuple[str, int]]) -> Conversation:
    messages = (Message("user", "Use src/a.py and FooBar.", id="m0"),
                Message("assistant", "Then src/b.py, FooBar and 3 replicas.", id="m1"),
                Message("user", "Also 3 replicas of BazQux.", id="m2"),
                Message("assistant", "Done.", id="m3"))
    return Conversation("c", messages, meta={"facts_detail": [
        {"fact": f, "kind": "k", "message_index": i} for f, i in ground]})


@pytest.mark.parametrize(("ground", "upto", "dropped", "expected"), [
    # ground truth in its own order (a repeat, indices out of order), then auto facts as they come up
    ([("BazQux", 3), ("3 replicas", 1), ("BazQux", 0), ("src/b.py", 2)], 3, ["m0", "m1", "m2"],
     ("3 replicas", "BazQux", "src/b.py", "src/a.py", "FooBar")),
    # a ground-truth fact stated after `upto` is wanted where an earlier lost message mentions it
    ([("src/b.py", 3), ("FooBar", 0)], 2, ["m0", "m1"], ("FooBar", "src/a.py", "src/b.py", "3 replicas")),
    # m0 is whole by the ids but absent: FooBar, first in m0, is wanted (and missing) from m1
    ([], 2, ["m1"], ("src/b.py", "FooBar", "3 replicas")),
])
def test_missing_facts_come_in_the_order_they_are_wanted(ground, upto, dropped, expected) -> None:
    conv = order_conversation(ground)
    r = result_of([], [m.id for m in conv.messages[:upto]], dropped=dropped)
    assert fact_recall(conv, r, upto).missing == expected == plain_fact_recall(conv, r, upto).missing


def test_facts_across_line_breaks_and_in_cjk() -> None:
    conv = conversation({"facts": ["3 replicas", "共 5 个", "timeout = 30 retries = 5", "a.b c"]})
    message = Message("user", "scale to 3\n  replicas\r\n共 5\n\n个 错误; timeout = 30\tretries =\u30005 a.b\nc",
                      id="x")
    assert {"3 replicas", "共 5 个", "timeout = 30 retries = 5", "a.b c"} <= kept_facts(conv, [message])
    assert {"3 replicas", "a.b c"}.isdisjoint(kept_facts(conv, [Message("user", "3\nreplica a.b\nd", id="y")]))


def test_partial_copies_of_a_long_line() -> None:
    """A long line is searched in chunks; its truncated copies reuse them, and facts that span two
    chunks (a chunk ends after "; " as often as not here) are found in every copy that holds them."""
    line = " ".join(f"step {i}: wrote src/mod_{i}.py in {i} ms; exit code {i % 3}." for i in range(400))
    conv = Conversation("c", (Message("tool", line, id="t"),),
                        meta={"facts": [f"mod_{i}.py in {i} ms; exit code {i % 3}" for i in range(400)]})
    for cut in (50, 333, 2100, 5000, 9999, len(line)):
        copy = Message("tool", line[:cut], id="t", mark="truncated")
        assert kept_facts(conv, [copy]) == plain_kept(conv, [copy])
    assert len(kept_facts(conv, [conv.messages[0]])) == len(plain_universe(conv))


def test_small_caches_give_the_same_answers(monkeypatch) -> None:
    monkeypatch.setattr(facts, "_MESSAGE_ENTRIES", 2)
    monkeypatch.setattr(facts, "_MESSAGE_CHARS", 100)
    monkeypatch.setattr(facts, "_TEXT_CHARS", 100)
    monkeypatch.setattr(facts, "_MEMO_ENTRIES", 1)
    conv = conversation()
    for k in range(1, len(conv.messages) + 1):
        kept = conv.messages[k - 1:]
        r = result_of(kept, [m.id for m in conv.messages], dropped=[m.id for m in conv.messages[:k - 1]])
        assert fact_recall(conv, r) == plain_fact_recall(conv, r)


def test_a_message_is_never_mistaken_for_an_earlier_one() -> None:
    """Messages are cached by identity: a new message at a freed address is a new message."""
    conv = conversation()
    for i in range(200):
        message = Message("user", "3 replicas" if i % 2 else "set 512Mi", id="tmp")
        assert kept_facts(conv, [message]) == plain_kept(conv, [message]) == ({"3 replicas"} if i % 2 else {"512Mi"})
        del message


def test_caches_stay_bounded_over_many_conversations() -> None:
    for i in range(100):
        conv = conversation()
        fact_recall(conv, get_strategy("noop").compress(conv.messages, 10_000, counter="chars4"))
    assert len(facts._CONVERSATIONS) <= facts._CONVERSATION_ENTRIES


# The extraction patterns as first written: the fast ones must match exactly the same.
_EXTENSIONS = (r"py|pyi|ts|tsx|js|jsx|mjs|go|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|json|ya?ml|toml|ini|cfg|"
               r"conf|md|rst|txt|sql|sh|lock|html|css|scss|env|proto|tf|xml|csv|ipynb")
PLAIN_PATTERNS = {
    "_URL": r"https?://[^\s<>\"'`)\]]+",
    "_PATH": rf"(?<![\w/.@-])(?:[\w.-]+/)+[\w.-]*\w|(?<![\w/.-])[\w-]+\.(?:{_EXTENSIONS})\b",
    "_ERROR": r"\b(?:[A-Z]{1,4}\d{3,5}|ERR_[A-Z0-9_]+|CVE-\d{4}-\d{3,}|[A-Z][A-Za-z]*(?:Error|Exception)"
              r"|E(?:NOENT|ACCES|PERM|EXIST|CONNREFUSED|CONNRESET|ADDRINUSE|TIMEDOUT|PIPE|NOMEM))\b"
              r"|\bHTTP \d{3}\b|\bexit (?:code|status) \d+\b",
    "_IDENT": r"\b(?:[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+"
              r"|[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)\b(?:\(\))?",
    "_NUMBER": rf"(?<![\w.])v?\d+(?:\.\d+){{2,}}\b|(?<![\w.])\d[\d,]*(?:\.\d+)?\s?(?:{facts._UNITS})\b"
               r"|\d[\d,]*(?:\.\d+)?\s?[个件行秒天分時间次条項项台倍]",
}
PLAIN = {name: re.compile(pattern) for name, pattern in PLAIN_PATTERNS.items()}


def plain_extract_facts(text: str) -> list[str]:
    found = [m.group(1).strip() for m in facts._BACKTICK.finditer(text)]
    found.extend(m.group(1).strip() for m in facts._SHELL.finditer(text))
    rest = text
    for name in ("_URL", "_PATH"):
        found.extend(facts._clean(m.group()) for m in PLAIN[name].finditer(rest))
        rest = PLAIN[name].sub(" ", rest)
    for name in ("_ERROR", "_IDENT", "_NUMBER"):
        found.extend(facts._clean(m.group()) for m in PLAIN[name].finditer(rest))
    return list(dict.fromkeys(f for f in found if len(f) >= 2))


TOKENS = ["Error", "Exception", "KeyErrorX", "ERR_", "CVE-2024-", "HTTP ", "exit code ", "exit status ", "ENOENT",
          "EPERMS", "A", "AB", "ABCD", "ABCDE", "v", "1.2.3", "1,000", "3 ", "٣", "src/", "/", "a.", ".py", ".json",
          ".pyc", "@", "https://", "http://x.io/", "MB", "ms", "Mi", "x", "个", "秒", "Foo", "Bar", "foo", "_", "_1",
          "()", "(", ")", "-", ".", ",", " ", "\n", "`", "$ ", "é", "E", "e", "H", "C", "0", "12", "123", "12345",
          "123456"]
pattern_texts = st.lists(st.one_of(st.sampled_from(TOKENS), st.text(max_size=2)), max_size=30).map("".join)


def spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(text)]


@pytest.mark.parametrize("name", sorted(PLAIN_PATTERNS))
@settings(max_examples=400, deadline=None)
@given(text=pattern_texts)
@example(text="ABCDE12345 ABCD1234, E1234567 v1.2.3.4 x.1.2.3 a1.2.3 1.2.3. @a/b c@d/e.py .a/b/ a-b.py.c")
@example(text="FooBarBaz_x fooBar() Foo_ FooBAR HTTP 5023 exit code 12x 1,000,000.5 MB 3 个 ٣ms v12.0.1x")
def test_fast_patterns_match_their_plain_forms(name, text) -> None:
    assert spans(getattr(facts, name), text) == spans(PLAIN[name], text)


@settings(max_examples=400, deadline=None)
@given(text=pattern_texts)
def test_extraction_matches_the_plain_definition(text) -> None:
    assert extract_facts(text) == plain_extract_facts(text)


def test_extraction_matches_the_plain_definition_on_the_samples() -> None:
    for source in ("sample:agent_sessions", "sample:chats"):
        for conv in load_conversations(source, limit=15):
            for m in conv.messages:
                for name in PLAIN_PATTERNS:
                    assert spans(getattr(facts, name), m.text) == spans(PLAIN[name], m.text), (name, m.id)
                assert extract_facts(m.text) == plain_extract_facts(m.text), m.id
