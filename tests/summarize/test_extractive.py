"""The extractive summarizer: what each section extracts, the token cap, ranking, and merging a
previous summary."""

from __future__ import annotations

import json
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxlab import caches
from ctxlab.datasets.synth import generate_history
from ctxlab.messages import Conversation, Message, ToolCall
from ctxlab.summarize import extractive, get_summarizer
from ctxlab.summarize.extractive import Item, extract, fit, gather
from ctxlab.summarize.sections import (
    COMMANDS,
    CONSTRAINTS,
    CONTEXT,
    DECISIONS,
    DETAILS,
    ERRORS,
    GOAL,
    MODIFIED,
    NEXT,
    PROGRESS,
    READ,
    parse_summary,
)
from ctxlab.summarize.toolcalls import tool_names
from ctxlab.tokens import get_counter
from tests.strategies.conftest import conversations

O200K = get_counter("o200k_base")
# What each section extracts, so at the cap (the calibrated length is tests/summarize/test_length.py's).
EXTRACTIVE = get_summarizer("extractive:length=cap")
TRACEBACK = """collected 12 items
tests/test_login.py::test_ok FAILED
Traceback (most recent call last):
  File "src/auth/login.py", line 5, in login
    raise KeyError(user)
KeyError: 'alice'
=== 1 failed, 11 passed in 2.31s ==="""


def call(i: int, name: str, **args) -> ToolCall:
    return ToolCall(f"c{i}", name, json.dumps(args))


def session() -> tuple[Message, ...]:
    return (
        Message("user", "The login endpoint returns HTTP 500 after the bcrypt upgrade. Fix it in src/auth/login.py.",
                id="u1"),
        Message("user", "You must not change the public API of AuthService. 不要修改版本号。", id="u2"),
        Message("assistant", "Let me look around.", id="a1", tool_calls=(
            call(1, "read_file", path="src/auth/login.py"), call(2, "grep", pattern="verify_password", path="src/"),
            call(3, "web_fetch", url="https://bcrypt.readthedocs.io/en/latest/"))),
        Message("tool", "def login(user):\n    raise KeyError(user)", id="t1", tool_call_id="c1"),
        Message("tool", "src/auth/hash.py:3: verify_password", id="t2", tool_call_id="c2"),
        Message("tool", "<html>docs</html>", id="t3", tool_call_id="c3"),
        Message("assistant", None, id="a2", tool_calls=(call(4, "run_shell", command="pytest -x tests/test_login.py"),)),
        Message("tool", TRACEBACK, id="t4", tool_call_id="c4"),
        Message("assistant", "The root cause is that verify_password() was renamed in bcrypt 4.1. "
                             "Decision: I'll use bcrypt.checkpw directly instead of the wrapper.", id="a3"),
        Message("assistant", None, id="a4", tool_calls=(
            call(5, "edit_file", path="src/auth/login.py", old_string="x", new_string="y"),
            call(6, "apply_patch", input="*** Begin Patch\n*** Update File: src/auth/hash.py\n@@\n-a\n+b\n"))),
        Message("tool", "ok", id="t5", tool_call_id="c5"),
        Message("tool", "ok", id="t6", tool_call_id="c6"),
        Message("assistant", "Fixed the login check; 12 passed in 2.10s. Next, I will add a "
                             "regression test in tests/test_login.py.", id="a5"),
    )


def sections_of(messages, max_tokens: int = 2000, previous: str | None = None) -> dict[str, list[str]]:
    r = EXTRACTIVE.summarize(messages, previous_summary=previous, counter=O200K, max_tokens=max_tokens)
    assert r.error is None and r.model == "extractive" and r.cost_usd == 0.0
    return parse_summary(r.text)


