"""The leading lookaheads of the fact and detail patterns, and the one-pass take-out, change no match."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlab.datasets.loaders import load_conversations
from ctxlab.metrics import facts
from ctxlab.summarize import heuristics

_LOOKAHEAD = re.compile(r"^\(\?=\[[^\]]+\]\)")
PATTERNS = [*(getattr(facts, name) for name in ("_PATH", "_ERROR", "_IDENT", "_NUMBER")),
            heuristics._DETAILS, heuristics._DETAILS_WITHOUT_SLASH]
# Pieces the patterns care about: word and path characters, dots, digits (one not ASCII), units,
# error and identifier shapes, CJK counters, line breaks.
PIECES = st.sampled_from(["a", "Z", "v", "_", "-", ".", "/", "@", "1", "9", "٣", ",", " ", "\n", "(", ")",
                          "py", "ms", "GiB", "Error", "ENOENT", "HTTP 404", "exit code 2", "fooBar",
                          "https://x.io/a", "行", "E123", "`x`", "$ ls", "ERR_X", "run()", "ぁ", "\t"])
TEXTS = st.lists(PIECES, max_size=40).map("".join)


def _bare(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """`pattern` without its leading lookahead (the form the patterns had before it)."""
    assert _LOOKAHEAD.match(pattern.pattern), pattern.pattern
    return re.compile(_LOOKAHEAD.sub("", pattern.pattern, count=1))


@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_lookaheads_change_no_match(text: str) -> None:
    for pattern in PATTERNS:
        assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in _bare(pattern).finditer(text)]


@settings(max_examples=200, deadline=None)
@given(TEXTS)
def test_taking_out_is_substituting(text: str) -> None:
    for pattern in (facts._URL, facts._PATH):
        found: list[str] = []
        assert facts._taken_out(pattern, text, found) == pattern.sub(" ", text)
        assert found == [facts._clean(m.group()) for m in pattern.finditer(text)]


def test_real_agent_texts_match_alike() -> None:
    texts = {m.text for c in load_conversations("sample:agent_sessions") for m in c.messages}
    assert len(texts) > 1000
    for text in texts:
        for pattern in PATTERNS:
            assert pattern.findall(text) == _bare(pattern).findall(text)


def test_extract_facts_hands_out_fresh_lists() -> None:
    text = "see src/app.py and `make test`"
    first = facts.extract_facts(text)
    first.append("changed")
    assert facts.extract_facts(text) == ["make test", "src/app.py"]
