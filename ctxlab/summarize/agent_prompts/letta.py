"""Letta's summarization prompts and summary texts, quoted byte for byte from letta-ai/letta (Apache-2.0); each
constant names the file and commit (or release) it was copied from."""

# letta/prompts/summarizer_prompt.py @ 56ba9c25552605eec89de8ed3dc6394b625c1993 (SLIDING_PROMPT, word limit 300),
# letta/system.py (package_summarize_message_no_counts: the sliding-window note naming the evicted messages),
# letta/services/summarizer/constants.py (SUMMARY_TRUNCATION_SUFFIX).
LETTA_SLIDING_PROMPT = """The following messages are being evicted from the BEGINNING of your context window. Write a detailed summary that captures what happened in these messages to appear BEFORE the remaining recent messages in context, providing background for what comes after. Include the following sections:

1.**High level goals**: What is the high level goal and ongoing task? Capture the user's explicit requests and intent in detail. If there is an existing summary in the transcript, make sure to take it into consideration to continue tracking the higher level goals and long-term progress.

2. **What happened**: The conversations, tasks, and exchanges that took place. What did the user ask for? What did you do? How did things progress? If there is a previous summary being evicted, please extract a concise version of the critical info from it.

3. **Important details**: Enumerate specific files and code sections examined, modified, or created, as well as important plan files, GitHub issues/PR links, and Linear ticket IDs. For each item, include why it matters and any relevant names, data, configs, or facts discussed.
   - **Preserve identifiers verbatim** (plan filename/path, exact URL, issue/PR number, ticket ID); do not paraphrase or truncate.
   - **Preserve referenced identifiers unless explicitly resolved**: Keep exact URLs/IDs from the conversation unless there is clear evidence they are no longer relevant.
   - Do not omit details likely to be referenced later.

4. **Errors and fixes**: List all errors that you ran into, and how you fixed them. Pay special attention to specific user feedback that you received and record verbatim if useful.

5. **Lookup hints**: For any detailed content (long lists, extensive data, specific conversations) that couldn't fit in the summary, note the topic and key terms that could be used to find it in message history later.

Write in first person as a factual record of what occurred. Be thorough and detailed - the goal is to preserve enough context that the recent messages make sense and important information isn't lost to prevent duplicate work or repeated mistakes.

Keep your summary under 300 words. Only output the summary."""
LETTA_SUMMARY_WRAPPER = "Note: {evicted} messages from the beginning of the conversation have been hidden from view due to memory constraints.\nThe following is a summary of the previous messages:\n {summary}"
LETTA_TRUNCATION_SUFFIX = "... [summary truncated to fit]"