def test_every_section_is_extracted() -> None:
    s = sections_of(session())
    assert s[GOAL][0] == ("The login endpoint returns HTTP 500 after the bcrypt upgrade. "
                          "Fix it in src/auth/login.py.")
    assert s[CONSTRAINTS] == ["You must not change the public API of AuthService.", "不要修改版本号。"]
    assert len(s[GOAL]) == 1  # a message of rules only states no new request
    assert "Decision: I'll use bcrypt.checkpw directly instead of the wrapper." in s[DECISIONS]
    assert s[MODIFIED] == ["src/auth/login.py", "src/auth/hash.py"]
    assert s[READ] == ["src/"]  # a file that was later modified is listed as modified only
    assert s[COMMANDS] == ["pytest -x tests/test_login.py"]
    assert "KeyError: 'alice'" in s[ERRORS]
    assert any("1 failed, 11 passed" in e for e in s[ERRORS])
    assert any("root cause" in p for p in s[PROGRESS])
    assert any("Fixed the login check" in p for p in s[PROGRESS])
    assert s[NEXT] == ["Next, I will add a regression test in tests/test_login.py."]
    assert any("https://bcrypt.readthedocs.io/en/latest/" in c for c in s[CONTEXT])


def test_error_lines_codes_and_http_errors() -> None:
    out = "src/web/app.ts(12,5): error TS2345: Argument of type 'string'.\nall good here\nupstream returned HTTP 503"
    messages = (Message("user", "Build the web app.", id="u"),
                Message("assistant", None, id="a", tool_calls=(call(1, "run_shell", command="npm run build"),)),
                Message("tool", out + "\nexit code 2", id="t", tool_call_id="c1"))
    errors = sections_of(messages)[ERRORS]
    assert "src/web/app.ts(12,5): error TS2345: Argument of type 'string'." in errors
    assert "upstream returned HTTP 503" in errors and "exit code 2" in errors
    assert not any("all good" in e for e in errors)


def test_source_code_read_is_not_an_error() -> None:
    messages = (Message("user", "Read it.", id="u"),
                Message("assistant", None, id="a", tool_calls=(call(1, "read_file", path="a.py"),)),
                Message("tool", "def f():\n    raise ValueError('bad')\n    except Exception:\n", id="t",
                        tool_call_id="c1"))
    assert ERRORS not in sections_of(messages)


def test_cjk_and_japanese_cues() -> None:
    messages = (Message("user", "请修复缓存问题。必须保持接口不变。", id="u"),
                Message("assistant", "我决定采用 Redis 作为缓存后端。", id="a1"),
                Message("assistant", "方針：キャッシュの有効期限は 300秒 に設定することに決定しました。", id="a2"))
    s = sections_of(messages)
    assert s[GOAL] == ["请修复缓存问题。"] and s[CONSTRAINTS] == ["必须保持接口不变。"]
    assert "我决定采用 Redis 作为缓存后端。" in s[DECISIONS]
    assert any("300秒" in d for d in s[DECISIONS])


def test_long_requests_keep_their_first_sentences_and_never_cut_a_path() -> None:
    long = ("Please refactor the storage layer. " + "It has grown organically over many years. " * 12
            + "The main file is services/storage/really/long/path/to/the_module_file.py.")
    (goal,) = sections_of((Message("user", long, id="u"),))[GOAL]
    assert goal.startswith("Please refactor the storage layer.") and len(goal) <= 300
    text = EXTRACTIVE.summarize((Message("user", "x " * 10 + "a/" * 200 + "end.py", id="u"),),
                                counter=O200K, max_tokens=2000).text
    assert "a/" * 200 + "end.py" in text or "a/a" not in text


def test_tiny_caps_keep_the_goal_first() -> None:
    r = EXTRACTIVE.summarize(session(), counter=O200K, max_tokens=40)
    assert O200K.count(r.text) <= 40
    assert r.text.startswith("## Goal\n- The login endpoint returns HTTP 500")
    assert EXTRACTIVE.summarize(session(), counter=O200K, max_tokens=3).text == ""


