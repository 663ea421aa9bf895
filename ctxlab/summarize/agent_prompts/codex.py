"""Codex's summarization prompts and summary texts, quoted byte for byte from openai/codex (Apache-2.0); each
constant names the file and commit (or release) it was copied from."""

# codex-rs/core/templates/compact/prompt.md @ 11baefb5183c7d61c631dee6c3fd6aa9cc93aa73
CODEX_PROMPT = """You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another LLM that will resume the task.

Include:
- Goal / user objective
- Current progress and key decisions made
- Important context, constraints, or user preferences
- What remains to be done (clear next steps)
- Any critical data, examples, or references needed to continue

Be concise, structured, and focused on helping the next LLM seamlessly continue the work.
"""
# codex-rs/core/templates/compact/summary_prefix.md @ 50a53333786249f03284067b997c41d84365c7cd;
# compact.rs @ 0100b103625752f6a10c21b79a8c423761dc4c6a sends format!("{SUMMARY_PREFIX}\n{summary}").
CODEX_SUMMARY_PREFIX = """Another language model started to solve this problem and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to  assist with your own analysis:"""
CODEX_SUMMARY_WRAPPER = CODEX_SUMMARY_PREFIX + "\n{summary}"
CODEX_NO_SUMMARY = "(no summary available)"
