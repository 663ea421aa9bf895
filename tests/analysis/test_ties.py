"""The pick's pool: no rejected call beats any; when every candidate has some, the one rule for a tie
decides who competes with the fewest, so a call of noise does not outweigh the rest."""

from __future__ import annotations

import numpy as np

from ctxlab.analysis.ties import Ratio, choose, contest, tied

SESSIONS = 10
CALLS = np.full(SESSIONS, 20.0)


def rejected(*per_session: int) -> Ratio:
    """Rejected calls per session (the rest none) over 20 calls each."""
    counts = np.zeros(SESSIONS)
    counts[: len(per_session)] = per_session
    return Ratio.of(counts, CALLS)


def recall(kept: float) -> Ratio:
    """The same share kept in every session, of 10 needed strings each."""
    return Ratio.of(np.full(SESSIONS, 10 * kept), np.full(SESSIONS, 10.0))


def test_no_rejected_call_beats_any_however_much_more_the_other_keeps():
    found = choose([recall(0.5), recall(0.99)], [1.0, 1.0], [rejected(), rejected(1)])
    assert found is not None and found.pool == (0,) and found.run == 0


def test_a_call_of_noise_does_not_outweigh_recall_when_every_candidate_has_some():
    quality = [recall(0.6), recall(0.95), recall(0.97)]
    shares = [rejected(1), rejected(1, 1), rejected(*[6] * SESSIONS)]  # 0.5%, 1%, 30% of calls
    assert tied(shares[0], shares[1]) and not tied(shares[0], shares[2])
    found = choose(quality, [1.0, 2.0, 0.5], shares)
    assert found is not None and found.pool == (0, 1)  # the third rejects clearly more: it does not compete
    assert (found.best, found.run) == (1, 1)  # keeps clearly more than the fewest-rejected one, so it runs
    # with the same shares compared exactly (no tie on rejected calls), the fewest alone would compete
    exact = contest([q.mean for q in quality], [1.0, 2.0, 0.5], [s.mean for s in shares], lambda i, j: False)
    assert exact == ((0,), 0)


def test_candidates_without_a_quality_or_a_cost_never_compete():
    nothing = Ratio.of(np.zeros(SESSIONS), np.zeros(SESSIONS))
    assert choose([nothing], [1.0], [rejected()]) is None
    found = choose([nothing, recall(0.5)], [1.0, float("nan")], [rejected(), rejected()])
    assert found is None
