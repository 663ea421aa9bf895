"""Small pure functions strategies compose (pi-mono style: pure mechanics, thin strategies).

Every function takes what it needs as explicit arguments (messages, per-message counts, a counter,
numbers) and returns indices, replacements or text; none reads a strategy's parameters.

- `context`: spans over a conversation: tool groups, turns, the system prompt, the newest user
  message, pinned messages;
- `fit`: keeping the newest whole units that fit a budget, recounting rewritten messages;
- `budget`: bringing a context down to a share of its window, cheapest losses first;
- `cuts`: the kept head, where a cut may fall (snaps), the turn a cut splits;
- `truncate`, `mask`, `prune`, `trail`: rewriting long messages and old tool outputs;
- `summary`, `notes`: the summarizer engine, summarizing a fold, the summary message, the messages
  its voice puts around it and where they go;
- `integrity`: orphaned tool calls and results, pinned messages a result lost;
- `voices`, `voice_styles`, `shaped`, `agent_llm`, `agent_requests`: each agent's summary
  conventions, the offline summary in its shape, and its LLM requests;
- the techniques behind the tails and summaries the agents use, each named for what it does and
  citing the agent it follows: `handoff` (Codex), `trim` (LangChain), `forgotten_events`
  (OpenHands), `char_share` (Gemini CLI), `safe_cut` (Cline), `half_split` (Aider), `evict`
  (Letta), `middle_out` (goose). Any policy may name their tails; only the agent's preset does by
  default.

The names of `context` (and the text clipping of ``ctxlab.tokens.clip``) are re-exported here.
"""

from ctxlab.strategies.mechanics.context import (
    Selection,
    Span,
    Usage,
    after_summaries,
    call_names,
    dropped_ids,
    newest_user,
    pinned,
    real_user,
    system_prefix,
    tool_groups,
    turns,
)
from ctxlab.tokens.clip import TRUNCATION_MARKER, clip_to_tokens, truncate_head_tail

__all__ = ["TRUNCATION_MARKER", "Selection", "Span", "Usage", "after_summaries", "call_names", "clip_to_tokens",
           "dropped_ids", "newest_user", "pinned", "real_user", "system_prefix", "tool_groups", "truncate_head_tail",
           "turns"]
