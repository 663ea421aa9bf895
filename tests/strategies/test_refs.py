"""`referenced_lines`: the lines of a text holding a wanted name, read from a per-text index."""

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlab.datasets.loaders import load_conversations
from ctxlab.strategies.mechanics.refs import names, referenced_lines


def _by_line(text: str, wanted: frozenset[str]) -> list[tuple[int, str]]:
    """The definition, line by line (no run crosses a line break)."""
    return [(n, line) for n, line in enumerate(text.split("\n")) if names(line) & wanted]


PIECES = st.sampled_from(["src/app.py", "app.py:", "v1.2.3", "fooBar", "x", " ", "\n", ".", ":", "run_id.",
                          "abc", "a-b-c-d", "é", "/tmp/x"])
WANTED = st.sets(st.sampled_from(["src/app.py", "app.py", "v1.2.3", "fooBar", "run_id", "a-b-c-d", "/tmp/x",
                                  "ghost_name"])).map(frozenset)


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=30).map("".join), WANTED)
def test_generated_texts(text: str, wanted: frozenset[str]) -> None:
    assert referenced_lines(text, wanted) == _by_line(text, wanted)


def test_tool_outputs_of_the_bundled_sessions() -> None:
    texts = [m.text for c in load_conversations("sample:agent_sessions") for m in c.messages if m.role == "tool"]
    assert len(texts) > 400
    for text in texts[:400]:
        wanted = frozenset(sorted(names(text))[::3])
        assert referenced_lines(text, wanted) == _by_line(text, wanted)
        assert referenced_lines(text, wanted) == _by_line(text, wanted)  # again, from the cached index
