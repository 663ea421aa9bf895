"""The search on deterministic fake objectives: the grid, the optimizer, the cache, the front and
the pick with ties named as ties."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys

import pytest

from ctxlab import get_strategy, load_conversations
from ctxlab.errors import CtxlabError
from ctxlab.tune import Goal, dimensions, knobs_for, search, setting, tunable
from ctxlab.tune.measures import Evaluation, Measure, Sample
from ctxlab.tune.pareto import front, pick
from ctxlab.tune.tuner import MemoryCache

WINDOW = 64_000
GOAL = Goal("recall", "tokens", "rejected")
SESSIONS = range(5)


class PiFake:
    """Recall grows with keepRecentTokens and saturates at 20,000; tokens grow with it and with a
    later trigger. Deterministic; counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, s):
        self.calls += 1
        keep, reserve = s.values["compaction.keepRecentTokens"], s.values["compaction.reserveTokens"]
        return {"recall": [Sample(min(100.0, keep / 200 + i), 100) for i in SESSIONS],
                "tokens": [Sample(2 * keep + (WINDOW - reserve) + 10 * i) for i in SESSIONS],
                "rejected": [Sample(0.0) for _ in SESSIONS]}


def test_grid_for_two_knobs_and_the_pick():
    fake = PiFake()
    result = search("pi", fake, window=WINDOW, goal=GOAL)
    assert result.method == "grid" and len(result.evaluations) == 1 + 25 == fake.calls
    assert result.evaluations[0].setting.params == {} and result.default == 0
    assert len({e.setting.key for e in result.evaluations}) == len(result.evaluations)
    chosen = result.evaluations[result.pick.row].setting.values
    # recall saturates from 20,000 kept tokens on: every such setting ties, and the cheapest wins
    assert chosen == {"compaction.reserveTokens": 32_000, "compaction.keepRecentTokens": 20_992}
    assert len(result.pick.tied) == 3 * 5 - 1 + 1  # the 14 other saturated grid points and the default
    assert "Tied with it" in result.pick.evidence  # equal recall: the cheapest of the best is the best
    assert "The agent's default (compaction.reserveTokens=16384, compaction.keepRecentTokens=20000)" in \
        result.pick.evidence and "a tie on quality" in result.pick.evidence


def _pi_points(s):
    """Every session alike: point intervals."""
    keep, reserve = s.values["compaction.keepRecentTokens"], s.values["compaction.reserveTokens"]
    return {"recall": [Sample(min(100.0, keep / 300 + reserve / 1000), 100)] * 3,
            "tokens": [Sample(2 * keep + (WINDOW - reserve))] * 3}


def test_with_point_intervals_the_front_is_the_plain_pareto_front():
    result = search("pi", _pi_points, window=WINDOW, goal=Goal("recall", "tokens"))
    points = [(e.measures["recall"].mean, e.measures["tokens"].mean) for e in result.evaluations]
    plain = {i for i, (q, c) in enumerate(points)
             if not any(q2 >= q and c2 <= c and (q2, c2) != (q, c) for q2, c2 in points)}
    assert {p.row for p in result.front} == plain
    costs = [result.evaluations[p.row].measures["tokens"].mean for p in result.front]
    assert costs == sorted(costs)


def test_a_rerun_reuses_the_cache():
    cache, first = MemoryCache(), PiFake()
    one = search("pi", first, window=WINDOW, goal=GOAL, cache=cache, scope="sessions A")
    again = PiFake()
    two = search("pi", again, window=WINDOW, goal=GOAL, cache=cache, scope="sessions A")
    assert again.calls == 0 and all(e.cached for e in two.evaluations) and len(cache) == first.calls
    assert [e.setting.key for e in two.evaluations] == [e.setting.key for e in one.evaluations]
    assert two.pick == one.pick
    other = PiFake()
    search("pi", other, window=WINDOW, goal=GOAL, cache=cache, scope="sessions B")
    assert other.calls == first.calls  # another scope is another key


def _openhands(s):
    size, first, share = s.values["max_size"], s.values["keep_first"], s.values["max_tokens"] / WINDOW
    q = 0.5 + 0.3 * min(size, 200) / 200 + 0.01 * first - 0.05 * s.values["minimum_progress"]
    return {"recall": [Sample(q * 100 + i, 100) for i in SESSIONS], "tokens": [Sample(size * 300 * share + i)
                                                                               for i in SESSIONS]}


def test_more_than_two_knobs_use_the_seeded_optimizer():
    runs = [search("openhands", _openhands, window=WINDOW, goal=Goal("recall", "tokens"), trials=15, seed=7)
            for _ in range(2)]
    assert runs[0].method == "optuna" and 2 <= len(runs[0].evaluations) <= 16
    assert [e.setting.key for e in runs[0].evaluations] == [e.setting.key for e in runs[1].evaluations]
    entry = knobs_for("openhands")
    assert all(not entry.violations(e.setting.values) for e in runs[0].evaluations)
    other = search("openhands", _openhands, window=WINDOW, goal=Goal("recall", "tokens"), trials=15, seed=8)
    assert [e.setting.key for e in other.evaluations] != [e.setting.key for e in runs[0].evaluations]


def test_a_forced_grid_skips_what_the_source_forbids():
    result = search("openhands_agent", _openhands, window=WINDOW, goal=Goal("recall", "tokens"), method="grid",
                    grid_points=2, knobs=["max_size", "keep_first"])
    # max_size 20 with keep_first 10 breaks max_size // 2 - keep_first - 1 > 0
    assert len(result.evaluations) == 1 + 4 - 1


