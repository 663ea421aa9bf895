"""The live tuner: sliders in the agent's names around its default, a point per setting kept by key,
and stored searches found for the same sessions."""

from __future__ import annotations

import threading
import time

import pytest

from ctxlab.errors import CtxlabError
from ctxlab.tune import Sessions, knobs_for, tune
from ctxlab.tune.live import LiveTuner, beside, fixed, matching_search, moved, sliders, stored_points, tunable
from ctxlab.tune.speed import knob_values


@pytest.fixture(scope="module")
def live() -> LiveTuner:
    return LiveTuner(Sessions.load(["sample:agent_sessions"], limit=2))


@pytest.mark.parametrize("preset", tunable())
@pytest.mark.parametrize("window", [8000, 128_000])
def test_sliders_are_the_searchable_knobs_around_the_agent_s_default(preset, window):
    searchable = [k.name for k in knobs_for(preset).knobs if k.searched is not None and k.kind in ("int", "float")]
    left = fixed(preset, window)
    if left.keys() == set(searchable):  # nothing to move at this window: the reason is the error
        with pytest.raises(CtxlabError, match=f"{preset} cannot be tuned at a window of {window:,} tokens"):
            sliders(preset, window)
        return
    knobs = sliders(preset, window)
    assert [k.name for k in knobs] == [name for name in searchable if name not in left]
    for knob in knobs:
        assert knob.low <= knob.default <= knob.high and knob.step > 0
    assert moved(preset, window, {k.name: k.default for k in knobs}) == {}


def test_a_knob_with_an_empty_span_at_the_window_stays_at_the_preset_s_value():
    # The API refuses a compaction trigger under 50,000 tokens: at 8k it never compacts before overflow.
    assert "the API refuses less than 50,000" in fixed("anthropic_compaction", 8000)["trigger"]
    assert fixed("anthropic_compaction", 64_000) == {}
    # Context editing's clear_at_least (1,024 or more) cannot fit a quarter of a 4k window; its other knobs move.
    assert list(fixed("anthropic_context_editing", 4000)) == ["clear_at_least"]
    assert [k.name for k in sliders("anthropic_context_editing", 4000)] == ["trigger", "keep"]
    assert moved("anthropic_context_editing", 4000, {"clear_at_least": 2000}) == {}


def test_tunable_presets_are_the_registered_ones():
    assert "pi" in tunable() and all(knobs_for(p).knobs for p in tunable())


def test_a_point_is_the_setting_evaluated_once_and_kept(live):
    first = live.point("pi", 4000, {"compaction.keepRecentTokens": 1024})
    assert first.label == "pi:keep_tokens=1024" and first.setting.values["compaction.keepRecentTokens"] == 1024
    again = live.point("pi", 4000, {"compaction.keepRecentTokens": 1024})
    assert again.scored is first.scored  # the same key answers from memory
    assert not live.evaluator(4000, None).pending  # nothing waits to be written by a page
    default = live.default("pi", 4000)
    assert default.label == "pi" and default.scored.row["needed_recall"] >= first.scored.row["needed_recall"]
    table = beside(default, first)
    assert list(table["setting"]) == ["the agent's default", "current"]
    assert list(beside(default, default)["setting"]) == ["the agent's default"]
    assert any('"keepRecentTokens": 1024' in s.text for s in first.snippets)


def test_a_setting_the_source_forbids_is_named(live):
    with pytest.raises(CtxlabError, match="keep_first"):
        live.point("openhands", 4000, {"max_size": 20, "keep_first": 10})


def test_a_stored_search_is_found_for_the_same_sessions_only(live, tmp_path):
    from ctxlab import store

    db = str(tmp_path / "t.duckdb")
    outcome = tune(Sessions.load(["sample:agent_sessions"], limit=2), "codex", window=4000, db=db)
    with store.reading(db) as con:
        searches = store.tune_searches(con)
        evaluations = store.tune_evaluations(con, outcome.search_id)
    scope = live.evaluator(4000, None).scope
    assert matching_search(searches, "codex", 4000, scope) == outcome.search_id
    assert matching_search(searches, "codex", 8000, scope) is None
    assert matching_search(searches, "codex", 4000, live.evaluator(4000, "gpt-5").scope) is None
    points = stored_points(evaluations)
    assert len(points) == len(outcome.result.evaluations) and points["on_front"].any()
    assert {"needed_recall", "effective_tokens", "label"} <= set(points.columns)
    # Searching from the live tuner reads the stored settings back and writes nothing.
    again = live.search("codex", 4000, db=db)
    assert again.replayed == 0 and again.written == 0 and again.reused == len(outcome.result.evaluations)


def test_a_knob_change_answers_from_a_sample_and_refines_to_every_session():
    sessions = Sessions.load(["sample:agent_sessions"], limit=24)
    sampled = LiveTuner(sessions, sample_calls=100)
    assert 1 <= sampled.sample < len(sessions)
    first = sampled.point("codex", 8000, {})
    assert (first.sessions, first.total, first.complete) == (sampled.sample, 24, False)
    assert first.scored.row["sessions"] == sampled.sample
    steps = list(sampled.refine("codex", 8000, {}))
    assert [p.sessions for p in steps] == sorted({p.sessions for p in steps}) and steps[-1].complete
    full = LiveTuner(sessions, sample_calls=None).point("codex", 8000, {})
    assert full.complete and full.scored.row["needed_recall"] == steps[-1].scored.row["needed_recall"]
    assert sampled.point("codex", 8000, {}).complete  # once refined, a move back answers from all sessions


def test_a_knob_change_waits_for_one_session_of_a_running_refinement_at_most():
    sessions = Sessions.load(["sample:agent_sessions"], limit=24)
    tuner = LiveTuner(sessions, sample_calls=100)
    evaluator = tuner.evaluator(8000, None)
    replayed: list[str] = []  # which thread replayed each session, in order
    inside, resume = threading.Event(), threading.Event()
    original = evaluator._replay

    def replay(run_id, entry, indices):
        refining = threading.current_thread().name == "ctxlab-refine"
        if refining and not inside.is_set():
            inside.set()  # the refinement is in its first session, holding the evaluator
            assert resume.wait(60)
        replayed.extend(["refine" if refining else "answer"] * len(indices))
        return original(run_id, entry, indices)

    evaluator._replay = replay
    tuner.point("codex", 8000, {})
    replayed.clear()
    job = tuner.refine_in_background("codex", 8000, {})
    assert inside.wait(60)
    moved_to = knob_values("codex", 8000)[-1]
    answers = []
    asking = threading.Thread(target=lambda: answers.append(tuner.point("codex", 8000, moved_to)))
    asking.start()
    while tuner._asking == 0:  # the knob change has come in (waiting for the evaluator)
        time.sleep(0.01)
    resume.set()
    asking.join(120)
    job._thread.join(300)
    refine_before = replayed.index("answer")
    assert replayed[:refine_before] == ["refine"]  # the session under way, then the knob change
    assert replayed.count("refine") > 1 and job.done and job.error is None
    alone = LiveTuner(sessions, sample_calls=100).point("codex", 8000, moved_to)
    assert answers[0].scored.row["needed_recall"] == alone.scored.row["needed_recall"]
    assert answers[0].sessions == alone.sessions == tuner.sample
    assert tuner.point("codex", 8000, {}).complete
