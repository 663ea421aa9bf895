"""The hindsight limit (`ctxlab.metrics.limit`): a true upper bound on needed recall at equal tokens,
for every registered strategy that runs offline, per unit, per session and pooled; and the token
bound it rests on (`ctxlab.tokens.cover`) against real tokenizations."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlab import store
from ctxlab.messages import Conversation, Message
from ctxlab.metrics.grounded import GroundedEvaluator, SessionNeeds
from ctxlab.metrics.limit import _overlap, call_costs, headroom_closed, limit_kept, reading
from ctxlab.replay import ReplayConfig, replay
from ctxlab.strategies import default_strategies
from ctxlab.tokens import get_counter
from ctxlab.tokens.cover import ALPHABET, inner_tokens, min_cover, vocabulary
from ctxlab.tokens.exact import load_tiktoken

NEIGHBOURS = ["", " ", "x", "_", ".", "/", "a1", "Z", "-", "\n", "9", "=", "@", "é", "中", "'s", "::", "ab.cd/"]


def _touching(text: str, start: int, size: int) -> int:
    """Tokens of o200k's real tokenization of `text` that overlap ``text[start:start + size]``."""
    encoding = load_tiktoken("o200k_base")
    raw, offset, found = text.encode(), 0, 0
    head = len(text[:start].encode())
    for token in encoding.encode_ordinary(text):
        width = len(encoding.decode_single_token_bytes(token))
        found += offset < head + size and offset + width > head
        offset += width
    assert offset == len(raw)
    return found


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=ALPHABET, min_size=1, max_size=40), st.sampled_from(NEIGHBOURS), st.sampled_from(NEIGHBOURS))
def test_no_tokenization_touches_a_string_with_fewer_tokens_than_its_cover(s, before, after):
    vocab = vocabulary("o200k_base")
    assert _touching(before + s + after, len(before), len(s)) >= min_cover(s, vocab)


def test_cover_and_inner_tokens_of_known_strings():
    vocab = vocabulary("o200k_base")
    assert min_cover("src/ctxlab/metrics/needed.py", vocab) >= 5
    assert inner_tokens("ab", vocab) == 0  # one or two tokens may all be shared with neighbours
    assert inner_tokens("src/ctxlab/metrics/needed.py", vocab) == min_cover("src/ctxlab/metrics/needed.py", vocab) - 2
    assert inner_tokens("anything", None) == 0  # a counter without a vocabulary gives no bound


def test_a_string_inside_another_costs_nothing_and_overlaps_are_trimmed():
    costs = dict(zip(("src/app/config.py", "config.py", "pyproject_settings_loader"),
                     call_costs(("src/app/config.py", "config.py", "pyproject_settings_loader"), "o200k_base"),
                     strict=True))
    assert costs["config.py"] == 0
    alone = inner_tokens("pyproject_settings_loader", vocabulary("o200k_base"))
    assert costs["pyproject_settings_loader"] <= alone  # "py" may be shared with "config.py"'s end
    assert call_costs(("a",), "") == (0,)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="ab/.", max_size=12), st.text(alphabet="ab/.", max_size=12))
def test_overlap_is_the_longest_proper_suffix_that_prefixes_the_other(a, b):
    plain = next((k for k in range(min(len(a), len(b)) - 1, 0, -1) if a.endswith(b[:k])), 0)
    assert _overlap(a, b) == plain


def _session() -> Conversation:
    body = "\n".join(f"def handler_{i}(): return load_config_{i}('settings/path_{i}.yaml')" for i in range(40))
    messages = (Message("system", "You are a coding agent.", id="s"), Message("user", "Fix handler_3 in app/main.py", id="u"),
                Message("tool", body, id="t", tool_call_id="c"), Message("assistant", "Reading handler_3", id="a0"),
                Message("user", "Use settings/path_7.yaml and load_config_9 too", id="u2"),
                Message("assistant", "Editing handler_3 with settings/path_7.yaml and load_config_9 in app/main.py",
                        id="a1"))
    return Conversation("limit", messages)


def test_the_limit_is_every_string_with_room_and_only_the_free_ones_without():
    conv, counter = _session(), get_counter("o200k_base")
    needs = SessionNeeds.build(conv, counter)
    needed = len(needs.calls[5])
    assert needed >= 3
    everything = conv.messages[:5]
    assert limit_kept(needs, 5, everything, counter) == needed
    pinned = [conv.messages[0], conv.messages[4]]  # system prompt and newest user message, whole
    free = sum(any(j in (0, 4) for j in needs.holdings[n.text].indices) for n in needs.calls[5])
    assert limit_kept(needs, 5, pinned, counter) == free
    measured = GroundedEvaluator(needs).measure(5, everything)
    assert limit_kept(needs, 5, everything, counter) >= measured.needed_kept


def test_headroom_closed():
    assert headroom_closed(0.9, 1.0, 0.4) == pytest.approx(5 / 6)
    assert headroom_closed(0.9, 0.4, 0.4) is None and headroom_closed(None, 1.0, 0.4) is None


def test_the_reading_names_where_the_limit_binds_and_says_when_it_binds_nowhere():
    binds = reading({"recommended": 1.0, "langchain_trim": 0.862, "sliding_window": 0.912, "old run": float("nan")})
    assert binds.index("langchain_trim 86.2%") < binds.index("sliding_window 91.2%")
    assert "recommended" not in binds and "every other policy" in binds
    assert "for want of tokens" in reading({"recommended": 1.0, "learned": 0.998})
    assert "every other" not in reading({"langchain_trim": 0.5}) and reading({"old run": float("nan")}) == ""


@pytest.mark.slow
def test_no_strategy_beats_the_limit_at_its_own_tokens(tmp_path):
    """Every registered strategy that needs no LLM, per turn on bundled agent sessions at a tight and
    a loose window: the limit at each call's own tokens is at or above what the call kept, so it is
    too per session and pooled."""
    db = str(tmp_path / "limit.duckdb")
    strategies = default_strategies(offline=True)
    assert "learned" in strategies and "recommended" in strategies
    run = replay(ReplayConfig(("sample:agent_sessions",), tuple(strategies), (2000, 8000), modes=("per-turn",), db=db,
                              workers=0, limit=5, estimators=(), quality=False))
    with store.reading(db) as con:
        units = con.execute("SELECT label, seq, needed_kept, limit_kept, needed_total FROM results "
                            "WHERE run_id = ? AND needed_total > 0", [run.run_id]).df()
    assert len(units) > 1000 and units["limit_kept"].notna().all()
    assert set(units["label"]) == set(strategies)
    assert (units["limit_kept"] >= units["needed_kept"]).all()
    assert (units["limit_kept"] <= units["needed_total"]).all()
    per_session = units.groupby(["label", "seq"])[["needed_kept", "limit_kept"]].sum()
    assert (per_session["limit_kept"] >= per_session["needed_kept"]).all()
    pooled = units.groupby("label")[["needed_kept", "limit_kept"]].sum()
    assert (pooled["limit_kept"] >= pooled["needed_kept"]).all()
    assert (units["limit_kept"] < units["needed_total"]).any()  # a tight window makes the bound bind somewhere
