"""goose's summarization prompts and summary texts, quoted byte for byte from block/goose (Apache-2.0); each
constant names the file and commit (or release) it was copied from."""

# crates/goose/src/prompts/compaction.md as stored @ 11453df8179021e38633c5ef30ec542f410170d7 (the index has no
# copy at 331a8429; its Jinja ``{{ messages }}`` is ``{messages}`` here); crates/goose/src/context_mgmt/mod.rs @
# 331a842972378d642bb39bd800a8514b25ae3a70 (do_compact's user message, the continuation texts).
GOOSE_COMPACTION_PROMPT = """The messages above are a conversation to summarize. Create a structured context checkpoint summary that another LLM will use to continue the work.

**Conversation History:**
{messages}

Use this EXACT format:

## Goal
[What is the user trying to accomplish? Can be multiple items if the session covers different tasks.]

## Constraints & Preferences
- [Any constraints, preferences, or requirements mentioned by user]
- [Or "(none)" if none were mentioned]

## Progress
### Done
- [x] [Completed tasks/changes with file paths]

### In Progress
- [ ] [Current work]

### Blocked
- [Issues preventing progress, if any]

## Key Decisions
- **[Decision]**: [Brief rationale]

## Next Steps
1. [Ordered list of what should happen next]

## Critical Context
- [Any data, examples, error messages, or references needed to continue]
- [Or "(none)" if not applicable]

RULES:
- Keep each section concise but complete
- Preserve exact file paths, function names, and error messages
- Include code snippets only if they are critical for continuation
- This summary will be read by you (the LLM) to continue the session
- Do not include information that can be easily re-derived from files
"""
GOOSE_REQUEST = "Please summarize the conversation history provided in the system prompt."
GOOSE_CONVERSATION_CONTINUATION = "Your context was compacted. The previous message contains a summary of the conversation so far.\nDo not mention that you read a summary or that conversation summarization occurred.\nJust continue the conversation naturally based on the summarized context."
GOOSE_TOOL_LOOP_CONTINUATION = "Your context was compacted. The previous message contains a summary of the conversation so far.\nDo not mention that you read a summary or that conversation summarization occurred.\nContinue calling tools as necessary to complete the task."
GOOSE_SUMMARY_WRAPPER = "{summary}"  # the summarizer's reply, its role set to user
