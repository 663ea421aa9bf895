"""The user's explicit instructions: imperative sentences of user messages, found by their markers.

A sentence of a user message is an *instruction* when it holds one of the markers below and is
between `MIN_CHARS` and `MAX_CHARS` characters long (longer "sentences" are pasted logs or code):

- English, case-insensitive, whole words: must, never, always, do not, don't, dont, only, make
  sure, be sure to, remember to, ensure, avoid, please, should not, shouldn't, no need to.
- Chinese (simplified and traditional): 不要, 不用, 不需要, 不能, 不可以, 不准, 必须/必須,
  务必/務必, 一定要, 请/請 (not in 请求/請求, "request"), 禁止, 确保/確保, 记得/記得, 只能, 只用,
  只改, 仅/僅.

Sentences end at ``. ! ?`` followed by a space, at ``。！？`` and at line breaks; list markers
(``-``, ``*``, ``>``, ``1.``) are stripped. Text an agent harness writes into user messages is
skipped: fenced code blocks and the ``<system-reminder>``, ``<local-command-stdout>``,
``<local-command-stderr>``, ``<task-notification>``, ``<command-name>``, ``<command-message>`` and
``<command-args>`` blocks of Claude Code (hook output, command echoes). Whether an instruction
survives a compression is a verbatim test on its whitespace-normalized sentence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ctxlab.messages import Message
from ctxlab.metrics.facts import normalize

MIN_CHARS = 4
MAX_CHARS = 300
_EN = re.compile(r"(?<![\w'’])(?:must|never|always|do not|don't|don’t|dont|only|make sure|be sure to|remember to"
                 r"|ensure|avoid|please|should not|shouldn't|shouldn’t|no need to)(?![\w'’])", re.IGNORECASE)
_ZH = re.compile(r"不要|不用|不需要|不能|不可以|不准|必须|必須|务必|務必|一定要|请(?!求)|請(?!求)|禁止|确保|確保|记得|記得"
                 r"|只能|只用|只改|仅|僅")
_HARNESS = re.compile(r"<(system-reminder|local-command-stdout|local-command-stderr|task-notification|command-name"
                      r"|command-message|command-args)>.*?(?:</\1>|\Z)", re.DOTALL)
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|[。！？]+|\n+")
_LIST_MARKER = re.compile(r"^(?:[-*>•]+|\d+[.)])\s+")


def is_instruction(sentence: str) -> bool:
    """Whether one sentence (already split and stripped) is an instruction."""
    return (MIN_CHARS <= len(sentence) <= MAX_CHARS
            and (_EN.search(sentence) is not None or _ZH.search(sentence) is not None))


def sentences(text: str) -> list[str]:
    """The sentences of a user message's text, harness blocks and code fences left out."""
    text = _FENCE.sub("\n", _HARNESS.sub("\n", text))
    out = []
    for piece in _SENTENCE_END.split(text):
        piece = normalize(_LIST_MARKER.sub("", piece.strip()))
        if piece:
            out.append(piece)
    return out


def find_instructions(text: str) -> list[str]:
    """The instructions of one user message's text, normalized, deduplicated in order."""
    return list(dict.fromkeys(s for s in sentences(text) if is_instruction(s)))


def instructions_of(messages: Iterable[Message]) -> list[tuple[int, str]]:
    """(message index, instruction) for the user messages of a history, each instruction once (at
    its first statement)."""
    seen: dict[str, int] = {}
    for index, message in enumerate(messages):
        if message.role == "user":
            for found in find_instructions(message.text):
                seen.setdefault(found, index)
    return [(index, text) for text, index in seen.items()]


__all__ = ["MAX_CHARS", "MIN_CHARS", "find_instructions", "instructions_of", "is_instruction", "sentences"]
