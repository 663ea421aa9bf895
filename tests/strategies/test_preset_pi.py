"""`pi` against pi-mono's documented behaviour (packages/coding-agent/test/compaction.test.ts and
compaction.ts @ 7ddaf150): shouldCompact, findCutPoint (keep-all, never a tool result, split turns),
buildSessionContext ("only the latest compaction matters"), the update prompt, file lists and
the summary message's wrapper."""

from __future__ import annotations

import json

import pytest

from ctxlab.messages import Message, ToolCall
from ctxlab.strategies import get_strategy
from ctxlab.strategies.trigger import Trigger
from ctxlab.summarize import agent_prompts as ap
from ctxlab.summarize import get_summarizer
from ctxlab.summarize.cache import MemoryCache
from tests.summarize.fake_openai import FakeOpenAI

WRAP_HEAD = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"

CAP = "extractive:length=cap"  # the offline summary filling its cap, as before the calibration (issue 28)


def user(text: str, id: str) -> Message:
    return Message("user", text, id=id)


def assistant(text: str | None, id: str, *calls: ToolCall) -> Message:
    return Message("assistant", text, id=id, tool_calls=calls)


def previous_summary(text: str, id: str = "sum1") -> Message:
    return Message("user", WRAP_HEAD + text + "\n</summary>", id=id, mark="summary", source_ids=("old1", "old2"))


def compact(messages, budget: int = 100, **params):
    """pi on a small window: window - 16384 is negative, so every call compacts."""
    return get_strategy("pi", **params).compress(messages, budget, counter="o200k_base")


def test_should_compact_examples() -> None:
    """compaction.test.ts 'should return true when context exceeds threshold'."""
    limit = Trigger.at_reserve(10_000)
    assert limit.fires(95_000, 100_000) and not limit.fires(89_000, 100_000) and not limit.fires(90_000, 100_000)
    session = (Message("system", "Be brief.", id="s"), user("a" * 4000, "u1"), assistant("b" * 4000, "a1"),
               user("c" * 40, "u2"))
    total = get_strategy("noop").compress(session, 10_000, counter="chars4").tokens_before
    over = get_strategy("pi", context_window=total + 10, trigger_reserve=11, keep_tokens=20)
    under = get_strategy("pi", context_window=total + 10, trigger_reserve=10, keep_tokens=20)
    assert over.compress(session, 10_000, counter="chars4").messages != session  # total > window - 11
    assert under.compress(session, 10_000, counter="chars4").messages == session  # total == window - 10


def test_keeps_everything_when_all_messages_fit_the_recent_budget() -> None:
    """'should keep everything if all messages fit within budget' (keepRecentTokens 50000)."""
    session = (user("1", "u1"), assistant("a", "a1"), user("2", "u2"), assistant("b", "a2"))
    assert compact(session, keep_tokens=50_000).messages == session


def test_split_turn_gets_its_own_turn_prefix_summary() -> None:
    """'should indicate split turn when cutting at assistant message': the cut falls inside Turn 2,
    whose prefix is summarized apart and joined under the Turn Context header."""
    session = (Message("system", "You code.", id="s"), user("Turn 1: add a --verbose flag to cli.py.", "u1"),
               assistant("A1: added the flag.", "a1"), user("Turn 2: fix the failing test in test_io.py.", "u2"),
               assistant("A2-1 " + "x" * 4000, "a21"), assistant("A2-2 " + "y" * 4000, "a22"),
               assistant("A2-3 " + "z" * 4000, "a23"))
    r = compact(session, keep_tokens=1500, summarizer=CAP)  # the split's mechanics, at the summary cap
    assert [m.id for m in r.messages][2:] == ["u2", "a22", "a23"]  # cut at A2-2; u2 pinned as the newest request
    text = r.summary
    history, _, prefix = text.partition("\n\n---\n\n**Turn Context (split turn):**\n\n")
    assert prefix, text
    assert "--verbose" in history and "test_io.py" not in history
    assert prefix.startswith("## Original Request") and "test_io.py" in prefix
    assert r.messages[1].source_ids == ("u1", "a1", "a21")  # u2 is kept, so the summary does not stand for it


def test_split_turn_without_earlier_history_says_no_prior_history() -> None:
    session = (user("Refactor the loader in io.py.", "u1"), assistant("x" * 4000, "a1"), assistant("y" * 4000, "a2"))
    r = compact(session, keep_tokens=900)
    assert r.summary.startswith("No prior history.\n\n---\n\n**Turn Context (split turn):**")
    assert [m.id for m in r.messages] == ["summary@a1", "u1", "a2"]


def test_a_cut_never_falls_on_a_tool_result() -> None:
    """Valid cut points are every message but a tool result: a walk that stops on one moves on."""
    calls = [ToolCall(f"c{i}", "read_file", json.dumps({"path": f"f{i}.py"})) for i in range(3)]
    session = (user("Read the three files.", "u1"), assistant(None, "a1", *calls),
               *(Message("tool", "r" * 2000, id=f"t{i}", tool_call_id=f"c{i}") for i in range(3)),
               assistant("All read.", "a2"))
    r = compact(session, keep_tokens=600)  # the walk stops on t1, inside the exchange
    assert [m.id for m in r.messages if m.mark is None] == ["u1", "a2"]
    assert "f0.py" in r.summary and "f2.py" in r.summary


