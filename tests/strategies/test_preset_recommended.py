"""`recommended` and the mechanics it adds to the policy model: cleared tool outputs that keep the
lines later messages name, head+tail cuts that list the cut middle's details, and the ``budget``
tail (clear the oldest outputs, then fold the oldest groups into a running summary, also over the
event limit, then cut the largest output); the lines kept never depend on the future."""

from __future__ import annotations

from ctxlab.messages import Conversation, Message, ToolCall, validate_messages
from ctxlab.replay.steps import replay_steps
from ctxlab.strategies import get_strategy, strategy_params
from ctxlab.strategies.mechanics import refs, trail
from ctxlab.tokens import get_counter
from tests.builders import Convo, prose

O200K = get_counter("o200k_base")

CAP = "extractive:length=cap"  # the offline summary filling its cap, as before the calibration


def output(tag: str, lines: int = 40) -> str:
    """A tool output naming one path, one symbol and one count per line, in filler prose."""
    return "\n".join(f"{prose(240, i)} src/{tag}/mod_{i}.py defines Handler{tag.capitalize()}{i} ({i + 3} rows)"
                     for i in range(lines))


def named(text: str, tag: str, lines: int = 40) -> list[str]:
    """Which of `output(tag)`'s details `text` holds."""
    return [d for i in range(lines) for d in (f"src/{tag}/mod_{i}.py", f"Handler{tag.capitalize()}{i}")
            if d in text]


def session(steps: int, lines: int = 40, mention: str | None = None) -> tuple[Message, ...]:
    """A task, `steps` reads, an answer; with `mention`, the user names it after the reads."""
    c = Convo().system().user("Fix the failing import in src/app.py.")
    for step in range(steps):
        c.tools(("read_file", output(f"s{step}", lines)), text=f"Step {step}: reading.")
    if mention is not None:
        c.user(f"Look again at {mention}.")
    return c.assistant("Found it.").build()


def test_lines_keeps_the_whole_lines_that_hold_a_wanted_name_and_marks_the_gaps() -> None:
    message = Message("tool", output("db"), id="t1", tool_call_id="c1")
    lines = message.text.split("\n")
    cleared = trail.lines(message, frozenset({"src/db/mod_3.py", "HandlerDb4", "not/there.py"}), "read_file")
    assert (cleared.id, cleared.tool_call_id, cleared.mark) == ("t1", "c1", "truncated")
    assert cleared.text.split("\n") == ["[read_file output cleared to the 2 of its 40 lines that later messages name]",
                                         "[...]", lines[3], lines[4]]
    bare = trail.lines(message, frozenset({"src/other.py"}), "read_file")
    assert bare.text == f"[read_file output cleared, {len(message.text):,} characters]"


def test_refs_name_paths_symbols_and_long_numbers_not_words() -> None:
    assert refs.names("see src/app.py: HandlerX1 has 10245 rows, not 1024, README or words.") == {
        "src/app.py", "HandlerX1", "10245"}
    m = session(2, lines=4, mention="src/s0/mod_1.py")
    last = refs.last_named(m)
    assert refs.named_later(m, 3, last) == {"src/s0/mod_1.py"}  # the user named it after the read
    assert refs.named_later(m, 5, last) == set()  # the second read: nothing after it names its lines


def test_shrink_keeps_head_and_tail_and_lists_the_cut_middle() -> None:
    message = Message("tool", output("api", 80), id="t1", tool_call_id="c1")
    cut = trail.shrink(message, 2500, O200K, "read_file")
    assert O200K.count_message(cut) <= 2500 and cut.mark == "truncated"
    assert cut.text.startswith(message.text[:50]) and cut.text.endswith(message.text[-50:])
    assert "characters omitted; details: " in cut.text
    assert len(named(cut.text, "api", 80)) == 160  # in the kept text or in the marker: none lost
    assert trail.shrink(message, 10_000, O200K, "read_file") is message  # fits: unchanged


