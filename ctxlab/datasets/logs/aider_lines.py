"""The lines of an Aider chat history (``.aider.chat.history.md``) as blocks: user input, Aider's
own output, and the model's replies.

Source: Aider-AI/aider @ 5dc9490b (May 2026), ``aider/io.py``: ``InputOutput.__init__`` writes
``# aider chat started at <time>``; ``user_input`` writes each input line as ``#### <line>``
ending in two spaces, after a blank line (``<blank>`` for an empty input); ``ai_output`` writes the
reply as it streamed (``\\n<reply>\\n\\n``); ``append_chat_history(blockquote=True)`` writes Aider's
messages, questions and answers as ``> <line>`` ending in two spaces. Histories from May 2023
(``# Aider chat started at``, capital A) wrote those as ``_..._`` or ``*...*`` lines. Replies are plain markdown: a ``#### `` or ``> `` line inside a
reply is told apart by its missing two trailing spaces (when the file still has them) and by code
fences.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

SESSION = re.compile(r"^# aider chat started at (.*?)\s*$", re.IGNORECASE)
_QUOTE = re.compile(r"^>( |$)")
_OLD_NOTE = re.compile(r"^(_[^_].*_|\*[^*].*\*)$")  # italics, not bold
_OLD_HEADER = "# Aider chat started at"  # May 2023, when Aider's notes were italic lines


class Block(NamedTuple):
    """Consecutive lines of one kind: ``user``, ``aider`` (one line each) or ``reply``."""

    kind: str
    text: str
    line: int


class Session(NamedTuple):
    """One ``# aider chat started at`` session: when, where it starts, and its blocks."""

    started: str
    line: int
    blocks: list[Block]


class Style(NamedTuple):
    """How a file marks its lines: `hard_breaks`, it kept Aider's two trailing spaces (an editor
    that strips them leaves only the line starts to go by); `old_notes`, Aider's notes are italic
    lines (the May 2023 format)."""

    hard_breaks: bool = True
    old_notes: bool = False


def sessions(lines: Iterable[tuple[int, str]]) -> Iterator[Session]:
    """Split numbered lines (without line ends) into sessions; lines before the first header form
    a session named ``(before the first header)``."""
    items = list(lines)
    hard_breaks = any(text.endswith("  ") for _, text in items if text.startswith(("#### ", ">")))
    current: Session | None = None
    style = Style(hard_breaks)
    body: list[tuple[int, str]] = []
    for number, text in items:
        found = SESSION.match(text)
        if found:
            if current is not None or any(t.strip() for _, t in body):
                yield _session(current, body, style)
            current, body = Session(found.group(1), number, []), []
            style = Style(hard_breaks, text.startswith(_OLD_HEADER))
        else:
            body.append((number, text))
    if current is not None or any(t.strip() for _, t in body):
        yield _session(current, body, style)


def _session(head: Session | None, body: list[tuple[int, str]], style: Style) -> Session:
    head = head or Session("(before the first header)", body[0][0] if body else 1, [])
    return Session(head.started, head.line, list(blocks(body, style)))


PLAIN = Style()


def blocks(lines: list[tuple[int, str]], style: Style = PLAIN) -> Iterator[Block]:
    """The blocks of a session's lines.

    ``tool_output`` writes a message of several lines with ``> `` before the first only and two
    spaces after the last: such lines are one Aider block. A reply or an input always follows a
    blank line, so unmarked lines right after an Aider line continue it.
    """
    other: list[tuple[int, str]] = []  # unmarked lines since the last marked one
    user: list[tuple[int, str]] = []
    last: Block | None = None  # the last Aider line, until what follows it is known
    continued, fenced = False, False
    for number, text in lines:
        kind = None if fenced else _kind(text, style)
        if kind is None:
            yield from _user(user)
            continued = continued or (last is not None and last.line == number - 1 and bool(text.strip())
                                      and not _QUOTE.match(text))
            other.append((number, text))
            fenced ^= text.lstrip().startswith("```")
            continue
        yield from _settle(last, other, continued, style.hard_breaks)
        last, continued = None, False
        if kind == "user":
            if user and user[-1][0] != number - 1:
                yield from _user(user)
            user.append((number, _strip(text[5:], style.hard_breaks)))
        else:
            yield from _user(user)
            last = Block("aider", _strip(text[1:].lstrip(" ") if text.startswith(">") else text, style.hard_breaks),
                         number)
    yield from _settle(last, other, continued, style.hard_breaks)
    yield from _user(user)


def _kind(text: str, style: Style) -> str | None:
    if not style.hard_breaks or text.endswith("  "):
        if text.startswith("#### ") or text == "####":
            return "user"
        if _QUOTE.match(text) or (style.old_notes and _OLD_NOTE.match(text.rstrip())):
            return "aider"
    return None


def _strip(text: str, hard_breaks: bool) -> str:
    return text[:-2] if hard_breaks and text.endswith("  ") else text.rstrip()


def _settle(last: Block | None, other: list[tuple[int, str]], continued: bool, hard_breaks: bool) -> Iterator[Block]:
    """Give out the last Aider line with the lines that continue it, an Aider message of several
    lines, then a reply (`other` is emptied in place)."""
    end = _hard_break(other, hard_breaks)
    if last is not None and continued and end is not None:
        last = last._replace(text=f"{last.text}\n" + "\n".join(t for _, t in other[:end + 1])[:-2])
        del other[:end + 1]
        end = _hard_break(other, hard_breaks)
    if last is not None:
        yield last
    if other and _QUOTE.match(other[0][1]) and end is not None:
        text = "\n".join(t for _, t in other[:end + 1])[:-2]
        yield Block("aider", text[1:].removeprefix(" "), other[0][0])
        del other[:end + 1]
    while other and not other[0][1].strip():
        other.pop(0)
    while other and not other[-1][1].strip():
        other.pop()
    if other:
        yield Block("reply", "\n".join(t for _, t in other), other[0][0])
        other.clear()


def _hard_break(other: list[tuple[int, str]], hard_breaks: bool) -> int | None:
    """The first line ending in two spaces (the end of an Aider message of several lines)."""
    return next((i for i, (_, t) in enumerate(other) if t.endswith("  ")), None) if hard_breaks else None


def _user(user: list[tuple[int, str]]) -> Iterator[Block]:
    """Give out the open user block (emptied in place)."""
    if user:
        yield Block("user", "\n".join(t for _, t in user), user[0][0])
        user.clear()
