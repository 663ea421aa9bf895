"""What Aider's own lines say: its Tokens and Cost lines, its questions, the messages it sends itself,
and the reasoning it strips from a reply before resending it.

Sources (Aider-AI/aider @ 5dc9490b): ``aider/coders/base_coder.py`` (``calculate_and_show_tokens_and_cost``,
``check_for_file_mentions``, ``apply_updates``, ``lint_edited``), ``aider/utils.py`` (``format_tokens``),
``aider/io.py`` (``confirm_ask``), ``aider/prompts.py`` (``added_files``), ``aider/linter.py`` and
``aider/reasoning_tags.py`` (``REASONING_TAG``, ``remove_reasoning_content``).
"""

from __future__ import annotations

import re

ADDED_FILES = "I added these files to the chat: {}\nLet me know if there are others we should add."  # prompts.py
REASONING_TAGS = ("thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b", "think")  # reasoning_tags.py; models' tag
NUMBER = r"[\d.,]+k?"
TOKENS = re.compile(rf"^Tokens: (?P<sent>{NUMBER}) sent(?:, (?P<write>{NUMBER}) cache write)?"
                     rf"(?:, (?P<hit>{NUMBER}) cache hit)?, (?P<received>{NUMBER}) received\.")
COST = re.compile(r"Cost: \$(?P<message>[\d.]+) (?:message|request), \$(?P<session>[\d.]+) session")
CONFIRM = re.compile(r"^(?P<question>.*\?) \(Y\)es/\(N\)o.*\]: ?(?P<answer>\S*)$")
ANSWER = re.compile(r"^(?P<question>.*\?)(?: \(Y\)es/\(N\)o.*\]:)? ?(?P<answer>[a-z']*)$", re.IGNORECASE)  # also <0.4x
ADD_FILES = ("Add file to the chat?", "Add these files to the chat?")  # one file a question; older Aider: all
MODEL = re.compile(r"^(?:Main model|Model): (?P<model>\S+)")
VERSION = re.compile(r"^Aider v(?P<version>\S+)")
EDIT_ERROR = "The LLM did not conform to the edit format."  # base_coder.py apply_updates
LINT_START = "# Fix any errors below"  # linter.py Linter.lint


def count(value: str | None) -> int:
    """A count as ``format_tokens`` printed it (``3.2k`` -> 3200; older Aider wrote ``3,215``)."""
    if not value:
        return 0
    if value.endswith("k"):
        return round(float(value[:-1].replace(",", "")) * 1000)
    return int(float(value.replace(",", "")))


def reasoning(text: str) -> tuple[str | None, list[str]]:
    """The reply as Aider resent it and its reasoning (``remove_reasoning_content``: closed blocks
    go, and everything before a closing tag whose opening is missing; an unclosed block stays)."""
    thinking = []
    for tag in REASONING_TAGS:
        pattern = re.compile(f"<{tag}>(.*?)</{tag}>", re.DOTALL)
        thinking += [t.strip() for t in pattern.findall(text)]
        text = pattern.sub("", text).strip()
        if f"</{tag}>" in text:
            before, text = text.split(f"</{tag}>", 1)
            thinking.append(before.strip())
            text = text.strip()
    return text or None, [t for t in thinking if t]
