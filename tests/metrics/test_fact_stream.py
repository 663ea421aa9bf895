"""`FactStream`: the wanted facts of a prefix with some messages left out, equal to walking every
message's facts (the plain computation `fact_recall` made before)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlab import caches
from ctxlab.datasets.synth import generate_history
from ctxlab.messages import Conversation
from ctxlab.metrics.fact_stream import FactStream
from ctxlab.metrics.facts import _facts_of


def _plain(facts: list[list[str]], ids: list[str], upto: int | None, whole: set[str]) -> list[str]:
    wanted: list[str] = []
    for message_id, found in zip(ids[:upto], facts[:upto], strict=True):
        if message_id not in whole:
            wanted.extend(found)
    return list(dict.fromkeys(f for f in wanted if f))


_FACTS = st.lists(st.lists(st.sampled_from(["a", "b", "c", "d", "e", "f", ""]), max_size=5), max_size=12)


@settings(max_examples=400, deadline=None)
@given(_FACTS, st.data())
def test_stream_equals_the_plain_walk(facts: list[list[str]], data: st.DataObject) -> None:
    ids = data.draw(st.lists(st.sampled_from("pqrstuvw"), min_size=len(facts), max_size=len(facts)))
    upto = data.draw(st.none() | st.integers(-3, len(facts) + 2))
    whole = data.draw(st.sets(st.sampled_from("pqrstuvwz")))
    assert FactStream(facts, ids).wanted(upto, whole) == _plain(facts, ids, upto, whole)


def test_stream_equals_the_plain_walk_on_a_generated_session() -> None:
    caches.forget()
    conv = Conversation.from_record(next(generate_history(1, 120, seed=5)))
    entry = _facts_of(conv)
    facts = [list(entry.auto_facts(m)) for m in conv.messages]
    ids = [m.id for m in conv.messages]
    stream = entry.stream()
    assert sum(map(len, facts)) > 100
    for upto in (None, 1, 17, 60, len(ids)):
        for whole in (set(), set(ids[-8:]), set(ids[::3]), {ids[0], ids[5]}, set(ids)):
            assert stream.wanted(upto, whole) == _plain(facts, ids, upto, whole)
