"""The knob table: one self-contained `ctxlab.tune.knobs.AgentKnobs` per agent preset, keyed by
preset name (`KNOBS`), each module citing the sources of its names and defaults.

Presets: pi, codex, the three LangChain policies, the two OpenHands condensers, the three inspect_ai
compactions, Claude Code, Anthropic's context editing and compaction, Gemini CLI, opencode, Cline,
Aider, goose and Letta. A ``pending`` entry would wait for its preset to be registered. `UNTUNABLE`
names the agent presets with nothing a user can set, and why.
"""

from __future__ import annotations

from ctxlab.errors import CtxlabError
from ctxlab.registry import Registry
from ctxlab.tune.agents import claude, codex, inspect, langchain, openhands, others, pi
from ctxlab.tune.knobs import AgentKnobs

KNOBS: Registry[AgentKnobs] = Registry("tunable preset")
for _module in (pi, codex, langchain, openhands, inspect, claude, others):
    for _entry in _module.ENTRIES:
        KNOBS.register(_entry.preset, _entry)

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
    return KNOBS.get(preset)


def tunable() -> list[str]:
    """The presets with knobs a user can set (registered ones: a pending entry waits), sorted."""
    return [name for name in KNOBS.names() if not KNOBS.get(name).pending]


__all__ = ["KNOBS", "UNTUNABLE", "knobs_for", "tunable"]
