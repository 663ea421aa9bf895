"""The policy model's mechanics: window and trigger, heads, snaps, tails, masking, placement,
integrity reports, the `preset` helper and the `strategies --details` command."""

from __future__ import annotations

import dataclasses

import pytest
from typer.testing import CliRunner

from ctxlab.cli import app
from ctxlab.errors import CtxlabError, UnknownNameError
from ctxlab.messages import Message, ToolCall
from ctxlab.strategies import STRATEGIES, StrategySpec, get_strategy, list_strategies, strategy_params
from ctxlab.strategies.base import CompressionResult
from ctxlab.strategies.mechanics.cuts import head_end, snap, turn_start
from ctxlab.strategies.mechanics.mask import clear_tool_results
from ctxlab.strategies.mechanics.shaped import render, to_canonical
from ctxlab.strategies.mechanics.voices import VOICES, unwrap_voice
from ctxlab.strategies.policy import Policy, Source, orphan_rate, orphans, preset
from ctxlab.strategies.trigger import Trigger, window_of
from ctxlab.summarize.sections import parse_summary
from tests.builders import Convo, agent_session


def msg(role: str, text: str | None, id: str, calls: tuple[str, ...] = (), call_id: str | None = None) -> Message:
    return Message(role, text, id=id, tool_calls=tuple(ToolCall(c, "read_file", "{}") for c in calls),
                   tool_call_id=call_id)


def test_window_is_the_budget_unless_a_smaller_window_is_configured() -> None:
    assert window_of(8000) == 8000
    assert window_of(8000, 5000) == 5000
    assert window_of(8000, 128_000) == 8000
    assert window_of(200_000, model="gpt-4o") == 128_000  # litellm's bundled map


def test_thresholds_follow_each_trigger_kind() -> None:
    assert Trigger.at_share(0.9).threshold(1000) == 900
    assert Trigger.at_reserve(10_000).threshold(100_000) == 90_000
    assert Trigger.at_tokens(100_000).threshold(8000) == 100_000
    assert Trigger().threshold(8000) is None and Trigger().fires(0, 8000)
    strict, inclusive = Trigger.at_share(0.9), Trigger.at_share(0.9, inclusive=True)
    assert not strict.fires(900, 1000) and strict.fires(901, 1000)
    assert inclusive.fires(900, 1000) and not inclusive.fires(899, 1000)
    with pytest.raises(CtxlabError, match="unknown trigger"):
        Trigger("sometimes")


def test_the_replys_room_comes_off_the_window_at_most_the_models_max_output() -> None:
    """Claude Code's ``window - min(maxOutputTokens, 20000) - 13000``: a reserve with the reply's room."""
    assert Trigger("reserve", reserve=13_000, reply=20_000).threshold(200_000) == 167_000
    assert Trigger("share", share=0.5, reply=1000).threshold(10_000) == 4500
    assert Trigger.at_tokens(5000).threshold(10_000) == 5000  # a fixed count stays fixed
    claude = {"trigger": "reserve", "trigger_reserve": 13_000, "trigger_reply": 20_000}
    assert get_strategy("policy", model="gpt-4o", **claude).when().reply == 16_384  # gpt-4o writes at most 16,384
    assert get_strategy("policy", **claude).when().reply == 20_000  # no model: the setting itself


def test_an_event_limit_fires_whatever_the_tokens() -> None:
    trigger = Trigger("share", share=1.0, events=10)
    assert not trigger.fires(500, 1000, events=10) and trigger.fires(500, 1000, events=11)
    assert trigger.fires(1001, 1000, events=0)


def test_heads() -> None:
    m = (msg("system", "a", "s1"), msg("system", "b", "s2"), msg("assistant", "hi", "a0"), msg("user", "task", "u1"),
         msg("assistant", "ok", "a1"))
    assert head_end(m, "system") == 2
    assert head_end(m, "first_system") == 1
    assert head_end(m, "input") == 4  # inspect_ai: up to and including the first user message
    assert head_end(m, "none") == 0
    summary_first = (m[0], Message("user", "sum", id="x", mark="summary"), m[3])
    assert head_end(summary_first, "input") == 1  # a summary is conversation, never input


