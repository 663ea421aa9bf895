"""`openhands` and `openhands_agent`: OpenHands' LLMSummarizingCondenser, as policy presets, with
its four settings.

Source: OpenHands/software-agent-sdk @ 611629e6: ``openhands-sdk/openhands/sdk/context/condenser/
llm_summarizing_condenser.py`` (pydantic fields ``max_size: int = Field(240, gt=0)``,
``keep_first: int = Field(2, ge=0)``, ``max_tokens: int | None = None`` (the smaller of it and the
agent LLM's input limit), ``minimum_progress: float = Field(0.1, gt=0, lt=1)``, the validator
``max_size // 2 - keep_first - 1 > 0``, ``get_condensation_reasons``, ``condensation_requirement``,
``_get_forgotten_events``, ``hard_context_reset``, and ``default_condenser``: ``max_size=80,
keep_first=4``, the condenser of the agent presets, for `openhands_agent`), ``condenser/utils.py``
(``get_suffix_length_for_token_reduction``) and ``context/view/`` (manipulation indices, batch
atomicity, tool-call matching). The SDK serializes a condenser as JSON with its ``kind`` (as in
``tests/fixtures/conversations/v1_11_5_cli_default/base_state.json``, the agent's ``condenser``
object); the legacy OpenHands ``config.toml`` ``[condenser]`` section configures the older V0
condenser, not this one, so it is not offered. No environment variable.

- Trigger: more than ``max_size`` events (soft), or more tokens than the agent LLM's input limit
  (hard); here the limit is the window and tokens are the request's own counter's (OpenHands counts
  with litellm's tokenizer for the agent's model). An assistant message with k tool calls is k
  events.
- Forgotten range: from the first manipulation index at or after ``keep_first`` to the first at or
  after ``len(events) - events_from_tail`` (``max_size // 2 - keep_first - 1`` for too many events;
  what remains after shedding ``total - max_tokens // 2`` tokens for too many tokens). Manipulation
  indices never fall inside a tool exchange, so batches and call/result pairs stay whole.
- Summary: the forgotten events (an earlier summary among them: a rolling summary) with OpenHands'
  summarizing prompt; the summary event is a user message holding the summary alone, placed where
  the forgotten range began (``summary_offset``).
- A token-triggered condensation that finds no range (or forgets under ``minimum_progress``, 10% of
  the events) resets the context: every event forgotten, the summary alone.

Simplifications: ctxlab keeps the system prompt and the newest user message even in a reset;
thinking-block tool loops are not in ctxlab's messages; a multi-call assistant message's tokens
count on its first event; the reset's retries with a shorter summary input are not modelled. The
prompt is quoted from a fork (see ``ctxlab.summarize.agent_prompts``); ``summary_max_tokens``
(2000) caps an offline summary.
"""

from __future__ import annotations

from ctxlab.strategies.policy import Constraint, Form, Knob, Policy, Source, Span, W, preset
from ctxlab.strategies.policy.conversions import limit, param

_CONDENSER = "openhands-sdk/openhands/sdk/context/condenser/llm_summarizing_condenser.py"
_SOURCE = Source("OpenHands/software-agent-sdk", f"{_CONDENSER}; condenser/utils.py; context/view/", "611629e6")
_DEFAULTS = {"head": "none", "tail": "events", "middle": "summarize", "voice": "openhands",
             "summary_max_tokens": 2000, "placement": "cut"}
_NAMES = (("trigger_events, keep_first", "`max_size`, `keep_first`"),
          ("trigger, trigger_share", "`max_tokens` / the agent LLM's input limit"),
          ("tail, min_progress", "`_get_forgotten_events`, `minimum_progress`"),
          ("placement, voice", "`summary_offset`, `CondensationSummaryEvent`"))
_SETTINGS = ("max_size", "keep_first", "max_tokens", "minimum_progress")


def _knobs(max_size: int, keep_first: int) -> tuple[Knob, ...]:
    return (
        Knob("max_size", "int", "events", default=max_size, sets=param("trigger_events"), allowed=Span(1, None),
             searched=Span(20, 400), step=10, where=_CONDENSER,
             note="condense (soft) when the view holds more events than this"),
        Knob("keep_first", "int", "events", default=keep_first, sets=param("keep_first"), allowed=Span(0, None),
             searched=Span(0, 10), step=1, where=_CONDENSER, note="the first events never forgotten"),
        Knob("max_tokens", "int", "tokens", default=None,
             sets=limit(unset={"trigger": "share", "trigger_share": 1.0}, cap=True), allowed=Span(1, None),
             searched=Span(W(0.3), W(1.0)), step=256, where=_CONDENSER,
             note="unset: the agent LLM's input limit; set, the smaller of the two (a hard trigger)"),
        Knob("minimum_progress", "float", "share", default=0.1, sets=param("min_progress", float), allowed=Span(0, 1),
             searched=Span(0.05, 0.5), step=0.05, where=_CONDENSER,
             note="0 < value < 1: the smallest share of events a condensation may forget (else a reset)"),
    )


_FORMS = (
    Form("python", "the agent's condenser (openhands-sdk)", {name: ("LLMSummarizingCondenser", name) for name in _SETTINGS},
         _CONDENSER, template="from openhands.sdk.context.condenser import LLMSummarizingCondenser\n\n"
                              "# llm: the LLM that writes the summaries\n"
                              "condenser = LLMSummarizingCondenser(llm=llm, {LLMSummarizingCondenser})"),
    Form("json", "the agent's \"condenser\" object in its saved JSON (keep its \"llm\")",
         {name: (name,) for name in _SETTINGS}, "tests/fixtures/conversations/v1_11_5_cli_default/base_state.json",
         fixed={("kind",): "LLMSummarizingCondenser"}),
)
_CONSTRAINTS = (Constraint("keep_first must be less than max_size // 2 - 1",
                           lambda v: v["max_size"] // 2 - v["keep_first"] - 1 > 0),)

OPENHANDS = preset("openhands", Policy, _DEFAULTS, _SOURCE,
                   "OpenHands LLMSummarizingCondenser: over 240 events or the window, forget a range after the "
                   "first 2 events (snapped to manipulation indices) into a rolling summary",
                   agent="OpenHands LLMSummarizingCondenser (the class defaults)", knobs=_knobs(240, 2), forms=_FORMS,
                   constraints=_CONSTRAINTS, source_names=_NAMES)

OPENHANDS_AGENT = preset("openhands_agent", Policy, _DEFAULTS,
                         _SOURCE._replace(note="default_condenser: max_size=80, keep_first=4"),
                         "OpenHands' agent presets: the same condenser with max_size 80 and keep_first 4",
                         agent="OpenHands LLMSummarizingCondenser (default_condenser, the agent presets')",
                         knobs=_knobs(80, 4), forms=_FORMS, constraints=_CONSTRAINTS, source_names=_NAMES)
