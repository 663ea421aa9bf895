"""OpenHands' knobs: ``LLMSummarizingCondenser(max_size=, keep_first=, max_tokens=, minimum_progress=)``.

Source: OpenHands/software-agent-sdk ``openhands-sdk/openhands/sdk/context/condenser/
llm_summarizing_condenser.py`` @ 611629e6 (pydantic fields: ``max_size: int = Field(240, gt=0)``,
``keep_first: int = Field(2, ge=0)``, ``max_tokens: int | None = None`` (the smaller of it and the
agent LLM's input limit condenses when exceeded, ``>``), ``minimum_progress: float = Field(0.1, gt=0,
lt=1)``, and the validator ``max_size // 2 - keep_first - 1 > 0``; ``default_condenser``: 80 and 4).
The SDK serializes a condenser as JSON with its ``kind`` (as in
``tests/fixtures/conversations/v1_11_5_cli_default/base_state.json`` @ 472328d9, the agent's
``condenser`` object); the legacy OpenHands ``config.toml`` ``[condenser]`` section configures the
older V0 condenser, not this one, so it is not offered. No environment variable.
"""

from __future__ import annotations

from ctxlab.tune.convert import limit, param
from ctxlab.tune.knobs import AgentKnobs, Constraint, Form, Knob, Ref, Span, W

_CONDENSER = Ref("OpenHands/software-agent-sdk",
                 "openhands-sdk/openhands/sdk/context/condenser/llm_summarizing_condenser.py", "611629e6")
_JSON = Ref("OpenHands/software-agent-sdk", "tests/fixtures/conversations/v1_11_5_cli_default/base_state.json",
            "472328d9")


def _entry(preset: str, max_size: int, keep_first: int, about: str) -> AgentKnobs:
    return AgentKnobs(
        preset=preset, agent=f"OpenHands LLMSummarizingCondenser ({about})",
        knobs=(
            Knob("max_size", ("trigger_events",), "int", "events", allowed=Span(1, None), searched=Span(20, 400),
                 step=10, default=max_size, source=_CONDENSER, **param("trigger_events"),
                 note="condense (soft) when the view holds more events than this"),
            Knob("keep_first", ("keep_first",), "int", "events", allowed=Span(0, None), searched=Span(0, 10), step=1,
                 default=keep_first, source=_CONDENSER, **param("keep_first"),
                 note="the first events never forgotten"),
            Knob("max_tokens", ("trigger", "trigger_tokens", "trigger_share"), "int", "tokens", allowed=Span(1, None),
                 searched=Span(W(0.3), W(1.0)), step=256, default=None, source=_CONDENSER,
                 **limit(unset={"trigger": "share", "trigger_share": 1.0}, cap=True),
                 note="unset: the agent LLM's input limit; set, the smaller of the two (a hard trigger)"),
            Knob("minimum_progress", ("min_progress",), "float", "share", allowed=Span(0, 1), searched=Span(0.05, 0.5),
                 step=0.05, default=0.1, source=_CONDENSER, **param("min_progress", float),
                 note="0 < value < 1: the smallest share of events a condensation may forget (else a reset)"),
        ),
        forms=(
            Form("python", "the agent's condenser (openhands-sdk)", _CONDENSER,
                 {name: ("LLMSummarizingCondenser", name)
                  for name in ("max_size", "keep_first", "max_tokens", "minimum_progress")},
                 template="from openhands.sdk.context.condenser import LLMSummarizingCondenser\n\n"
                          "# llm: the LLM that writes the summaries\n"
                          "condenser = LLMSummarizingCondenser(llm=llm, {LLMSummarizingCondenser})"),
            Form("json", "the agent's \"condenser\" object in its saved JSON (keep its \"llm\")", _JSON,
                 {name: (name,) for name in ("max_size", "keep_first", "max_tokens", "minimum_progress")},
                 fixed={("kind",): "LLMSummarizingCondenser"}),
        ),
        constraints=(Constraint("keep_first must be less than max_size // 2 - 1",
                                lambda v: v["max_size"] // 2 - v["keep_first"] - 1 > 0),),
    )


OPENHANDS = _entry("openhands", 240, 2, "the class defaults")
OPENHANDS_AGENT = _entry("openhands_agent", 80, 4, "default_condenser, the agent presets'")

ENTRIES = (OPENHANDS, OPENHANDS_AGENT)
