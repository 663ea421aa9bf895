"""How long the offline summarizer writes: as long as an LLM answering the same prompt would.

Agents' logs record what their LLM wrote when it compacted (issue 28). Over the summarized parts
of about 110k tokens they hold, Claude Code wrote 3.6k-3.7k tokens, pi 0.8k for the history and
0.26k for the prefix of a split turn of 6.6k tokens. The input hardly sets the length; the prompt
does: Claude Code's asks for nine detailed sections and a chronological analysis (1,200 tokens of
instructions), pi's for a short checkpoint (260; 99 for a turn prefix). One law fits the four
summaries the shared logs hold within 2%:

    tokens = RATE * prompt_tokens * input_tokens / (input_tokens + HALF)

about three tokens of summary per token of instructions, less for a short input (half as much for
an input of `HALF` tokens). `prompt_tokens` counts what the request holds besides the
conversation (system prompt and instructions), `input_tokens` what is summarized (the previous
summary included), both with the counter the summary is capped with. The offline summarizer
writes `summary_length` tokens, never more than the cap the policy gives it. Fitted on the
compactions of `../shared/reallogs` (Claude Code 4d5611e5 and fa812bfe, pi session.jsonl); each
left out in turn and predicted from the other two: -2%, +3% and -22% (docs/quality.md).
"""

from __future__ import annotations

from typing import NamedTuple

from ctxlab.summarize import prompts

RATE = 3.1  # summary tokens per token of instructions (fitted: 3.08)
HALF = 1200  # input tokens at which a summary is half its full length (fitted: 1,236)


class Prompts(NamedTuple):
    """What an LLM summarizer is asked besides the conversation, per request: a first summary,
    an update of a previous one, and the prefix of a split turn."""

    history: str
    update: str
    prefix: str


# ctxlab's own LLM summarizer (`ctxlab.summarize.llm`, prompt ``structured``).
STRUCTURED = Prompts(f"{prompts.SYSTEM_PROMPT}\n{prompts.STRUCTURED_PROMPT}",
                     f"{prompts.SYSTEM_PROMPT}\n{prompts.UPDATE_PROMPT}",
                     f"{prompts.SYSTEM_PROMPT}\n{prompts.TURN_PREFIX_PROMPT}")


def summary_length(prompt_tokens: int, input_tokens: int) -> int:
    """The tokens an LLM writes answering a prompt of `prompt_tokens` about `input_tokens`
    (module docstring); 0 for an empty input."""
    if input_tokens <= 0 or prompt_tokens <= 0:
        return 0
    return round(RATE * prompt_tokens * input_tokens / (input_tokens + HALF))


__all__ = ["HALF", "RATE", "STRUCTURED", "Prompts", "summary_length"]
