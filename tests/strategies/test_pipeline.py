"""`pipeline`: steps chain, accounting maps back to the input, specs round-trip."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from ctxlab.errors import CtxlabError, UnknownNameError
from ctxlab.messages import Message
from ctxlab.strategies import BaseStrategy, Plan, Request, StrategySpec, get_strategy
from ctxlab.strategies.general.observation_masking import ObservationMasking
from ctxlab.strategies.general.pipeline import DEFAULT_STEPS, Pipeline
from ctxlab.strategies.seeds.sliding_window import SlidingWindow
from ctxlab.strategies.seeds.window_guard import WindowGuard
from tests.builders import Convo, agent_session, huge_text


@dataclass(frozen=True)
class Fold(BaseStrategy):
    """Test step (unregistered): folds every message but the newest two into one marked message.

    `claim` says how it accounts for the folded ids: ``dropped`` (a summary) or ``kept`` (gssc's
    structured prompt, which carries them whole).
    """

    claim: str = "dropped"
    name = "fold"

    def plan(self, request: Request) -> Plan:
        old, new = request.messages[:-2], request.messages[-2:]
        folded = Message(role="user", content="summary of " + ",".join(m.id for m in old), id="folded",
                         mark="summary", source_ids=tuple(m.id for m in old))
        ids = [m.id for m in old]
        return Plan([folded, *new], summary=folded.text, truncated_ids=[],
                    dropped_ids=ids if self.claim == "dropped" else [])


def run(steps, messages, budget: int = 10**9, counter: str = "chars4"):
    return get_strategy("pipeline", steps=steps).compress(messages, budget, counter=counter)


def test_default_steps_mask_then_guard() -> None:
    p = get_strategy("pipeline")
    assert p.steps == (ObservationMasking(fallback_window=False), WindowGuard())
    assert DEFAULT_STEPS[0].startswith("observation_masking")


@pytest.mark.parametrize("steps", [
    DEFAULT_STEPS,
    ("window_guard:reserve_tokens=0,context_window_override=5000", "sliding_window"),
    [{"name": "sliding_window", "params": {"max_chars_per_message": 10}}, "noop"],
    ("pipeline", "observation_masking:attention_window=3"),
])
def test_spec_round_trips_to_an_equal_pipeline(steps) -> None:
    p = get_strategy("pipeline", steps=steps)
    assert get_strategy(p.spec.name, **dict(p.spec.params)) == p
    assert StrategySpec.from_json(p.spec.to_json()).build() == p
    assert hash(p) == hash(StrategySpec.from_json(p.spec.to_json()).build())


def test_step_forms_are_equivalent() -> None:
    expected = Pipeline(steps=(WindowGuard(reserve_tokens=0), SlidingWindow()))
    assert get_strategy("pipeline", steps="window_guard:reserve_tokens=0+sliding_window") == expected
    assert get_strategy("pipeline:steps=window_guard:reserve_tokens=0+sliding_window") == expected
    assert get_strategy("pipeline", steps=[{"name": "window_guard", "params": {"reserve_tokens": 0}},
                                           "sliding_window"]) == expected
    assert Pipeline(steps=(WindowGuard(reserve_tokens=0), "sliding_window")) == expected


def test_bad_steps_are_clear_errors() -> None:
    with pytest.raises(CtxlabError, match="non-empty"):
        get_strategy("pipeline", steps=[])
    with pytest.raises(UnknownNameError, match="no_such_strategy"):
        get_strategy("pipeline", steps=["no_such_strategy"])
    with pytest.raises(CtxlabError, match="not a strategy spec"):
        get_strategy("pipeline", steps=[42])


def test_each_step_compresses_the_previous_output() -> None:
    messages = Convo().system().user("Read it.").tools(("read_file", huge_text(60_000))) \
        .assistant("ok").user("?").build()
    r = run(("window_guard", "sliding_window"), messages)
    guarded = get_strategy("window_guard").compress(messages, 10**9, counter="chars4")
    by_hand = get_strategy("sliding_window").compress(guarded.messages, 10**9, counter="chars4")
    assert r.messages == by_hand.messages
    assert r.messages[3].text == guarded.messages[3].text[:4000] and r.truncated_ids == ("m3",)
    assert [(e.name, e.payload["step"], e.payload["step_index"]) for e in r.events] == [
        ("context_guard.truncated", "window_guard", 0), ("context.compressed", "sliding_window", 1)]


def test_truncated_then_dropped_is_dropped() -> None:
    messages = agent_session(3, output_chars=9000)  # outputs m3, m5, m7; final answer m8; user m9
    steps = ("observation_masking:attention_window=1,fallback_window=false", "window_guard")
    assert run(steps[:1], messages, budget=60).truncated_ids == ("m3", "m5", "m7")
    r = run(steps, messages, budget=60)
    assert r.truncated_ids == () and r.dropped_ids == tuple(f"m{i}" for i in range(1, 9))


def test_truncated_and_kept_stays_truncated() -> None:
    messages = agent_session(2, output_chars=9000)
    r = run(("sliding_window", "noop"), messages)
    assert r.truncated_ids == ("m3", "m5") and r.dropped_ids == ()


def test_summary_from_a_step_survives_a_later_step_that_keeps_it() -> None:
    messages = agent_session(2, output_chars=100)
    r = run((Fold(), "noop"), messages)
    assert r.messages[0].id == "folded" and r.summary == r.messages[0].text
    assert r.dropped_ids == tuple(m.id for m in messages[:-2]) and r.kept_ids == tuple(m.id for m in messages[-2:])


def test_summary_dropped_later_is_no_summary() -> None:
    messages = agent_session(2, output_chars=100)
    r = run((Fold(), "sliding_window"), messages, budget=12)
    assert [m.id for m in r.messages] == [messages[-1].id] and r.summary is None


def test_folded_ids_kept_by_one_step_are_dropped_when_a_later_step_drops_the_fold() -> None:
    messages = agent_session(2, output_chars=100)
    kept = run((Fold(claim="kept"), "noop"), messages)
    assert kept.dropped_ids == ()
    gone = run((Fold(claim="kept"), "sliding_window"), messages, budget=12)
    assert gone.dropped_ids == tuple(m.id for m in messages[:-1])
    later = run((Fold(claim="kept"), "noop", "noop", "sliding_window"), messages, budget=12)
    assert later.dropped_ids == gone.dropped_ids


def test_default_pipeline_masks_old_outputs_and_cuts_a_huge_recent_one() -> None:
    c = Convo().system().user("Fix the bug.")
    for k in range(14):
        c.tools(("read_file", huge_text(3000, f"S{k}>")), text=f"step {k}")
    c.tools(("read_file", huge_text(80_000))).assistant("Found it.").user("Now fix it.")
    messages = c.build()
    outputs = [m.id for m in messages if m.role == "tool"]
    r = get_strategy("pipeline").compress(messages, 10_000, counter="chars4")
    # 16 model calls: the oldest 6 steps are outside the attention window of 10.
    assert r.truncated_ids == (*outputs[:6], outputs[-1]) and r.dropped_ids == () and r.fits
    assert "[76000 characters truncated]" in r.messages[-3].text
    assert [(e.name, e.payload["step"]) for e in r.events] == [
        ("observation_masking.masked", "observation_masking"), ("context_guard.truncated", "window_guard")]
    tight = get_strategy("pipeline").compress(messages, 3000, counter="chars4")
    assert [m.id for m in tight.messages] == [messages[0].id, messages[-1].id] and tight.fits


def test_a_marked_input_passed_through_unchanged_counts_as_kept() -> None:
    summary = Message(role="user", content="summary of earlier work", id="s", mark="summary", source_ids=("x",))
    r = get_strategy("noop").compress((summary, Message(role="user", content="go", id="u")), 100, counter="chars4")
    assert r.kept_ids == ("s", "u") and r.dropped_ids == ()
