"""The agents' own summarization prompts and summary texts, one module per agent, quoted verbatim
from their sources.

A preset with ``summarizer=llm`` sends its agent's prompt (`ctxlab.strategies.mechanics.agent_llm`
and `agent_requests` build the requests); the offline extractive summarizer is shaped to the same
sections instead (`ctxlab.strategies.mechanics.voices`). Each constant names the file and commit
(or released version) it was copied from; the sources' licenses (MIT for pi-mono, LangChain,
OpenHands, inspect_ai and opencode, Apache-2.0 for Codex, Gemini CLI, Cline, Aider, goose and Letta)
permit quoting them with attribution. Claude Code's and the Anthropic API's texts are not openly
licensed: `anthropic`'s constants are ctxlab's own wording. Texts are kept byte for byte, including
their typos (Codex's double space) and trailing spaces, so that a replayed summary call is the
agent's own. Every constant is importable from this package.
"""

from ctxlab.summarize.agent_prompts.aider import (
    AIDER_ACK,
    AIDER_SUMMARIZE_PROMPT,
    AIDER_SUMMARY_PREFIX,
    AIDER_SUMMARY_WRAPPER,
)
from ctxlab.summarize.agent_prompts.anthropic import (
    ANTHROPIC_COMPACTION_PROMPT,
    ANTHROPIC_SUMMARY_WRAPPER,
    CLAUDE_CODE_SUMMARY_WRAPPER,
)
from ctxlab.summarize.agent_prompts.cline import (
    CLINE_CONVERSATION,
    CLINE_PREVIOUS,
    CLINE_SUMMARY_REQUEST,
    CLINE_SUMMARY_WRAPPER,
    CLINE_SYSTEM_PROMPT,
    CLINE_TRUNCATED,
)
from ctxlab.summarize.agent_prompts.codex import (
    CODEX_NO_SUMMARY,
    CODEX_PROMPT,
    CODEX_SUMMARY_PREFIX,
    CODEX_SUMMARY_WRAPPER,
)
from ctxlab.summarize.agent_prompts.gemini_cli import (
    GEMINI_ACK,
    GEMINI_ANCHOR_NEW,
    GEMINI_ANCHOR_PREVIOUS,
    GEMINI_COMPRESSION_PROMPT,
    GEMINI_MASKED,
    GEMINI_PROBE,
    GEMINI_SCRATCHPAD,
    GEMINI_SUMMARY_WRAPPER,
    GEMINI_TRUNCATED,
)
from ctxlab.summarize.agent_prompts.goose import (
    GOOSE_COMPACTION_PROMPT,
    GOOSE_CONVERSATION_CONTINUATION,
    GOOSE_REQUEST,
    GOOSE_SUMMARY_WRAPPER,
    GOOSE_TOOL_LOOP_CONTINUATION,
)
from ctxlab.summarize.agent_prompts.inspect import (
    INSPECT_SUMMARY_PROMPT,
    INSPECT_SUMMARY_WRAPPER,
)
from ctxlab.summarize.agent_prompts.langchain import (
    LANGCHAIN_NO_HISTORY,
    LANGCHAIN_SUMMARY_PROMPT,
    LANGCHAIN_SUMMARY_WRAPPER,
    LANGCHAIN_TOO_LONG,
)
from ctxlab.summarize.agent_prompts.letta import (
    LETTA_SLIDING_PROMPT,
    LETTA_SUMMARY_WRAPPER,
    LETTA_TRUNCATION_SUFFIX,
)
from ctxlab.summarize.agent_prompts.opencode import (
    OPENCODE_CONTINUE,
    OPENCODE_PLACEHOLDER,
    OPENCODE_PRELUDE,
    OPENCODE_PROMPT,
    OPENCODE_SUMMARY_WRAPPER,
)
from ctxlab.summarize.agent_prompts.openhands import (
    OPENHANDS_EVENT,
    OPENHANDS_PROMPT_HEAD,
    OPENHANDS_PROMPT_TAIL,
    OPENHANDS_SUMMARY_WRAPPER,
)
from ctxlab.summarize.agent_prompts.pi import (
    PI_NO_HISTORY,
    PI_SUMMARIZATION_PROMPT,
    PI_SUMMARY_WRAPPER,
    PI_SYSTEM_PROMPT,
    PI_TURN_CONTEXT,
    PI_TURN_PREFIX_PROMPT,
    PI_UPDATE_PROMPT,
)

__all__ = ["AIDER_ACK", "AIDER_SUMMARIZE_PROMPT", "AIDER_SUMMARY_PREFIX", "AIDER_SUMMARY_WRAPPER", "ANTHROPIC_COMPACTION_PROMPT", "ANTHROPIC_SUMMARY_WRAPPER", "CLAUDE_CODE_SUMMARY_WRAPPER", "CLINE_CONVERSATION", "CLINE_PREVIOUS", "CLINE_SUMMARY_REQUEST", "CLINE_SUMMARY_WRAPPER", "CLINE_SYSTEM_PROMPT", "CLINE_TRUNCATED", "CODEX_NO_SUMMARY", "CODEX_PROMPT", "CODEX_SUMMARY_PREFIX", "CODEX_SUMMARY_WRAPPER", "GEMINI_ACK", "GEMINI_ANCHOR_NEW", "GEMINI_ANCHOR_PREVIOUS", "GEMINI_COMPRESSION_PROMPT", "GEMINI_MASKED", "GEMINI_PROBE", "GEMINI_SCRATCHPAD", "GEMINI_SUMMARY_WRAPPER", "GEMINI_TRUNCATED", "GOOSE_COMPACTION_PROMPT", "GOOSE_CONVERSATION_CONTINUATION", "GOOSE_REQUEST", "GOOSE_SUMMARY_WRAPPER", "GOOSE_TOOL_LOOP_CONTINUATION", "INSPECT_SUMMARY_PROMPT", "INSPECT_SUMMARY_WRAPPER", "LANGCHAIN_NO_HISTORY", "LANGCHAIN_SUMMARY_PROMPT", "LANGCHAIN_SUMMARY_WRAPPER", "LANGCHAIN_TOO_LONG", "LETTA_SLIDING_PROMPT", "LETTA_SUMMARY_WRAPPER", "LETTA_TRUNCATION_SUFFIX", "OPENCODE_CONTINUE", "OPENCODE_PLACEHOLDER", "OPENCODE_PRELUDE", "OPENCODE_PROMPT", "OPENCODE_SUMMARY_WRAPPER", "OPENHANDS_EVENT", "OPENHANDS_PROMPT_HEAD", "OPENHANDS_PROMPT_TAIL", "OPENHANDS_SUMMARY_WRAPPER", "PI_NO_HISTORY", "PI_SUMMARIZATION_PROMPT", "PI_SUMMARY_WRAPPER", "PI_SYSTEM_PROMPT", "PI_TURN_CONTEXT", "PI_TURN_PREFIX_PROMPT", "PI_UPDATE_PROMPT"]
