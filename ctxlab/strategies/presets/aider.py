"""`aider`: Aider's chat-history summarization, as a policy preset.

Source: Aider-AI/aider @ 5dc9490b: ``aider/history.py`` (``ChatSummary``),
``aider/models.py`` (``max_chat_history_tokens = min(max(max_input_tokens / 16, 1024),
8192)``), ``aider/coders/base_coder.py`` (``summarize_start``/``summarize_end``,
``format_chat_chunks``) and ``aider/prompts.py`` (``summarize``, ``summary_prefix``).

- Budget: ``--max-chat-history-tokens``, by default 1/16 of the model's input limit, at least
  1,024 and at most 8,192 (the window plays the input limit); an int (``aider/args.py``), also
  ``AIDER_MAX_CHAT_HISTORY_TOKENS`` and a key of ``.aider.conf.yml``
  (``aider/website/assets/sample.aider.conf.yml``), as every option is.
- What counts: the completed exchanges only (``done_messages``: between the system prompt and the
  newest user message); the current exchange, the system prompt (and Aider's repo map and files)
  are outside the budget and never summarized. Over the budget (``>``), they are summarized:
- ``summarize_real``: at most 4 messages, or deeper than 3 recursions: all summarized; else the tail
  is the newest messages under half the budget, the split moved back until the head ends with an
  assistant message (a split at 4 or before: all summarized); the head is summarized; while summary
  and tail still reach the budget, the same again on them, one level deeper.
- The summary is a user message "I spoke to you previously about a number of things." then the
  summary, first in the history; when nothing of the history follows it, an assistant "Ok."

Simplifications: Aider counts each message as its JSON with the model's tokenizer (here the
request's counter on the message); it summarizes in a background thread and applies the result
when the next prompt is built (the same call here: the history is counted when a new user message
arrives); the summary plus tail at exactly the budget stops the recursion here (Aider recurses);
the head is read whole unless ``summary_input_tokens`` is set (Aider reads it up to its weak
model's input limit less 512 tokens, 4,096 - 512 when unknown, and loses the rest); a tool
exchange belongs with the assistant message that made the calls (Aider has none); Aider sets no
summary cap, its prompt asks for a brief one: the offline summary takes at most
``summary_max_tokens`` (512, ctxlab's); ``summarizer=llm`` sends Aider's prompt with ctxlab's
transcript (Aider writes ``# USER``/``# ASSISTANT`` blocks).
"""

from __future__ import annotations

from ctxlab.strategies.policy import Form, Knob, Policy, Source, Span, W, preset
from ctxlab.strategies.policy.conversions import limit

_NAME = "max-chat-history-tokens"


def _default(window: int) -> dict[str, object]:
    """Unset: ``min(max(max_input_tokens / 16, 1024), 8192)`` (the window plays the input limit)."""
    return {"trigger": "share", "trigger_share": 1 / 16, "trigger_min_tokens": 1024, "trigger_max_tokens": 8192}


AIDER = preset("aider", Policy, {
    "trigger_scope": "history", "head": "system", "tail": "history_half", "middle": "summarize", "voice": "aider",
    "summary_max_tokens": 512, "placement": "after_head", "passes": 5,
}, Source("Aider-AI/aider", "aider/history.py; aider/models.py; aider/coders/base_coder.py; aider/prompts.py",
          "5dc9490b"),
    "Aider: when the completed exchanges pass min(max(window/16, 1024), 8192) tokens, keep a tail under half "
    "of it and summarize the rest, recursively (depth 3 at most)", agent="Aider", knobs=(
        Knob(_NAME, "int", "tokens", default=None, sets=limit(unset=_default), allowed=Span(None, None),
             searched=Span(1024, W(0.5)), step=256, where="aider/args.py, aider/models.py",
             note="unset: min(max(max input tokens / 16, 1024), 8192); a soft limit on the chat history, "
                  "after which it is summarized"),
    ), forms=(
        Form("yaml", ".aider.conf.yml (home, repository root or current directory)", {_NAME: (_NAME,)},
             "aider/website/assets/sample.aider.conf.yml"),
        Form("cli", "on the command line", {_NAME: ("--" + _NAME,)}, "aider/args.py", template="aider"),
        Form("env", "the environment (or .env)", {_NAME: ("AIDER_MAX_CHAT_HISTORY_TOKENS",)}, "aider/args.py",
             text_values=True),
    ), source_names=(
        ("trigger, trigger_share, trigger_min_tokens, trigger_max_tokens",
         "`max_chat_history_tokens` (`--max-chat-history-tokens`)"),
        ("trigger_scope", "`done_messages`, `too_big`"),
        ("tail", "`summarize_real`: `half_max_tokens`, `min_split`, `depth > 3`"),
        ("passes", "the recursion (depth 0-3, then everything)"),
        ("summary_input_tokens", "the weak model's `max_input_tokens` - 512"),
        ("voice", "`prompts.summarize`, `summary_prefix`, `Ok.`")))