def test_snaps_keep_tool_exchanges_whole() -> None:
    m = (msg("user", "u", "u1"), msg("assistant", None, "a1", ("c1", "c2")), msg("tool", "r1", "t1", call_id="c1"),
         msg("tool", "r2", "t2", call_id="c2"), msg("assistant", "done", "a2"), msg("user", "next", "u2"))
    assert [snap("valid_cut", m, i, 0) for i in range(6)] == [0, 1, 4, 4, 4, 5]
    assert [snap("owner", m, i, 0) for i in range(6)] == [0, 1, 1, 1, 4, 5]
    assert [snap("group_start", m, i, 0) for i in range(6)] == [0, 1, 1, 1, 4, 5]
    assert snap("none", m, 2, 0) == 2
    assert snap("valid_cut", m[:4], 3, 0) == 0  # no valid point after: pi keeps from the first one
    assert turn_start(m, 4, 0) == 0 and turn_start(m, 5, 0) is None


def test_langchain_safe_cutoff_examples() -> None:
    """langchain_v1 tests, test_summarization_middleware_find_safe_cutoff_point: a cut on a tool
    message moves back to the AI message that called it, past an orphan when none did."""
    m = (msg("user", "msg1", "h1"), msg("assistant", "ai", "a1", ("call1",)), msg("tool", "result1", "t1", call_id="call1"),
         msg("tool", "result2", "t2", call_id="call2"), msg("user", "msg2", "h2"))
    assert [snap("owner", m, i, 0) for i in (0, 1, 2, 3, 4, 5, 10)] == [0, 1, 1, 4, 4, 5, 10]


def test_clearing_keeps_the_newest_results_in_either_order() -> None:
    m = (msg("user", "go", "u"), msg("assistant", None, "a1", ("c1", "c2")), msg("tool", "r2", "t2", call_id="c2"),
         msg("tool", "r1", "t1", call_id="c1"), msg("assistant", None, "a2", ("c3",)), msg("tool", "r3", "t3", call_id="c3"))
    by_results = clear_tool_results(m, 2, "[cleared]", "results")
    by_calls = clear_tool_results(m, 2, "[cleared]", "calls")
    assert sorted(by_results) == [2] and sorted(by_calls) == [3]  # the parallel results came back swapped
    assert by_results[2].text == "[cleared]" and by_results[2].mark == "truncated" and by_results[2].id == "t2"
    assert clear_tool_results(m, 0, "[cleared]") .keys() == {2, 3, 5}
    assert clear_tool_results(m, 5, "[cleared]") == {}
    again = tuple(by_results.get(i, x) for i, x in enumerate(m))
    assert clear_tool_results(again, 2, "[cleared]") == {}  # already cleared: skipped


def test_orphans_and_their_rate() -> None:
    good = (msg("user", "u", "u"), msg("assistant", None, "a", ("c1",)), msg("tool", "r", "t", call_id="c1"))
    assert not orphans(good)
    assert orphans(good[:2]) == ((("a",), ()))
    assert orphans((good[0], good[2])) == ((), ("t",))
    assert orphans((good[1], good[0], good[2])) == (("a",), ("t",))

    def result(messages: tuple[Message, ...]) -> CompressionResult:
        return CompressionResult(messages, (), (), (), 0, 0, 1, True, "chars4", StrategySpec("noop"))

    assert orphan_rate([result(good), result(good[:2]), result(good), result((good[2],))]) == 0.5
    assert orphan_rate(result(good)) == 0.0 and orphan_rate([]) == 0.0


def test_placements_put_the_summary_where_the_agent_does() -> None:
    m = Convo().system().user("Fix tests/test_api.py.").assistant("Reading.").user("And the docs.").assistant(
        "On it.").user("Thanks.").build()
    common = {"trigger": "always", "tail": "recent_messages", "keep_messages": 2, "snap": "group_start",
              "middle": "summarize"}
    ids = {where: [x.id if x.mark is None else "S" for x in get_strategy("policy", placement=where, **common)
                   .compress(m, 10_000, counter="chars4").messages] for where in ("after_head", "end")}
    assert ids == {"after_head": ["m0", "S", "m4", "m5"], "end": ["m0", "m4", "m5", "S"]}


