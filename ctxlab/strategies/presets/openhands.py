"""`openhands` and `openhands_agent`: OpenHands' LLMSummarizingCondenser, as policy presets.

Source: OpenHands/software-agent-sdk ``openhands-sdk/openhands/sdk/context/condenser/
llm_summarizing_condenser.py`` @ 118402ab (``max_size=240``, ``keep_first=2``,
``get_condensation_reasons``, ``_get_forgotten_events``), ``condenser/utils.py`` @ 1c2e6b51
(``get_suffix_length_for_token_reduction``), ``context/view/`` (``manipulation_indices.py`` @ 6fd96618,
``view.py`` @ 0263df02, ``properties/batch_atomicity.py`` and ``tool_call_matching.py``), and
``openhands-tools/openhands/tools/preset/default.py`` @ 0fd0ea6f for `openhands_agent`
(``LLMSummarizingCondenser(llm=llm, max_size=80, keep_first=4)``, the agent presets' condenser).

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

Simplifications: the token trigger is hard as in the condenser's later revision (the stored
upstream commit treats it as soft and has no ``minimum_progress``); ctxlab keeps the system prompt
and the newest user message even in a reset; thinking-block tool loops are not in ctxlab's messages;
a multi-call assistant message's tokens count on its first event. The prompt is quoted from a fork
(see ``ctxlab.summarize.agent_prompts``); ``summary_max_tokens`` (2000) caps an offline summary.
"""

from __future__ import annotations

from ctxlab.strategies.policy import Policy, Source, preset

_SOURCE = Source("OpenHands/software-agent-sdk", "openhands-sdk/openhands/sdk/context/condenser/"
                 "llm_summarizing_condenser.py; condenser/utils.py; context/view/",
                 "118402ab (condenser), 1c2e6b51 (utils.py), 6fd96618 (manipulation_indices.py)",
                 "tokens as the hard trigger, as in the condenser's later revision")
_DEFAULTS = {"trigger": "share", "trigger_share": 1.0, "trigger_events": 240, "head": "none", "keep_first": 2,
             "tail": "events", "min_progress": 0.1, "middle": "summarize", "voice": "openhands",
             "summary_max_tokens": 2000, "placement": "cut"}
_NAMES = (("trigger_events, keep_first", "`max_size`, `keep_first`"),
          ("trigger, trigger_share", "`max_tokens` / the agent LLM's input limit"),
          ("tail, min_progress", "`_get_forgotten_events`, `minimum_progress`"),
          ("placement, voice", "`summary_offset`, `CondensationSummaryEvent`"))

OPENHANDS = preset("openhands", Policy, _DEFAULTS, _SOURCE,
                   "OpenHands LLMSummarizingCondenser: over 240 events or the window, forget a range after the "
                   "first 2 events (snapped to manipulation indices) into a rolling summary", source_names=_NAMES)

OPENHANDS_AGENT = preset("openhands_agent", Policy, {**_DEFAULTS, "trigger_events": 80, "keep_first": 4},
                         Source("OpenHands/software-agent-sdk", "openhands-tools/openhands/tools/preset/default.py",
                                "0fd0ea6f", "get_default_condenser: max_size=80, keep_first=4"),
                         "OpenHands' agent presets: the same condenser with max_size 80 and keep_first 4",
                         source_names=_NAMES)
