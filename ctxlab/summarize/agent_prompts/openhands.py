"""OpenHands' summarization prompts and summary texts, quoted byte for byte from
OpenHands/software-agent-sdk (MIT); each constant names the file and commit (or release) it was
copied from."""

# openhands-sdk/openhands/sdk/context/condenser/prompts/summarizing_prompt.j2, as stored in the fork
# pcoppinger/software-agent-sdk @ 14ff06bf3bda11cc2796d138a2218618b8bcc73a (the upstream repository's
# prompts folder is not in ctxlab's source index). The Jinja loop over events is
# OPENHANDS_EVENT per event, between the head and the tail.
OPENHANDS_PROMPT_HEAD = """You are maintaining a context-aware state summary for an interactive agent.
You will be given a list of events corresponding to actions taken by the agent, which will include previous summaries.
If the events being summarized contain ANY task-tracking, you MUST include a TASK_TRACKING section to maintain continuity.
When referencing tasks make sure to preserve exact task IDs and statuses.

Track:

USER_CONTEXT: (Preserve essential user requirements, goals, and clarifications in concise form)

TASK_TRACKING: {Active tasks, their IDs and statuses - PRESERVE TASK IDs}

COMPLETED: (Tasks completed so far, with brief results)
PENDING: (Tasks that still need to be done)
CURRENT_STATE: (Current variables, data structures, or relevant state)

For code-specific tasks, also include:
CODE_STATE: {File paths, function signatures, data structures}
TESTS: {Failing cases, error messages, outputs}
CHANGES: {Code edits, variable updates}
DEPS: {Dependencies, imports, external calls}
VERSION_CONTROL_STATUS: {Repository state, current branch, PR status, commit history}

PRIORITIZE:
1. Adapt tracking format to match the actual task type
2. Capture key user requirements and goals
3. Distinguish between completed and pending tasks
4. Keep all sections concise and relevant

SKIP: Tracking irrelevant details for the current task type

FAITHFULNESS (mandatory): Describe only actions that actually appear in the
events. Do not invent, infer, or embellish any action or result. State each
action by the tool that was actually used and its real outcome: if the agent
only searched for a symbol and the search returned nothing, say it searched and
found nothing — never say it read, inspected, or verified a file or symbol that
no event shows it reading. Never claim a file was read, a fact was confirmed, or
a state was established unless an event in this list actually shows it. When the
evidence is absent, write that it is unknown rather than filling the gap with a
plausible guess.

Example formats:

For code tasks:
USER_CONTEXT: Fix FITS card float representation issue
COMPLETED: Modified mod_float() in card.py, all tests passing
PENDING: Create PR, update documentation
CODE_STATE: mod_float() in card.py updated
TESTS: test_format() passed
CHANGES: str(val) replaces f"{val:.16G}"
DEPS: None modified
VERSION_CONTROL_STATUS: Branch: fix-float-precision, Latest commit: a1b2c3d

For other tasks:
USER_CONTEXT: Write 20 haikus based on coin flip results
COMPLETED: 15 haikus written for results [T,H,T,H,T,H,T,T,H,T,H,T,H,T,H]
PENDING: 5 more haikus needed
CURRENT_STATE: Last flip: Heads, Haiku count: 15/20
"""
OPENHANDS_EVENT = "\n<EVENT>\n{event}\n</EVENT>\n"
OPENHANDS_PROMPT_TAIL = """
Now summarize the events using the rules above.
"""
OPENHANDS_SUMMARY_WRAPPER = "{summary}"  # CondensationSummaryEvent: a user message holding the summary alone
