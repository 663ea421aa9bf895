"""opencode's summarization prompts and summary texts, quoted byte for byte from anomalyco/opencode (MIT); each
constant names the file and commit (or release) it was copied from."""

# packages/opencode/src/session/compaction.ts @ fd78ec63492f89beb0bcff15321ebbb23f214cc2 (process: defaultPrompt and
# the auto-continue text); session/message-v2.ts (toModelMessages: a compaction part is sent as
# "What did we do so far?", a pruned output as the placeholder).
OPENCODE_PROMPT = """Provide a detailed prompt for continuing our conversation above.
Focus on information that would be helpful for continuing the conversation, including what we did, what we're doing, which files we're working on, and what we're going to do next.
The summary that you construct will be used so that another agent can read it and continue the work.

When constructing the summary, try to stick to this template:
---
## Goal

[What goal(s) is the user trying to accomplish?]

## Instructions

- [What important instructions did the user give you that are relevant]
- [If there is a plan or spec, include information about it so next agent can continue using it]

## Discoveries

[What notable things were learned during this conversation that would be useful for the next agent to know when continuing the work]

## Accomplished

[What work has been completed, what work is still in progress, and what work is left?]

## Relevant files / directories

[Construct a structured list of relevant files that have been read, edited, or created that pertain to the task at hand. If all the files in a directory are relevant, include the path to the directory.]
---"""
OPENCODE_PRELUDE = "What did we do so far?"
OPENCODE_CONTINUE = "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed."
OPENCODE_PLACEHOLDER = "[Old tool result content cleared]"
OPENCODE_SUMMARY_WRAPPER = "{summary}"  # the summary is the compaction agent's assistant message
