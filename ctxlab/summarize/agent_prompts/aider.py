"""Aider's summarization prompts and summary texts, quoted byte for byte from Aider-AI/aider (Apache-2.0); each
constant names the file and commit (or release) it was copied from."""

# aider/prompts.py @ 5dc9490bb35f9729ef2c95d00a19ccd30c26339c (summarize, summary_prefix); aider/history.py @
# 19a786416846d3ce446973f6e9dabb859642a9d2 appends an assistant "Ok." after a history that ends with the summary.
AIDER_SUMMARIZE_PROMPT = """*Briefly* summarize this partial conversation about programming.
Include less detail about older parts and more detail about the most recent messages.
Start a new paragraph every time the topic changes!

This is only part of a longer conversation so *DO NOT* conclude the summary with language like "Finally, ...". Because the conversation continues after the summary.
The summary *MUST* include the function names, libraries, packages that are being discussed.
The summary *MUST* include the filenames that are being referenced by the assistant inside the ```...``` fenced code blocks!
The summaries *MUST NOT* include ```...``` fenced code blocks!

Phrase the summary with the USER in first person, telling the ASSISTANT about the conversation.
Write *as* the user.
The user should refer to the assistant as *you*.
Start the summary with "I asked you...".
"""
AIDER_SUMMARY_PREFIX = "I spoke to you previously about a number of things.\n"
AIDER_SUMMARY_WRAPPER = AIDER_SUMMARY_PREFIX + "{summary}"
AIDER_ACK = "Ok."