def test_a_composition_that_can_orphan_results_must_be_declared() -> None:
    with pytest.raises(CtxlabError, match="orphan tool results"):
        get_strategy("policy", tail="recent_messages", keep_messages=3)
    with pytest.raises(CtxlabError, match="one of"):
        get_strategy("policy", tail="newest")
    with pytest.raises(CtxlabError, match="unknown model"):
        get_strategy("pi", model="no-such-model-xyz")
    assert get_strategy("langchain_trim", start_on_user=False).breaks_tool_pairs


def test_preset_registers_a_subclass_with_new_defaults_and_its_source() -> None:
    source = Source("example/agent", "src/compact.py", "abc123")
    cls = preset("test_preset_tmp", Policy, {"tail": "share", "keep_message_share": 0.5, "repair_orphans": True},
                 source, "keeps the newest half")
    try:
        built = get_strategy("test_preset_tmp")
        assert isinstance(built, Policy) and type(built) is cls and cls.__module__ == __name__
        assert (built.tail, built.keep_message_share, built.about, built.source) == (
            "share", 0.5, "keeps the newest half", source)
        assert strategy_params("test_preset_tmp")["keep_message_share"] == 0.5
        assert StrategySpec.from_json(built.spec.to_json()).build() == built
        assert get_strategy("test_preset_tmp:keep_message_share=0.25").keep_message_share == 0.25
    finally:
        STRATEGIES.unregister("test_preset_tmp")
    with pytest.raises(CtxlabError, match="no field"):
        preset("test_preset_bad", Policy, {"keep_everything": True}, source, "")
    with pytest.raises(UnknownNameError):
        get_strategy("pi", keep_everything=True)


def presets() -> list[str]:
    """Every registered preset of the policy model (a subclass of `Policy` with new defaults)."""
    return [n for n in list_strategies() if isinstance(cls := STRATEGIES.get(n), type) and issubclass(cls, Policy)
            and cls is not Policy]


def test_every_preset_names_its_source_and_round_trips() -> None:
    names = presets()
    assert {"pi", "codex", "claude_code", "langchain_trim", "openhands", "inspect_trim", "recommended"} <= set(names)
    for name in names:
        strategy = get_strategy(name)
        assert strategy.source.repo and strategy.source.version and strategy.about, name
        assert strategy.spec.name == name and StrategySpec.from_json(strategy.spec.to_json()).build() == strategy
        assert [f.name for f in dataclasses.fields(strategy)] == [f.name for f in dataclasses.fields(Policy)]


def test_voices_render_and_read_back_their_sections() -> None:
    items = {"Goal": ["Fix the parser"], "Files Modified": ["src/parse.py"], "Next Steps": ["Run pytest"]}
    oh = render(VOICES["openhands"], items)
    assert oh == "USER_CONTEXT:\n- Fix the parser\n\nPENDING:\n- Run pytest\n\nCHANGES:\n- src/parse.py"
    assert parse_summary(to_canonical(VOICES["openhands"], oh)) == items | {"Files Modified": ["src/parse.py"]}
    lc = render(VOICES["langchain"], items)
    assert lc.startswith("## SESSION INTENT\n- Fix the parser") and "## ARTIFACTS\n- src/parse.py" in lc
    wrapped = VOICES["codex"].wrapper.format(summary="the summary")
    assert unwrap_voice(VOICES["codex"], wrapped) == "the summary"
    assert unwrap_voice(VOICES["inspect"], VOICES["inspect"].wrapper.format(summary="x")) == "x"


def test_strategies_details_shows_changed_parameters_and_sources() -> None:
    result = CliRunner().invoke(app, ["strategies", "--details"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if "trigger_reserve=16384" in x)  # pi's row
    assert "keep_tokens=20000" in line and "mask_keep" not in line  # only what pi changes
    assert "badlogic/pi-mono" in result.output and "inspect_ai 0.3.285" in result.output
    for source in ("google-gemini/gemini-cli", "anomalyco/opencode", "cline/cline", "Aider-AI/aider", "block/goose",
                   "letta-ai/letta"):
        assert source in result.output


def test_a_policy_leaves_a_conversation_under_its_trigger_unchanged() -> None:
    m = agent_session(3, output_chars=200)
    r = get_strategy("codex").compress(m, 100_000, counter="o200k_base")
    assert r.messages == m and r.dropped_ids == () and r.events == ()