def test_trimming_never_leaves_partial_items() -> None:
    full = sections_of(session())
    all_items = {item for items in full.values() for item in items}
    for cap in (60, 120, 200, 300):
        trimmed = sections_of(session(), cap)
        assert {item for items in trimmed.values() for item in items} <= all_items


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(messages=conversations(), cap=st.integers(1, 600), counter=st.sampled_from(["o200k_base", "chars2", "ascii_cjk"]))
def test_the_summary_always_fits_the_cap(messages, cap, counter) -> None:
    c = get_counter(counter)
    r = EXTRACTIVE.summarize(messages, counter=c, max_tokens=cap)
    assert c.count(r.text) <= cap
    assert r.text == EXTRACTIVE.summarize(messages, counter=c, max_tokens=cap).text


def test_merge_carries_files_and_decisions_forward_and_updates_next_steps() -> None:
    previous = EXTRACTIVE.summarize(session(), counter=O200K, max_tokens=2000).text
    later = (Message("user", "Now update CHANGELOG.md.", id="u9"),
             Message("assistant", "Decision: we will document it under Unreleased.", id="a9",
                     tool_calls=(call(9, "write_file", path="CHANGELOG.md", content="x"),)),
             Message("tool", "ok", id="t9", tool_call_id="c9"),
             Message("assistant", "Next, I will open a pull request.", id="a10"))
    s = sections_of(later, previous=previous)
    assert s[GOAL][0].startswith("The login endpoint returns HTTP 500")  # the original goal stays first
    assert "Now update CHANGELOG.md." in s[GOAL]
    assert s[MODIFIED] == ["src/auth/login.py", "src/auth/hash.py", "CHANGELOG.md"]
    assert "Decision: I'll use bcrypt.checkpw directly instead of the wrapper." in s[DECISIONS]
    assert "Decision: we will document it under Unreleased." in s[DECISIONS]
    assert s[NEXT] == ["Next, I will open a pull request."]  # the old next step is superseded


def test_merge_reads_pi_mono_style_and_prose_summaries() -> None:
    previous = ("## Goal\nShip v2\n\n## Progress\n### Done\n- [x] Ported the parser\n### In Progress\n- [ ] Tests\n\n"
                "## Key Decisions\n- **Use tree-sitter**: faster\n\n<read-files>\nsrc/parse.ts\n</read-files>\n\n"
                "<modified-files>\nsrc/lexer.ts\n</modified-files>")
    s = sections_of((Message("user", "Continue.", id="u"),), previous=previous)
    assert s[GOAL][0] == "Ship v2" and s[READ] == ["src/parse.ts"] and s[MODIFIED] == ["src/lexer.ts"]
    assert "**Use tree-sitter**: faster" in s[DECISIONS] and "Ported the parser" in s[PROGRESS]
    prose = sections_of((Message("user", "Continue.", id="u"),), previous="用户要求迁移数据库，AI 完成了 schema.sql 的修改。")
    assert prose[CONTEXT] == ["用户要求迁移数据库，AI 完成了 schema.sql 的修改。"]


def test_summary_messages_in_the_input_are_merged_not_summarized() -> None:
    from ctxlab.summarize.message import wrap

    carried = Message("user", wrap("## Files Modified\n- src/keep_me.py"), id="s1", mark="summary")
    s = sections_of((carried, Message("user", "Go on with the docs.", id="u")))
    assert s[MODIFIED] == ["src/keep_me.py"] and s[GOAL] == ["Go on with the docs."]


def test_each_message_is_extracted_once_however_often_it_is_summarized(monkeypatch) -> None:
    from ctxlab.summarize import extractive

    monkeypatch.setattr(extractive, "_EXTRACTED", {})  # start cold, whatever ran before
    calls: list[str] = []
    for name in ("_user_items", "_assistant_items"):
        original = getattr(extractive, name)
        monkeypatch.setattr(extractive, name, lambda m, _f=original: calls.append(1) or _f(m))
    messages = tuple(Message("user" if i % 3 == 0 else "assistant",
                             f"Step {i}: updated src/mod_{i}.py; the timeout is {i} ms. Decision: keep retry_{i}.",
                             id=f"m{i}") for i in range(3000))
    first = EXTRACTIVE.summarize(messages, counter=O200K, max_tokens=1500)
    assert len(calls) == len(messages)  # one extraction per message: linear in the conversation
    again = EXTRACTIVE.summarize(messages, counter=O200K, max_tokens=1500)
    assert len(calls) == len(messages) and again.text == first.text  # the second pass is all cache hits


