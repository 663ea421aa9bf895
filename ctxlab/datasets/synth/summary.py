"""Ground-truth facts and the reference summary of an agent session."""

from __future__ import annotations

import random

from .session import Note

MIN_FACTS, MAX_FACTS = 8, 25
# Share of non-decision facts drawn from the first half of the conversation: the
# part a compaction strategy drops first, hence the part worth testing.
FIRST_HALF_SHARE = 0.6
MAX_PROGRESS_LINES = 14
_HEADINGS = (("constraints", "Constraints"), ("progress", "Progress"), ("decisions", "Key Decisions"),
             ("next", "Next Steps"))


def select_facts(rng: random.Random, candidates: list[tuple[str, str, int]], n_messages: int) -> list[dict]:
    """Choose 8-25 facts, keeping every decision and favouring the first half.

    Args:
        rng: The session's random stream.
        candidates: ``(fact, kind, message_index)`` in emission order; the first
            occurrence of a repeated fact wins.
        n_messages: Length of the conversation.

    Returns:
        ``facts_detail`` entries sorted by message index.

    Raises:
        ValueError: if the session produced fewer than 8 distinct facts.
    """
    unique: dict[str, tuple[str, str, int]] = {}
    for cand in candidates:
        unique.setdefault(cand[0], cand)
    pool = list(unique.values())
    if len(pool) < MIN_FACTS:
        raise ValueError(f"only {len(pool)} distinct facts, need {MIN_FACTS}")
    want = min(len(pool), MAX_FACTS, MIN_FACTS + n_messages // 8 + rng.randint(0, 4))
    decisions = [c for c in pool if c[1] == "decision"][:5]
    rest = [c for c in pool if c not in decisions]
    first = [c for c in rest if c[2] < n_messages / 2]
    second = [c for c in rest if c[2] >= n_messages / 2]
    free = want - len(decisions)
    k_first = min(len(first), round(free * FIRST_HALF_SHARE))
    k_second = min(len(second), free - k_first)
    k_first = min(len(first), free - k_second)  # top up from the first half if the second is short
    chosen = decisions + rng.sample(first, k_first) + rng.sample(second, k_second)
    chosen.sort(key=lambda c: (c[2], candidates.index(c)))
    return [{"fact": f, "kind": k, "message_index": i} for f, k, i in chosen]


def _line(note: Note, selected: set[str]) -> str:
    # Quote the selected facts the English line does not already contain
    # (typically the Chinese or Japanese wording of a constraint).
    missing = [f for f in note.facts if f in selected and f not in note.text]
    return note.text + (f" [{'; '.join(missing)}]" if missing else "")


def reference_summary(notes: list[Note], facts: list[dict]) -> str:
    """Render the structured summary (Goal / Constraints / Progress / Key Decisions / Next Steps).

    Every selected fact appears verbatim in the result.
    """
    selected = {d["fact"] for d in facts}
    goals = [_line(n, selected) for n in notes if n.section == "goal"]
    out = [f"Goal: {goals[0]}"] if len(goals) == 1 else ["Goal:"] + [f"- {g}" for g in goals]
    for section, heading in _HEADINGS:
        items = [n for n in notes if n.section == section]
        if section == "progress" and len(items) > MAX_PROGRESS_LINES:
            # Long sessions: keep the lines that carry facts, then the most recent ones.
            keep = {id(n) for n in items if selected.intersection(n.facts)}
            for n in reversed(items):
                if len(keep) >= MAX_PROGRESS_LINES:
                    break
                keep.add(id(n))
            items = [n for n in items if id(n) in keep]
        lines = list(dict.fromkeys(_line(n, selected) for n in items))  # de-duplicate, keep order
        if lines:
            out.append(f"{heading}:")
            out.extend(f"- {line}" for line in lines)
    return "\n".join(out)
