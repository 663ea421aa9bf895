"""Seed 000's SQLite history provider and StandardAssembler, and the whole Provider -> Compressor ->
Assembler flow against a direct transcription of the seed's SimpleCompressor."""

from __future__ import annotations

import sqlite3

import pytest

from ctxlab.errors import CtxlabError
from ctxlab.history import SQLiteHistoryProvider, assemble
from ctxlab.messages import Message
from ctxlab.strategies import get_strategy
from ctxlab.tokens import get_counter
from tests.builders import huge_text, prose


@pytest.fixture
def provider(tmp_path):
    with SQLiteHistoryProvider(tmp_path / "agent.db") as p:
        yield p


def test_reads_the_chat_in_chronological_order(provider) -> None:
    for i in range(5):
        provider.append(1, "user", f"q{i}")
        provider.append(2, "user", f"other chat {i}")
        provider.append(1, "assistant", f"a{i}")
    history = provider.get_history(1, limit=100)
    assert [m.text for m in history] == [t for i in range(5) for t in (f"q{i}", f"a{i}")]
    assert [m.role for m in history[:2]] == ["user", "assistant"]
    assert len({m.id for m in history}) == 10 and all(m.id.startswith("h") for m in history)


def test_limit_keeps_the_newest_rows(provider) -> None:
    for i in range(10):
        provider.append(7, "user", f"m{i}")
    assert [m.text for m in provider.get_history(7, limit=3)] == ["m7", "m8", "m9"]
    assert len(provider.get_history(7)) == 10
    assert provider.get_history(7, limit=0) == [] and provider.get_history(8, limit=5) == []


def test_order_is_by_id_not_by_insertion(tmp_path) -> None:
    con = sqlite3.connect(tmp_path / "seed.db")
    # The seed's table may carry more columns; the provider reads only the ones it needs.
    con.execute("CREATE TABLE history (id INTEGER PRIMARY KEY, chat_id INTEGER, role TEXT, text TEXT, "
                "created_at TEXT)")
    con.executemany("INSERT INTO history (id, chat_id, role, text) VALUES (?, 1, 'user', ?)",
                    [(30, "third"), (10, "first"), (20, "second")])
    provider = SQLiteHistoryProvider(con)
    assert [m.text for m in provider.get_history(1, limit=2)] == ["second", "third"]
    assert provider.append(1, "assistant", "fourth") == 31
    provider.close()  # a connection it was given stays open
    assert con.execute("SELECT count(*) FROM history").fetchone() == (4,)


def test_unknown_role_is_refused(provider) -> None:
    with pytest.raises(CtxlabError, match="unknown role"):
        provider.append(1, "robot", "beep")


def test_assembler_order() -> None:
    history = [Message(role="user", content="q", id="h1"), Message(role="assistant", content="a", id="h2")]
    messages = assemble("Be brief.", history, "And now?")
    assert [(m.role, m.text, m.id) for m in messages] == [
        ("system", "Be brief.", "system"), ("user", "q", "h1"), ("assistant", "a", "h2"), ("user", "And now?", "user")]
    assert [m.id for m in assemble("s", [], "u")] == ["system", "user"]


def seed_simple_compressor(history: list[Message], max_tokens: int, max_chars: int = 4000) -> list[str]:
    """Seed 000's SimpleCompressor, transcribed: cut each message at `max_chars` runes, then walk
    back from the newest accumulating ``(runes + 3) / 4`` and drop everything from the first
    message that does not fit. Returns the kept texts."""
    texts = [m.text[:max_chars] for m in history]
    kept: list[str] = []
    total = 0
    for text in reversed(texts):
        total += (len(text) + 3) // 4
        if total > max_tokens:
            break
        kept.append(text)
    return kept[::-1]


@pytest.mark.parametrize("history_budget", [0, 1, 50, 900, 2500, 6000, 100_000])
def test_provider_compressor_assembler_flow_matches_the_seed(provider, history_budget: int) -> None:
    for i in range(30):
        text = huge_text(9000) if i % 7 == 3 else prose(50 + 37 * i, i)
        provider.append(42, "user" if i % 2 == 0 else "assistant", text)
    history = provider.get_history(42, limit=20)
    system, user_text = "You are the Go agent.", "What changed since yesterday?"
    messages = assemble(system, history, user_text)
    counter = get_counter("chars4")
    fixed = counter.count_message(messages[0]) + counter.count_message(messages[-1])
    r = get_strategy("sliding_window").compress(messages, fixed + history_budget, counter="chars4")
    assert r.messages[0].text == system and r.messages[-1].text == user_text
    assert [m.text for m in r.messages[1:-1]] == seed_simple_compressor(history, history_budget)
    # Issue 16, item 6: the seed's context.compressed event counts the history alone, against its budget.
    kept = seed_simple_compressor(history, history_budget)
    assert r.events[0].payload == {"original_count": 20, "compressed_count": len(kept),
                                   "estimated_tokens": sum((len(t) + 3) // 4 for t in kept),
                                   "budget_tokens": history_budget}
