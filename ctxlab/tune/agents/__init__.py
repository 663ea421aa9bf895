"""The knob table: one self-contained `ctxlab.tune.knobs.AgentKnobs` per agent preset, keyed by
preset name (`KNOBS`), each module citing the sources of its names and defaults.

Registered presets: pi, codex, the three LangChain policies, the two OpenHands condensers, the
three inspect_ai compactions, Gemini CLI, opencode, Cline, Aider, goose and Letta. ``pending``
entries are ready for presets the late-2026 agents issue adds (Claude Code, Anthropic's context
editing and compaction): their knobs map onto the policy model's fields, plus the parameters they
list in ``adds``.
"""

from __future__ import annotations

from ctxlab.errors import UnknownNameError
from ctxlab.tune.agents import claude, codex, inspect, langchain, openhands, others, pi
from ctxlab.tune.knobs import AgentKnobs

KNOBS: dict[str, AgentKnobs] = {entry.preset: entry for module in (pi, codex, langchain, openhands, inspect, claude,
                                                                   others) for entry in module.ENTRIES}


def knobs_for(preset: str) -> AgentKnobs:
    """The knob entry of `preset`.

    Raises:
        UnknownNameError: a preset without user-facing knobs in the table.
    """
    if preset not in KNOBS:
        raise UnknownNameError("tunable preset", preset, list(KNOBS))
    return KNOBS[preset]


__all__ = ["KNOBS", "knobs_for"]
