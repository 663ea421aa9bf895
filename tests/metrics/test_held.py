"""The fast searches of the grounded measures give exactly what the plain searches give: which
needed strings a text holds (`StringFinder`), and whether it holds one of a string's contexts
(`Holdings.framed_in`)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlab.metrics.facts import normalize
from ctxlab.metrics.held import StringFinder
from ctxlab.metrics.needed import Holdings

# Run characters, a space, a newline and a few others, so strings sit inside and across runs.
ALPHABET = "ab/._-:1 \n,x"
runs = st.text(alphabet="ab/._-:1", min_size=5, max_size=9)
texts = st.text(alphabet=ALPHABET, max_size=300)


@settings(max_examples=300, deadline=None)
@given(strings=st.lists(runs, max_size=12), text=texts, odd=st.lists(st.text(alphabet=ALPHABET, max_size=6),
                                                                    max_size=3))
def test_the_finder_finds_what_a_plain_search_finds(strings, text, odd):
    finder = StringFinder([*strings, *odd])  # short or spaced strings take the plain path
    assert finder.held_in(text) == frozenset(s for s in [*strings, *odd] if s in text)
    assert finder.held_in(text) == finder.held_in(text)  # the second answer comes from its kept runs


long_texts = st.lists(st.text(alphabet=ALPHABET.replace("\n", ""), min_size=20, max_size=90), min_size=30,
                     max_size=90).map("\n".join)


@settings(max_examples=100, deadline=None)
@given(strings=st.lists(runs, max_size=12), odd=st.lists(st.text(alphabet=ALPHABET, max_size=6), max_size=3),
       text=long_texts, more=long_texts)
def test_long_texts_are_searched_by_their_line_chunks_alike(strings, odd, text, more):
    finder = StringFinder([*strings, *odd])
    for searched in (text, more + "\n" + text, text + more):  # the second ones reuse chunks of the first
        assert finder.held_in(searched) == frozenset(s for s in [*strings, *odd] if s in searched)
        folded = normalize(searched)  # as the grader reads a message; the unfolded text gives the chunks
        assert finder.held_in(folded, searched) == frozenset(s for s in [*strings, *odd] if s in folded)


def test_a_string_inside_a_longer_run_is_found_and_one_split_by_a_space_is_not():
    finder = StringFinder(["foo.py", "src/foo.py", "a/b/c"])
    assert finder.held_in("edit src/foo.py now") == {"foo.py", "src/foo.py"}
    assert finder.held_in("a/b /c and foo py") == frozenset()


@settings(max_examples=300, deadline=None)
@given(s=runs, contexts=st.lists(st.tuples(st.text(alphabet=ALPHABET.replace("\n", ""), max_size=8),
                                           st.text(alphabet=ALPHABET.replace("\n", ""), max_size=8)), max_size=6),
       loose=st.lists(st.text(alphabet="xyz ", min_size=1, max_size=5), max_size=2), text=texts)
def test_framed_in_is_a_plain_search_for_every_context(s, contexts, loose, text):
    hold = Holdings(contexts={**{f"{left}{s}{right}": 0 for left, right in contexts}, **dict.fromkeys(loose, 0)})
    text = text + s if contexts and len(text) % 2 else text  # often hold the string itself too
    assert hold.framed_in(s, text) == any(c in text for c in hold.contexts)


def test_framed_in_finds_a_context_at_any_occurrence():
    hold = Holdings(contexts={"read src/app.py first": 3})
    assert hold.framed_in("src/app.py", "src/app.py, then: read src/app.py first")
    assert not hold.framed_in("src/app.py", "src/app.py, then: read src/app.py later")