def test_shrink_below_the_details_clips_the_note() -> None:
    message = Message("tool", output("api", 80), id="t1", tool_call_id="c1")
    cut = trail.shrink(message, 60, O200K, "read_file")
    assert O200K.count_message(cut) <= 60
    assert cut.text.startswith("[read_file output cleared, ") and cut.text.endswith("…]")


def test_over_the_trigger_the_oldest_outputs_are_cleared_to_the_lines_named_later() -> None:
    m = session(4, mention="src/s0/mod_5.py")
    total = O200K.count_messages(m)
    # Clearing the two oldest outputs is enough to reach the target: they go, the rest stays whole.
    r = get_strategy("recommended", trigger_share=0.5, target_share=0.75, mask_keep=2).compress(
        m, total + 100, counter="o200k_base")
    assert r.tokens_after <= int((total + 100) * 0.75)
    outputs = [x for x in r.messages if x.role == "tool"]
    assert [x.mark for x in outputs] == ["truncated", "truncated", None, None]
    # The line the user went back to stays whole; the rest of the output is gone.
    assert named(outputs[0].text, "s0") == ["src/s0/mod_5.py", "HandlerS05"]
    assert m[3].text.split("\n")[5] in outputs[0].text and prose(240, 1) not in outputs[0].text
    assert outputs[1].text.startswith("[read_file output cleared, ")  # nothing named it later
    assert r.summary is None and not any(x.mark == "summary" for x in r.messages)
    assert not r.dropped_ids


def test_the_lines_kept_never_depend_on_the_call_being_compressed() -> None:
    """A policy may not see the future: the call after the history names a line, which is not kept
    for it; the same line named inside the history is."""
    history = session(4)
    future = Message("assistant", "Opening it.", id="next", tool_calls=(ToolCall("c9", "read_file",
                                                                                  '{"path": "src/s0/mod_5.py"}'),))
    strategy = get_strategy("recommended", trigger_share=0.5, target_share=0.75, mask_keep=2)
    window = O200K.count_messages(history) + 100
    sent = strategy.compress(history, window, counter="o200k_base")
    replayed = [s.result for s in replay_steps(strategy, Conversation("c", (*history, future)), window, O200K,
                                               "per-turn") if s.upto == len(history)]
    assert replayed and replayed[0] is not None and replayed[0].messages == sent.messages
    assert "src/s0/mod_5.py" not in "".join(x.text for x in sent.messages if x.role == "tool")
    named_before = strategy.compress(session(4, mention="src/s0/mod_5.py"), window + 30, counter="o200k_base")
    assert "src/s0/mod_5.py" in "".join(x.text for x in named_before.messages if x.role == "tool")


def test_outputs_in_the_newest_half_of_the_target_stay_whole() -> None:
    m = session(6, lines=10)
    r = get_strategy("recommended", trigger_share=0.5, target_share=0.9, mask_keep=0).compress(
        m, O200K.count_messages(m) + 100, counter="o200k_base")
    marks = [x.mark for x in r.messages if x.role == "tool"]
    assert marks[0] == "truncated" and marks[-2:] == [None, None]  # mask_keep=0 alone would clear them


def test_over_the_event_limit_the_oldest_groups_fold_though_the_tokens_fit() -> None:
    m = session(12, lines=2)
    r = get_strategy("recommended", trigger_events=20).compress(m, 100_000, counter="o200k_base")
    validate_messages(r.messages)
    assert r.summary is not None and r.messages[2].mark == "summary"
    events = sum(len(x.tool_calls) if x.tool_calls else 1 for x in r.messages[3:])
    assert events <= int(20 * 0.6) and r.messages[-1].text == "Found it."  # the newest 0.6 of 20, whole groups
    assert get_strategy("recommended", trigger_events=0).compress(m, 100_000, counter="o200k_base").messages == m


def test_below_the_trigger_nothing_changes() -> None:
    m = session(4)
    total = O200K.count_messages(m)
    assert get_strategy("recommended", trigger_share=1.0).compress(m, total, counter="o200k_base").messages == m


