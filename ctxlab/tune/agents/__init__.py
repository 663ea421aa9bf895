"""The knob table: one self-contained `ctxlab.tune.knobs.AgentKnobs` per agent preset, keyed by
preset name (`KNOBS`), each module citing the sources of its names and defaults.

Presets: pi, codex, the three LangChain policies, the two OpenHands condensers, the three inspect_ai
compactions, Claude Code, Anthropic's context editing and compaction, Gemini CLI, opencode, Cline,
Aider, goose and Letta; and ctxlab's own `learned`. A ``pending`` entry would wait for its preset to be registered. `UNTUNABLE`
names the agent presets with nothing a user can set, and why.
"""

from __future__ import annotations

from ctxlab.errors import CtxlabError, UnknownNameError
from ctxlab.tune.agents import claude, codex, inspect, langchain, learned, openhands, others, pi
from ctxlab.tune.knobs import AgentKnobs

KNOBS: dict[str, AgentKnobs] = {entry.preset: entry for module in (pi, codex, langchain, openhands, inspect, claude,
                                                                   others, learned) for entry in module.ENTRIES}

# Agent presets whose parameters no user can change: nothing to tune.
UNTUNABLE = {"claude_code_microcompact": "its thresholds (gapThresholdMinutes, keepRecent) are Anthropic's remote "
                                        "config, not settings a Claude Code user can change"}


def knobs_for(preset: str) -> AgentKnobs:
    """The knob entry of `preset`.

    Raises:
        CtxlabError: an agent preset with nothing its users can set (`UNTUNABLE`), saying why.
        UnknownNameError: any other preset without user-facing knobs in the table.
    """
    if preset in UNTUNABLE:
        raise CtxlabError(f"{preset} cannot be tuned: {UNTUNABLE[preset]}")
    if preset not in KNOBS:
        raise UnknownNameError("tunable preset", preset, list(KNOBS))
    return KNOBS[preset]


__all__ = ["KNOBS", "UNTUNABLE", "knobs_for"]
