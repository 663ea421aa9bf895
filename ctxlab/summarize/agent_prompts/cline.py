"""Cline's summarization prompts and summary texts, quoted byte for byte from cline/cline (Apache-2.0); each
constant names the file and commit (or release) it was copied from."""

# sdk/packages/core/src/extensions/context/compaction-shared.ts @ 21cb8d2525bcedf1f4b6890b27a74a14fe7451e4
# (buildSummaryRequest, with ``{read}`` and ``{edited}`` for its file lists joined by ", " or "none";
# buildSummaryMessage) and agentic-compaction.ts (generateSummary's system prompt).
CLINE_SYSTEM_PROMPT = "Summarize the provided coding session into a concise continuation note with detailed next steps."
CLINE_SUMMARY_REQUEST = """Summarize this session for continuation. Be concise and factual.

## Goal
One sentence: what is being built or fixed.

## State
- Done: completed steps
- In Progress: current work
- Blocked: blockers or open questions

## Highlights
Key technical choices or notable findings (omit if none).

## Next
Immediate next steps.

## Files
Read: {read}
Edited: {edited}"""
CLINE_PREVIOUS = "Previous summary:\n{summary}"
CLINE_CONVERSATION = "Conversation:\n{conversation}"
CLINE_SUMMARY_WRAPPER = "Context summary:\n\n{summary}"
CLINE_TRUNCATED = "\n...[truncated {chars} chars]"  # truncateText
