"""`recommended` and the mechanics it adds to the policy model: trail digests of cleared tool
outputs, head+tail cuts that list the cut middle's details, and the ``budget`` tail (clear the
oldest outputs, then fold the oldest groups into a running summary, then cut the largest output)."""

from __future__ import annotations

from ctxlab.messages import Message, ToolCall, validate_messages
from ctxlab.strategies import get_strategy, strategy_params
from ctxlab.strategies.mechanics import trail
from ctxlab.tokens import get_counter
from tests.builders import Convo, prose

O200K = get_counter("o200k_base")


def output(tag: str, lines: int = 40) -> str:
    """A tool output naming one path, one symbol and one count per line, in filler prose."""
    return "\n".join(f"{prose(240, i)} src/{tag}/mod_{i}.py defines Handler{tag.capitalize()}{i} ({i + 3} rows)"
                     for i in range(lines))


def named(text: str, tag: str, lines: int = 40) -> list[str]:
    """Which of `output(tag)`'s details `text` holds."""
    return [d for i in range(lines) for d in (f"src/{tag}/mod_{i}.py", f"Handler{tag.capitalize()}{i}")
            if d in text]


def session(steps: int, lines: int = 40) -> tuple[Message, ...]:
    c = Convo().system().user("Fix the failing import in src/app.py.")
    for step in range(steps):
        c.tools(("read_file", output(f"s{step}", lines)), text=f"Step {step}: reading.")
    return c.assistant("Found it.").build()


def test_digest_keeps_the_details_of_a_cleared_output() -> None:
    message = Message("tool", output("db"), id="t1", tool_call_id="c1")
    cleared = trail.digest(message, "read_file")
    assert (cleared.id, cleared.tool_call_id, cleared.mark) == ("t1", "c1", "truncated")
    assert cleared.text.startswith("[read_file output cleared, ")
    assert len(named(cleared.text, "db")) == 80  # every path and symbol of the 40 lines
    assert "rows" in cleared.text and prose(240, 1) not in cleared.text  # counts kept, filler gone
    assert O200K.count(cleared.text) < O200K.count(message.text) / 3


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


def test_over_the_trigger_the_oldest_outputs_are_cleared_first_and_nothing_is_summarized() -> None:
    m = session(4)
    total = O200K.count_messages(m)
    # Clearing the two oldest outputs is enough to reach the target: they go, the rest stays whole.
    r = get_strategy("recommended", trigger_share=0.5, target_share=0.75, mask_keep=2).compress(
        m, total + 100, counter="o200k_base")
    assert r.tokens_after <= int((total + 100) * 0.75)
    outputs = [x for x in r.messages if x.role == "tool"]
    assert [x.mark for x in outputs] == ["truncated", "truncated", None, None]
    assert len(named(outputs[0].text, "s0")) == 80
    assert r.summary is None and not any(x.mark == "summary" for x in r.messages)
    assert not r.dropped_ids


def test_below_the_trigger_nothing_changes() -> None:
    m = session(4)
    total = O200K.count_messages(m)
    assert get_strategy("recommended", trigger_share=1.0).compress(m, total, counter="o200k_base").messages == m


def test_when_clearing_is_not_enough_the_oldest_groups_fold_into_a_summary_of_their_details() -> None:
    m = session(8, lines=8)
    r = get_strategy("recommended", trigger_share=0.5, target_share=0.3).compress(m, 3000, counter="o200k_base")
    validate_messages(r.messages)
    assert r.fits and [x.role for x in r.messages[:3]] == ["system", "user", "user"]
    summary = r.messages[2]
    assert summary.mark == "summary" and summary.text == r.messages[2].text
    assert "## Details" in r.summary and len(named(r.summary, "s0", 8)) == 16  # the folded outputs' trail
    assert r.messages[-1].text == "Found it."
    assert set(r.dropped_ids) >= {"m2", "m3"}  # the oldest group folded


def test_the_running_summary_is_updated_not_stacked() -> None:
    strategy = get_strategy("recommended", trigger_share=0.5, target_share=0.3)
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
    r = get_strategy("recommended").compress(m, 6000, counter="o200k_base")
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
        "trigger": "share", "trigger_share": 0.8, "head": "input", "tail": "budget", "target_share": 0.6,
        "middle": "summarize", "voice": "ctxlab", "summarizer": "extractive"}
    assert get_strategy("recommended:target_share=0.4").target_share == 0.4


def test_tool_names_reach_the_summary() -> None:
    m = (Message("system", "sys", id="s"), Message("user", "Go.", id="u"),
         Message("assistant", None, id="a", tool_calls=(ToolCall("c1", "list_dir", "{}"),)),
         Message("tool", "x", id="t", tool_call_id="c1"))
    text = get_strategy("recommended").engine.summarize(m, counter=O200K, max_tokens=500).text
    assert "list_dir" in text

