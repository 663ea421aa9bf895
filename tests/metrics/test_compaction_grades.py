"""A recorded compaction graded by what came after it: which needed strings only the summarized
part held, whether a context kept them, instructions, and what the agent really refetched."""

from __future__ import annotations

import json

from ctxlab.messages import Conversation, Message, ToolCall
from ctxlab.metrics.compaction_grades import Segment, grade, only_summarized, segments
from ctxlab.metrics.needed import SessionNeeds
from ctxlab.metrics.refetch import fetch_keys, observed_refetches
from ctxlab.tokens import get_counter

O200K = get_counter("o200k_base")


def call(id_: str, name: str, **args: object) -> ToolCall:
    return ToolCall(id_, name, json.dumps(args))


def session() -> Conversation:
    """Before the compaction (messages 0-5): a file read, a command run, an instruction; after it
    (6-): the agent uses the file's path and a constant from it, and re-reads the file."""
    m = [
        Message("user", "Fix the retry bug. Never touch src/legacy_api.py please.", id="u0"),
        Message("assistant", "Reading.", id="a1", tool_calls=(call("c1", "Read", file_path="src/retry_policy.py"),)),
        Message("tool", "MAX_RETRY_COUNT = 7\nBACKOFF_SECONDS = 12.5\n" + "filler line\n" * 40, id="t2",
                tool_call_id="c1"),
        Message("assistant", "Running tests.", id="a3", tool_calls=(call("c2", "Bash", command="pytest -q tests/"),)),
        Message("tool", "3 passed in 0.42s", id="t4", tool_call_id="c2"),
        Message("assistant", "Found it.", id="a5"),
        # -- compaction at 6, summary replaces messages[:6] --
        Message("assistant", "Set MAX_RETRY_COUNT in src/retry_policy.py", id="a6",
                tool_calls=(call("c3", "Read", file_path="src/retry_policy.py"),)),
        Message("tool", "MAX_RETRY_COUNT = 7\nBACKOFF_SECONDS = 12.5\n" + "filler line\n" * 40, id="t7",
                tool_call_id="c3"),
        Message("assistant", "Now BACKOFF_SECONDS and MAX_RETRY_COUNT again", id="a8",
                tool_calls=(call("c4", "Bash", command="pytest  -q tests/"), call("c5", "Grep", pattern="x", path="src"))),
        Message("tool", "4 passed", id="t9", tool_call_id="c4"),
        Message("tool", "nothing", id="t10", tool_call_id="c5"),
    ]
    return Conversation("s", tuple(m))


def test_segments_end_at_the_next_usable_compaction():
    conv = session()
    assert segments(conv, [(2, 3), (None, 5), (6, 8)]) == [Segment(2, 3, 8), None, Segment(6, 8, 11)]
    assert segments(conv, [(7, 6)]) == [None]  # the summarized part cannot end after the compaction


def test_only_strings_the_summarized_part_alone_held_are_graded():
    needs = SessionNeeds.build(session(), O200K)
    first = {n.text for n in only_summarized(needs, 6, 6)}
    assert {"MAX_RETRY_COUNT", "src/retry_policy.py"} <= first
    # At call 8 the file's content is back (re-read at 7): nothing there depends on the summary.
    assert not {n.text for n in only_summarized(needs, 8, 6)} & {"MAX_RETRY_COUNT", "BACKOFF_SECONDS"}


def test_a_summary_keeps_what_it_names_and_loses_the_rest():
    conv = session()
    needs = SessionNeeds.build(conv, O200K)
    span = Segment(6, 6, len(conv.messages))
    summary = Message("user", "Goal: fix src/retry_policy.py. Never touch src/legacy_api.py please.", id="s",
                      mark="summary")
    got = grade(needs, span, (summary,))
    assert got.needed >= 2 and got.calls == 2
    assert 0 < got.needed_kept < got.needed and "MAX_RETRY_COUNT" in got.lost
    assert got.needed_recall == got.needed_kept / got.needed
    assert (got.instructions, got.instructions_kept) == (1, 1) and got.instruction_survival == 1.0
    assert got.refetch_model_tokens > 0 and sum(k for _, k in got.per_call) == got.needed_kept
    everything = grade(needs, span, conv.messages[:6])
    assert everything.needed == got.needed and everything.needed_recall == 1.0 and everything.refetch_model_tokens == 0
    nothing = grade(needs, span, ())
    assert nothing.needed_kept == 0 and nothing.instructions_kept == 0


def test_observed_refetches_are_first_rereads_and_reruns_of_what_came_before():
    conv = session()
    found = observed_refetches(conv.messages, 6, 6, len(conv.messages), O200K)
    assert [(r.call, r.tool, r.target) for r in found] == [(6, "Read", "src/retry_policy.py"),
                                                           (8, "Bash", "pytest -q tests/")]
    assert found[0].tokens == O200K.count_message(conv.messages[7]) and found[1].tokens == O200K.count_message(
        conv.messages[9])
    assert observed_refetches(conv.messages, 1, 6, len(conv.messages), O200K) == []  # nothing fetched before 1


def test_what_a_tool_call_fetched():
    assert fetch_keys(call("a", "Read", file_path="x/y.py")) == ("file x/y.py",)
    assert fetch_keys(call("a", "Edit", file_path="x/y.py", old_string="a")) == ("file x/y.py",)
    assert fetch_keys(call("a", "bash", command="ls   -la")) == ("$ ls -la",)
    assert fetch_keys(call("a", "Grep", pattern="p", path="src"))[0].startswith("Grep {")
    assert fetch_keys(call("a", "TodoWrite", todos=[])) == ()
