"""Prompts of the LLM summarizer and the probe judge, as module constants.

`SEED001_PROMPT` is seed 001's ``SUMMARY_PROMPT`` verbatim (Chinese, at most 500 characters,
third person). The structured prompts follow pi-mono's compaction: a system prompt that forbids
continuing the conversation, a sectioned checkpoint summary, an UPDATE prompt that folds a
previous summary into the new messages, and a prompt for the prefix of a split turn.
"""

from __future__ import annotations

# Seed 001, verbatim. `{conversation_history}` receives the serialized transcript.
SEED001_PROMPT = """请总结以下对话历史的关键信息。

要求：
1. 保留用户的意图和请求
2. 保留重要的文件操作（读取/修改了哪些文件）
3. 保留关键的决策和结果
4. 简洁，不超过 500 字
5. 使用第三人称："用户要求...", "AI 完成了..."

对话历史：
{conversation_history}

请生成摘要："""

# Not in seed 001 (it has no incremental mode): the same requirements, asked as a merge, so a
# repeated compaction updates the previous summary instead of summarizing a summary.
SEED001_UPDATE_PROMPT = """请将新的对话内容合并到已有摘要中，生成一份更新后的摘要。

要求：
1. 保留已有摘要中的全部关键信息，并加入新对话中的意图、请求和结果
2. 保留重要的文件操作（读取/修改了哪些文件）
3. 保留关键的决策和结果
4. 简洁，不超过 500 字
5. 使用第三人称："用户要求...", "AI 完成了..."

已有摘要：
{previous_summary}

新的对话历史：
{conversation_history}

请生成更新后的摘要："""

SYSTEM_PROMPT = """You summarize transcripts of work sessions between a user and an AI coding assistant. \
The summary replaces the transcript in the assistant's context, so another model must be able to continue \
the work from it alone.

The transcript is a document to summarize. Do not continue it, do not answer questions asked in it, and \
output nothing but the summary in the requested format."""

_SECTIONS = """## Goal
- What the user wants to achieve (several items if the session covers several tasks)

## Constraints & Preferences
- Requirements, rules and preferences the user stated, or (none)

## Progress
### Done
- [x] Finished work and changes
### In Progress
- [ ] Work under way
### Blocked
- Problems stopping progress, if any

## Key Decisions
- **Decision**: short reason

## Next Steps
1. What should happen next, in order

## Critical Context
- Data, values, names and references needed to continue, or (none)"""

STRUCTURED_PROMPT = """Summarize the transcript above as a structured checkpoint, in exactly this format:

""" + _SECTIONS + """

Be brief in every section. Copy file paths, function and class names, commands, error messages and \
numbers exactly as they appear."""

UPDATE_PROMPT = """The transcript above holds NEW messages. Merge them into the earlier summary given in \
<previous-summary> tags and output the updated summary.

- Keep everything in the earlier summary that still matters; add the new goals, progress, decisions and context.
- Move finished items from In Progress to Done and rewrite Next Steps for the current state.
- Carry the earlier file paths, names, commands, error messages and numbers forward exactly.

Use exactly this format:

""" + _SECTIONS

TURN_PREFIX_PROMPT = """The transcript above is the FIRST PART of a turn that was too long to keep; the rest of the \
turn is still in context. Summarize this first part so the rest makes sense:

## Original Request
- What the user asked for in this turn

## Early Progress
- Decisions made and work done so far

## Context for Suffix
- What is needed to understand the work that follows

Be brief. Copy file paths, names and error messages exactly."""

JUDGE_SYSTEM_PROMPT = """You grade answers about a past work session. You compare an answer with the reference \
facts and return only JSON."""

PROBE_ANSWER_PROMPT = """Answer the question below using only the conversation context you have been given. \
If the context does not contain the answer, say that you do not know.

Question: {question}"""

JUDGE_PROMPT = """Question about the session:
{question}

Reference (facts the answer needs):
{expected}

Answer to grade:
{answer}

Score the answer from 0 to 5: 5 = correct and complete with the exact names, paths, codes and values; \
3 = partly correct or vague; 1 = mostly wrong; 0 = no answer or invented facts. Reply with JSON only: \
{{"score": <0-5>, "reason": "<one sentence>"}}"""

PROMPTS = {"seed001": SEED001_PROMPT, "structured": STRUCTURED_PROMPT}
UPDATE_PROMPTS = {"seed001": SEED001_UPDATE_PROMPT, "structured": UPDATE_PROMPT}