def test_only_the_latest_compactions_kept_messages_matter() -> None:
    """buildSessionContext 'should handle multiple compactions (only latest matters)': after the
    second compaction the context is the second summary, then the messages it kept, then the rest;
    the first summary is merged into the second, not kept beside it."""
    first = previous_summary("## Goal\n- Ship the YAML parser in parse.py")
    session = (Message("system", "You code.", id="s"), first, user("2", "u2"), assistant("b", "b"),
               user("3", "u3"), assistant("c", "c"), user("4", "u4"), assistant("d", "d"))
    r = compact(session, keep_tokens=4)  # pi_chars4: one token each, so the walk stops at u3
    assert [m.id for m in r.messages] == ["s", "summary@b", "u3", "c", "u4", "d"]
    assert sum(m.mark == "summary" for m in r.messages) == 1
    assert "Ship the YAML parser in parse.py" in r.summary
    assert set(r.messages[1].source_ids) >= {"old1", "old2", "sum1", "u2", "b"}


def test_summary_message_is_a_user_message_after_the_system_prompt_in_pis_wrapper() -> None:
    session = (Message("system", "You code.", id="s"), user("Add logging to server.py.", "u1"),
               assistant("x" * 4000, "a1"), user("Now tests.", "u2"), assistant("y" * 400, "a2"))
    r = compact(session, keep_tokens=50, summarizer=CAP)
    note = r.messages[1]
    assert (note.role, note.mark) == ("user", "summary")
    assert note.text.startswith(WRAP_HEAD) and note.text.endswith("\n</summary>")
    assert note.text == ap.PI_SUMMARY_WRAPPER.format(summary=r.summary)


def test_file_lists_are_appended_and_carried_forward() -> None:
    earlier = previous_summary("## Goal\n- Port the CLI\n\n<read-files>\nsrc/old.py\n</read-files>")
    edit = ToolCall("e1", "edit_file", json.dumps({"path": "src/new.py", "old_string": "a", "new_string": "b"}))
    session = (Message("system", "You code.", id="s"), earlier, user("Fix new.py.", "u1"), assistant(None, "a1", edit),
               Message("tool", "edited", id="t1", tool_call_id="e1"), assistant("Done " + "z" * 400, "a2"),
               user("Thanks.", "u2"))
    r = compact(session, keep_tokens=5)
    assert r.summary.endswith("<read-files>\nsrc/old.py\n</read-files>\n\n<modified-files>\nsrc/new.py\n"
                              "</modified-files>")
    assert "## Files" not in r.summary  # pi keeps file lists in tags, not in the sections


@pytest.fixture
def llm_pi(tmp_path, monkeypatch):
    monkeypatch.setenv("CTXLAB_LLM_CACHE", str(tmp_path / "calls.duckdb"))
    with FakeOpenAI(reply="## Goal\n- Merged goal") as server:
        engine = get_summarizer("llm", model="openai/gpt-4o-mini", api_base=server.api_base, api_key="sk-test",
                                cache=MemoryCache(), base_delay=0.01)
        yield server, engine


def test_llm_update_prompt_merges_the_previous_summary(llm_pi) -> None:
    server, engine = llm_pi
    earlier = previous_summary("## Goal\n- Earlier goal")
    session = (Message("system", "You code.", id="s"), earlier, user("Continue with io.py.", "u1"),
               assistant("w" * 800, "a1"), user("And tests.", "u2"), assistant("v" * 40, "a2"))
    r = get_strategy("pi", summarizer=engine, keep_tokens=13).compress(session, 100, counter="o200k_base")
    (request,) = server.requests
    system, prompt = request["messages"]
    assert system == {"role": "system", "content": ap.PI_SYSTEM_PROMPT}
    assert prompt["content"].startswith("<conversation>\n[User]: Continue with io.py.")
    assert "<previous-summary>\n## Goal\n- Earlier goal\n</previous-summary>\n\n" + ap.PI_UPDATE_PROMPT in prompt["content"]
    assert r.summary == "## Goal\n- Merged goal"
    (call,) = [e for e in r.events if e.name == "summary_call"]
    assert (call.payload["input_tokens"], call.payload["output_tokens"]) == (1200, 150)


def test_llm_first_summary_uses_the_summarization_prompt(llm_pi) -> None:
    server, engine = llm_pi
    session = (user("Write docs for api.py.", "u1"), assistant("w" * 800, "a1"), user("Go on.", "u2"), assistant("ok", "a2"))
    get_strategy("pi", summarizer=engine, keep_tokens=3).compress(session, 100, counter="o200k_base")
    assert len(server.requests) == 1  # the cut is on u2, a user message: no split turn
    assert server.requests[0]["messages"][1]["content"].endswith(ap.PI_SUMMARIZATION_PROMPT)