def test_headers_are_sections() -> None:
    text = EXTRACTIVE.summarize(session(), counter=O200K, max_tokens=2000).text
    assert re.findall(r"^## (.+)$", text, re.M) == [GOAL, CONSTRAINTS, DECISIONS, READ, MODIFIED, COMMANDS,
                                                    ERRORS, PROGRESS, NEXT, CONTEXT, DETAILS]


def _plain_gather(messages: list[Message]) -> list[Item]:
    """`gather` as it was before its items were kept per message and position."""
    names = tool_names(messages)
    items = []
    for pos, message in enumerate(messages):
        name = names.get(message.tool_call_id or "", message.name or "tool")
        for k, (section, text, score, tag) in enumerate(extract(message, name)):
            items.append(Item(section, text, score, pos + k / 1000, tag))
    leads = [i for i, it in enumerate(items) if it.tag == "lead"]
    keep = set(leads[-2:])
    return [it for i, it in enumerate(items) if it.tag != "lead" or i in keep]


def test_gather_of_nested_prefixes_equals_the_plain_computation() -> None:
    caches.forget()
    conv = Conversation.from_record(next(generate_history(1, 120, seed=7)))
    messages = list(conv.messages)
    assert sum(tag == "lead" for m in messages for *_, tag in extract(m)) > 2  # the status-line rule is exercised
    for end in (len(messages), 5, 40, len(messages) // 2, len(messages)):
        assert gather(messages[:end]) == _plain_gather(messages[:end])
    assert gather(messages[3:50]) == _plain_gather(messages[3:50])  # other positions, other items


@given(conversations(max_turns=4, max_steps=3), st.integers(0, 30))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_gather_and_fit_with_warm_caches_equal_cold_ones(messages: tuple[Message, ...], end: int) -> None:
    counter = get_counter("o200k_base")
    caches.forget()
    cold = gather(messages[:end]), fit(gather(messages), counter, 120)
    warm = gather(messages[:end]), fit(gather(messages), counter, 120)
    assert cold == warm == (_plain_gather(list(messages[:end])), fit(_plain_gather(list(messages)), _Opaque(), 120))


class _Opaque:
    """o200k_base behind a counter that cannot be hashed (`fit` then keeps no costs)."""

    __hash__ = None  # type: ignore[assignment]

    def count(self, text: str) -> int:
        return get_counter("o200k_base").count(text)


def _plain_dedupe(items: list[Item]) -> list[Item]:
    """`_dedupe` as first written (a dict lookup per weight, the key made per item)."""
    weights = extractive._WEIGHTS
    modified = {it.text for it in items if it.section == MODIFIED}
    best: dict[str, Item] = {}
    for it in items:
        if it.section == READ and it.text in modified:
            continue
        key = " ".join(it.text.lower().split())
        old = best.get(key)
        if old is None:
            best[key] = it
        elif weights.get(it.section, 0) + it.score > weights.get(old.section, 0) + old.score:
            best[key] = it._replace(seq=min(it.seq, old.seq))
    return list(best.values())


_ITEMS = st.lists(st.builds(Item, st.sampled_from([READ, MODIFIED, DETAILS, GOAL, ERRORS, "other"]),
                            st.sampled_from(["a.py", "A.py", "a.py ", "b  c", "b c", "x", ""]),
                            st.sampled_from([0.0, 0.5, 1.0, -3.0]), st.floats(-2, 50, allow_nan=False)), max_size=40)


@given(_ITEMS)
@settings(max_examples=300, deadline=None)
def test_dedupe_equals_its_plain_form(items: list[Item]) -> None:
    assert extractive._dedupe(items) == _plain_dedupe(items)
