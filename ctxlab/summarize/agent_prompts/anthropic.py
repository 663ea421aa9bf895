"""Claude Code's and the Anthropic API's summary texts: ctxlab's own wording (Claude Code is closed
source and its prompt proprietary; the API's default prompt is documented, not published)."""

# Claude Code is closed source and its compaction prompt proprietary: its preset sends inspect_ai's
# prompt above (MIT), which asks for the same nine sections and the same <analysis> scratchpad.
# The wrapper of Claude Code's summary message, paraphrased: what it says (an earlier session ran
# out of context, the summary stands for its earlier part, carry on with the last task without
# asking the user anything), not its words (seen in Claude Code 2.1.39 logs).
CLAUDE_CODE_SUMMARY_WRAPPER = """This session continues an earlier conversation that ran out of context; the summary below stands for the earlier part of that conversation.

{summary}

Carry on from where the conversation stopped, without asking the user any further questions: keep working on the last task you were asked to do."""
# Anthropic's compaction (compact_20260112) documents a default prompt that asks for a summary
# giving continuity (state, next steps, learnings) in <summary></summary> tags; this is ctxlab's
# wording of the same request. The compaction block holds the summary alone.
ANTHROPIC_COMPACTION_PROMPT = """Write a summary of the transcript above so that the work can go on in a new context where the transcript itself will no longer be available and this summary replaces it. Record everything needed to continue: the task and its current state, what was done and learned, decisions and their reasons, exact file paths, identifiers and error messages, and the next steps. Put the summary inside a <summary></summary> block."""
ANTHROPIC_SUMMARY_WRAPPER = "{summary}"