def test_search_errors_are_named():
    with pytest.raises(CtxlabError, match="no rejected"):
        search("codex", lambda s: {"recall": [Sample(1, 1)], "tokens": [Sample(1)]}, window=WINDOW, goal=GOAL)
    with pytest.raises(CtxlabError, match="unknown search method"):
        search("codex", PiFake(), window=WINDOW, goal=GOAL, method="annealing")


def _ev(limit: int, recalls: list[float], c: float, rejected: float = 0.0) -> Evaluation:
    """A setting evaluated on five sessions: recall per session (NaN: nothing needed there), a
    constant cost and share of rejected calls."""
    s = setting("codex", WINDOW, {"model_auto_compact_token_limit": limit})
    samples = {"recall": [Sample(0.0, 0.0) if math.isnan(r) else Sample(r) for r in recalls],
               "tokens": [Sample(c)] * len(recalls), "rejected": [Sample(rejected)] * len(recalls)}
    return Evaluation(s, {k: Measure.of(v) for k, v in samples.items()}, samples=samples)


A = [0.75, 0.85, 0.80, 0.78, 0.82]


def test_paired_ties_and_the_cheapest_of_them():
    a = _ev(30_000, A, 100)
    b = _ev(40_000, [x + d for x, d in zip(A, [0.06, -0.04, 0.05, -0.03, 0.06], strict=True)], 150)  # +2 pt, mixed
    c = _ev(20_000, [x - 0.2 for x in A], 50)  # 20 points less in every session: clearly lower
    d = _ev(50_000, [x + 0.1 for x in A], 300, rejected=0.1)
    evals = [a, b, c, d]
    assert [p.row for p in front(evals, GOAL)] == [2, 0, 3]  # b: tied with a on quality, dearer: dominated
    chosen = pick(evals, GOAL, default=1)
    assert chosen is not None and chosen.row == 0 and chosen.tied == (1,)
    assert "Tied with the best quality" in chosen.evidence and "a tie on quality" in chosen.evidence
    assert "33.3% less" in chosen.evidence
    assert "quality): the agent's default, " in chosen.evidence  # a tied default is named as the default
    assert "the agent's default, " not in pick(evals, GOAL, default=2).evidence
    # The default d keeps more but has rejected calls: the evidence says so.
    assert "a provider would reject 10.0% of the default's calls" in pick(evals, GOAL, default=3).evidence


def test_a_small_difference_every_session_shows_is_not_a_tie():
    """One point more in every session: the sessions' own intervals overlap, the paired one does not."""
    a, b = _ev(30_000, A, 100), _ev(40_000, [x + 0.01 for x in A], 150)
    assert a.measures["recall"].high > b.measures["recall"].low  # the old rule's tie
    chosen = pick([a, b], GOAL)
    assert chosen is not None and chosen.row == 1 and chosen.tied == ()


def test_without_a_clean_setting_the_fewest_rejected_come_first():
    evals = [_ev(30_000, [0.9] * 5, 100, 0.2), _ev(40_000, [0.5] * 5, 100, 0.1)]
    chosen = pick(evals, GOAL)
    assert chosen is not None and chosen.row == 1 and "fewest" in chosen.evidence


def test_a_setting_without_quality_is_left_out():
    evals = [_ev(30_000, [math.nan] * 5, 10), _ev(40_000, [0.4, 0.5, 0.6, 0.5, 0.5], 100)]
    assert [p.row for p in front(evals, GOAL)] == [1]
    assert pick(evals, GOAL).row == 1
    assert pick([evals[0]], GOAL) is None


def test_settings_without_samples_are_not_compared():
    bare = Evaluation(setting("codex", WINDOW, {}), {"recall": Measure(0.5, 0.4, 0.6, 5),
                                                    "tokens": Measure(1, 1, 1, 5), "rejected": Measure(0, 0, 0, 5)})
    with pytest.raises(CtxlabError, match="no per-session samples of recall"):
        pick([bare, _ev(30_000, A, 100)], GOAL)


def test_importing_the_package_does_not_import_optuna():
    code = "import sys, ctxlab.tune.tuner, ctxlab.tune; ctxlab.tune.search; print('optuna' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


REGISTERED = tunable()


@pytest.mark.parametrize("preset", REGISTERED)
@pytest.mark.parametrize("window", [8_000, 64_000, 200_000])
def test_every_grid_point_builds_its_preset(preset, window):
    entry = knobs_for(preset)
    if preset == "anthropic_compaction" and window < 50_000:  # the API refuses a trigger under 50,000
        with pytest.raises(CtxlabError, match="nothing to search at a window of 8,000"):
            dimensions(entry, window)
        return
    for dim in dimensions(entry, window):
        for x in dim.grid():
            params = setting(preset, window, {dim.name: x}).params
            strategy = get_strategy(preset, **params)  # the preset accepts every searched setting
            assert all(getattr(strategy, k) == v for k, v in params.items())


def test_search_over_real_strategies_and_sessions():
    conversations = list(itertools.islice(load_conversations("sample:agent_sessions"), 2))

    def objective(s):
        strategy = get_strategy(s.preset, **s.params)
        results = [strategy.compress(c.messages, budget=s.window, counter="chars4", tools=c.tools)
                   for c in conversations]
        return {"kept": [Sample(len(r.kept_ids), len(r.input_ids)) for r in results],
                "tokens": [Sample(r.tokens_after) for r in results]}

    result = search("inspect_trim", objective, window=8_000, goal=Goal("kept", "tokens"))
    assert len(result.evaluations) == 26 and result.pick is not None
    kept = [e.measures["kept"].mean for e in result.evaluations]
    assert min(kept) < max(kept)  # the knobs change what is kept