def test_when_clearing_is_not_enough_the_oldest_groups_fold_into_a_summary_of_their_details() -> None:
    m = session(8, lines=8)
    # The fold's mechanics, at the summary cap (the calibrated offline summary is shorter: issue 28).
    r = get_strategy("recommended", trigger_share=0.5, target_share=0.3, summarizer=CAP).compress(
        m, 3000, counter="o200k_base")
    validate_messages(r.messages)
    assert r.fits and [x.role for x in r.messages[:3]] == ["system", "user", "user"]
    summary = r.messages[2]
    assert summary.mark == "summary" and summary.text == r.messages[2].text
    assert "## Details" in r.summary and len(named(r.summary, "s0", 8)) == 16  # the folded outputs' trail
    assert r.messages[-1].text == "Found it."
    assert set(r.dropped_ids) >= {"m2", "m3"}  # the oldest group folded


def test_the_running_summary_is_updated_not_stacked() -> None:
    strategy = get_strategy("recommended", trigger_share=0.5, target_share=0.3, summarizer=CAP)
    first = strategy.compress(session(8, lines=8), 3000, counter="o200k_base")
    later = Convo()
    later.messages = list(first.messages)
    later._calls = 100
    for step in range(8, 12):
        later.tools(("read_file", output(f"s{step}", 8)), text=f"Step {step}: reading.")
    second = strategy.compress(later.build(), 3000, counter="o200k_base")
    summaries = [x for x in second.messages if x.mark == "summary"]
    assert len(summaries) == 1 and summaries[0].id != next(x.id for x in first.messages if x.mark == "summary")
    assert named(second.summary, "s0", 8) and named(second.summary, "s8", 8)  # old and new trail merged


def test_a_huge_newest_output_is_cut_to_head_and_tail_with_its_details_using_the_window() -> None:
    m = Convo().system().user("Why does the build fail?").tools(("run_shell", output("log", 100))).build()
    r = get_strategy("recommended", trigger_share=0.8, target_share=0.6).compress(m, 6000, counter="o200k_base")
    validate_messages(r.messages)
    assert r.fits
    cut = r.messages[-1]
    assert cut.mark == "truncated" and "characters omitted; details: " in cut.text
    assert O200K.count_message(cut) < O200K.count_message(m[-1])
    # Over the target (0.6) alone, the exchange is cut only as far as the trigger (0.8) needs.
    assert int(6000 * 0.6) < r.tokens_after <= int(6000 * 0.8)
    assert len(named(cut.text, "log", 100)) == 200  # in the head, the tail or the marker


def test_the_summary_never_takes_more_than_the_window_leaves() -> None:
    m = session(12)
    for budget in (1500, 2500, 4000):
        r = get_strategy("recommended", summary_max_tokens=50_000).compress(m, budget, counter="o200k_base")
        assert r.fits, (budget, r.tokens_after)


def test_defaults_are_on_the_policy_model() -> None:
    params = strategy_params("recommended")
    assert {k: params[k] for k in ("trigger", "trigger_share", "head", "tail", "target_share", "middle", "voice",
                                   "summarizer")} == {
        "trigger": "share", "trigger_share": 1.0, "head": "input", "tail": "budget", "target_share": 0.9,
        "middle": "summarize", "voice": "ctxlab", "summarizer": "extractive"}
    assert params["trigger_events"] == 60
    assert get_strategy("recommended:target_share=0.4").target_share == 0.4


def test_tool_names_reach_the_summary() -> None:
    m = (Message("system", "sys", id="s"), Message("user", "Go.", id="u"),
         Message("assistant", None, id="a", tool_calls=(ToolCall("c1", "list_dir", "{}"),)),
         Message("tool", "x", id="t", tool_call_id="c1"))
    text = get_strategy("recommended").engine.summarize(m, counter=O200K, max_tokens=500).text
    assert "list_dir" in text

