"""Deterministic helpers shared by the synthetic conversation generators.

Everything here is a pure function of its arguments (and of the ``random.Random``
passed in; ``fill`` only memoises how templates split), so the generated datasets
are byte-identical for a given seed.
"""

from __future__ import annotations

import base64
import math
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar, cast

T = TypeVar("T")

_SLOT_RE = re.compile(r"«(\w+)»")
# A fact marker inside a template: ⟦kind:exact text⟧. The marker is removed when
# rendering and ``exact text`` is reported as a fact of that kind, which is how
# every fact is guaranteed to be a verbatim substring of the message.
_FACT_RE = re.compile(r"⟦(\w+):(.*?)⟧", re.S)
_B64_TO_ALNUM = str.maketrans("+/", "xQ")

FACT_KINDS = ("path", "error_code", "number", "decision", "identifier", "command", "url")


def record_rng(seed: int, kind: str, index: int) -> random.Random:
    """Return the private random stream of one record.

    A string seed is expanded with SHA-512 by ``random.seed`` (version 2), so the
    stream does not depend on ``PYTHONHASHSEED`` and record ``index`` can be
    produced without generating the records before it.

    Args:
        seed: Dataset seed.
        kind: Record family, e.g. ``"agent"`` or ``"chat"``.
        index: Position of the record inside its family (0-based).

    Returns:
        A freshly seeded ``random.Random``.
    """
    return random.Random(f"ctxlab-synth/{seed}/{kind}/{index}")


_SPLIT_CACHE: dict[str, list[str]] = {}


def fill(template: str, slots: Mapping[str, object]) -> str:
    """Replace every ``«name»`` in ``template`` by ``str(slots[name])``.

    Raises:
        KeyError: if the template names a slot that ``slots`` lacks, so a typo in
            the corpus fails loudly instead of leaking ``«...»`` into the data.
    """
    if "«" not in template:
        return template
    # Templates are few and reused millions of times at scale: split them once
    # into literal / slot-name runs instead of running a regex per call.
    parts = _SPLIT_CACHE.get(template)
    if parts is None:
        if len(_SPLIT_CACHE) > 20_000:  # the corpus has a few hundred; never grow without bound
            _SPLIT_CACHE.clear()
        parts = _SPLIT_CACHE[template] = _SLOT_RE.split(template)
    out = parts[:]
    for i in range(1, len(out), 2):
        out[i] = str(slots[out[i]])
    return "".join(out)


def render(template: str, slots: Mapping[str, object]) -> tuple[str, list[tuple[str, str]]]:
    """Fill slots, then strip fact markers.

    Args:
        template: Text with ``«slot»`` placeholders and ``⟦kind:text⟧`` markers.
        slots: Slot values.

    Returns:
        ``(text, facts)`` where ``facts`` lists ``(fact_text, kind)`` in order.
    """
    text = fill(template, slots)
    if "⟦" not in text:
        return text, []
    facts = [(m.group(2), m.group(1)) for m in _FACT_RE.finditer(text)]
    return _FACT_RE.sub(lambda m: m.group(2), text), facts


def strip_markers(text: str) -> str:
    """Drop the fact markers of an already filled template, keeping their text."""
    return _FACT_RE.sub(lambda m: m.group(2), text)


def pick(rng: random.Random, items: Sequence[T]) -> T:
    """Return one element of ``items`` (uniform)."""
    # random() is a single C call; randrange() costs several Python frames, and
    # the generator draws millions of values when streaming 100,000 records.
    return items[int(rng.random() * len(items))]


def rint(rng: random.Random, low: int, high: int) -> int:
    """Uniform integer in ``[low, high]`` (a faster ``rng.randint``)."""
    return low + int(rng.random() * (high - low + 1))


def pick_lang(rng: random.Random, variants: Mapping[str, Sequence[str]], lang: str) -> str:
    """Pick a template variant in ``lang``, falling back to English."""
    return pick(rng, variants.get(lang) or variants["en"])


def call_id(rng: random.Random) -> str:
    """Return an OpenAI-looking tool call id such as ``call_Xf3...`` (24 alphanumerics)."""
    # One getrandbits call encoded as base64 is far cheaper than 24 choices();
    # the two non-alphanumeric base64 symbols are mapped to letters.
    raw = base64.b64encode(rng.getrandbits(144).to_bytes(18, "big")).decode("ascii")
    return "call_" + raw.translate(_B64_TO_ALNUM)


def hexid(rng: random.Random, k: int = 7) -> str:
    """Return ``k`` random lowercase hex digits (commit shas, request ids)."""
    return f"{rng.getrandbits(4 * k):0{k}x}"


def schedule(cycle: Sequence[T], index: int, seed: int) -> T:
    """Stratified choice: any ``len(cycle)`` consecutive indices visit each slot once.

    Used for the language mix so that the bundled 120-record files have exactly
    the intended shares rather than whatever a coin flip gives.
    """
    # The stride 7 is coprime with the cycle length (20 here), so it visits every slot.
    return cycle[(index * 7 + seed) % len(cycle)]


def every_nth(index: int, seed: int, period: int) -> bool:
    """True for exactly one index in each block ``[k * period, (k + 1) * period)``.

    The chosen residue shifts from one block of ``period`` to the next, so the
    flag does not lock onto the same ``schedule`` slot (e.g. the same language).
    """
    return (index + index // period * 3 + seed) % period == 0


def bounded_lognormal(rng: random.Random, median: float, sigma: float, lo: float, hi: float) -> int:
    """Draw from a log-normal with the given median, clipped to ``[lo, hi]``."""
    value = math.exp(rng.gauss(math.log(median), sigma))
    return int(min(hi, max(lo, value)))


def message_text(message: Mapping[str, object]) -> str:
    """Return the textual content of a chat message (joins list-of-parts content)."""
    content = message.get("content")
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") for part in cast(Iterable[Mapping[str, str]], content))


def message_chars(message: Mapping[str, object]) -> int:
    """Characters of a message: its text plus the JSON arguments of its tool calls."""
    total = len(message_text(message))
    for call in cast(Iterable[Mapping[str, Any]], message.get("tool_calls") or ()):
        total += len(call["function"]["arguments"])
    return total
