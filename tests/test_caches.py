"""The per-conversation caches a replay worker empties, and the rows it streams into Arrow."""

from __future__ import annotations

import functools

import pyarrow as pa

from ctxlab import caches, get_counter, load_conversations
from ctxlab.replay.plan import WorkSpec, resolve_entries
from ctxlab.replay.rows import Rows
from ctxlab.replay.worker import build_state, replay_conversation
from ctxlab.store.schema import decoded


def test_forget_empties_registered_dicts_functions_and_counters():
    table = caches.per_conversation({"a": 1})

    @caches.per_conversation
    @functools.lru_cache(maxsize=8)
    def double(x: int) -> int:
        return 2 * x

    double(3)
    counter = get_counter("o200k_base")
    counter.count("some text that is cached")
    caches.forget()
    assert table == {} and double.cache_info().currsize == 0
    assert counter.misses and not counter._cache  # a fresh look counts again
    assert counter.count("some text that is cached") == get_counter("o200k_base").count("some text that is cached")


def test_rows_sealed_in_small_batches_equal_one_batch():
    conv = next(iter(load_conversations("sample:agent_sessions", limit=1)))
    entries = resolve_entries(["sliding_window", "compaction"], ["o200k_base"])
    spec = WorkSpec("r", entries, (2000,), ("per-turn",), ("o200k_base",), (), grounded=True)
    state = build_state(spec)
    tables = []
    for batch in (3, 10_000):
        rows = Rows(batch_rows=batch)
        replay_conversation(spec, state, rows, "d", 0, conv)
        tables.append(rows.to_arrow())
    small, whole = tables
    assert small.keys() == whole.keys()
    for name in whole:
        assert small[name].num_rows > 3 or name in ("conversations", "done")
        plain = decoded(whole[name].schema)
        assert small[name].cast(plain).drop_columns(["latency_ms"] if "latency_ms" in plain.names else []).equals(
            whole[name].cast(plain).drop_columns(["latency_ms"] if "latency_ms" in plain.names else []))
        assert any(pa.types.is_dictionary(f.type) for f in whole[name].schema) or name == "done"


def test_kept_makes_once_and_empties_at_its_bound() -> None:
    made: list[str] = []
    cache: dict[str, str] = {}
    make = lambda key: made.append(key) or key.upper()  # noqa: E731
    assert [caches.kept(cache, k, 2, make) for k in ("a", "a", "b")] == ["A", "A", "B"]
    assert made == ["a", "b"]
    assert caches.kept(cache, "c", 2, make) == "C" and cache == {"c": "C"}  # full: emptied first


def test_with_counter_skips_the_cache_for_a_counter_that_cannot_be_hashed() -> None:
    @functools.lru_cache(maxsize=8)
    def double(counter: object, n: int) -> int:
        return 2 * n

    class Unhashable:
        __hash__ = None  # type: ignore[assignment]

    odd = Unhashable()
    assert caches.with_counter(double, odd, odd, 3) == 6 and double.cache_info().currsize == 0
    assert caches.with_counter(double, "o200k", "o200k", 3) == 6 and double.cache_info().currsize == 1
