"""Aider chat histories (``.aider.chat.history.md``) -> one conversation per session.

Source: Aider-AI/aider @ 5dc9490b: ``aider/io.py`` (the file, see `ctxlab.datasets.logs.aider_lines`),
``aider/coders/base_coder.py`` (``send_message``: after each reply ``show_usage_report`` prints
``Tokens: <sent> sent[, <n> cache write][, <n> cache hit], <received> received.`` and, when the
model has a price, `` Cost: $<x> message, $<y> session.``; ``check_for_file_mentions`` asks
``Add file to the chat?`` and sends ``prompts.added_files`` when files were added; ``run_one``
sends reflected messages), ``aider/utils.py`` (``format_tokens``: exact below 1,000, then one
decimal of thousands below 10,000, then whole thousands), ``aider/reasoning_tags.py`` and
``aider/prompts.py``.

What the file does not show, and so the import cannot: Aider's system prompt, its example
messages, the repo map, the content of the files in the chat (all resent with every request), the
messages it sends itself (lint and test errors, "I added these files" unless the confirmations
show which), history summaries made by the weak model, and the commit-message calls. The Tokens
line is the whole prompt Aider sent; with streaming (Aider's default) it is Aider's own
``litellm.token_counter`` estimate, not the provider's count (base_coder.py reads ``usage`` only
from a non-streamed completion), and it is rounded. So the calls carry ``no_delta``: their
consecutive differences measure files and repo maps, not messages, and are never used as deltas;
and ``estimated``: ``ctxlab cost`` prices them as estimates, outside its cache-read checks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from ctxlab.datasets.logs.aider_lines import SESSION, Block, Session, sessions
from ctxlab.datasets.logs.aider_output import (
    ADD_FILES,
    ADDED_FILES,
    ANSWER,
    CONFIRM,
    COST,
    EDIT_ERROR,
    LINT_START,
    MODEL,
    TOKENS,
    VERSION,
    count,
    reasoning,
)
from ctxlab.datasets.logs.builder import LogBuilder
from ctxlab.datasets.logs.common import Line, LogError, LogFormat, LogSource, TokenUsage, Unreadable

NAME = "aider"
NO_DELTA = ("counts Aider printed (its own estimate when streaming, rounded; every prompt also holds files, "
            "a repo map and a system prompt the history does not show)")
ESTIMATED = ("Aider's printed counts: rounded, and with streaming (its default) its own litellm.token_counter "
             "estimate, not the provider's")



def is_history(head: str) -> bool:
    """Whether the start of a markdown file is an Aider chat history."""
    return any(SESSION.match(line) for line in head.splitlines()[:64])


def convert_all(lines: Iterable[Line], source: LogSource) -> Iterator[dict[str, Any] | LogError]:
    """Each session with a message to the model; empty sessions are counted on the next one."""
    numbered = [(int(line.where.rsplit(":", 1)[1]), _text(line)) for line in lines]
    empty, held, total = 0, None, 0
    for session in sessions(numbered):
        total += 1
        try:
            record = _Session(session, source).record()
        except LogError:
            empty += 1
            continue
        if empty:
            record["meta"].setdefault("skipped", {})["empty session before this one"] = empty
            empty = 0
        if held is not None:
            yield held
        held = record
    if held is None:
        raise LogError(f"an Aider chat history with {total} session(s), none with a message to the model",
                       source.display)
    if empty:
        held["meta"].setdefault("skipped", {})["empty session after this one"] = empty
    yield held


def _text(line: Line) -> str:
    if isinstance(line.value, Unreadable):  # a line that is not UTF-8: the history is refused, located
        raise LogError(line.value.reason, line.where)
    if not isinstance(line.value, str):
        raise LogError("not a line of text", line.where)
    return line.value


class _Session:
    """Reads one session's blocks into a builder."""

    def __init__(self, session: Session, source: LogSource):
        self.session, self.b = session, LogBuilder(NAME, source)
        self.model: str | None = None
        self.subjects: list[str] = []  # lines shown before a confirmation (its file names)
        self.added: list[str] = []  # files added after the last reply
        self.last: dict[str, Any] | None = None  # the last reply, until its Tokens line
        self.cost: float | None = None
        self.outputs: list[str] = []  # Aider's lines since the last reply or input
        self.reflection: tuple[str, str] | None = None  # a message Aider will send itself: text, what it is

    def record(self) -> dict[str, Any]:
        for block in self.session.blocks:
            getattr(self, block.kind)(block)
        record = self.b.record(f"{self.b.source.path.stem}:{self.session.started}")
        for call in record["meta"]["provider_calls"]:
            call["no_delta"], call["estimated"] = NO_DELTA, ESTIMATED
        calls = record["meta"]["provider_calls"]
        record["meta"]["usage_total"] = {"prompt_tokens": sum(c["prompt_tokens"] for c in calls),
                                         "output_tokens": sum(c["output_tokens"] for c in calls),
                                         "api_calls": len(calls), "cost_usd": self.cost}
        record["meta"]["started"] = self.session.started
        return record

    def user(self, block: Block) -> None:
        text, command = block.text, block.text.split(maxsplit=1)[0] if block.text.strip() else ""
        if text.strip() in ("", "<blank>"):
            self.b.skip("empty input")
        elif CONFIRM.match(text):
            self.b.skip("an answer to Aider's question, echoed as input")
        elif command.startswith("/"):
            self.b.skip(f"command {command}")
            if command in ("/clear", "/reset"):
                self.b.repairs.append(f"line {block.line}: {command} emptied Aider's chat history; later prompts "
                                      "did not hold the messages before it (the record keeps them)")
        else:
            self.b.add("user", text, msg_id=f"L{block.line}")
            self.added, self.reflection, self.outputs = [], None, []

    def reply(self, block: Block) -> None:
        if not any(m["role"] == "user" for m in self.b.messages):
            self.b.skip("text before the session's first input")
            return
        if self.b.messages[-1]["role"] == "assistant":
            self._reflected(block)
        content, thinking = reasoning(block.text)
        self.last = self.b.add("assistant", content, msg_id=f"L{block.line}")
        for text in thinking:
            self.b.think(self.last, text)
        self.added, self.reflection, self.outputs = [], None, []

    def _reflected(self, block: Block) -> None:
        """A reply to a message Aider sent itself: one the history shows as Aider's output (an
        edit-format error, lint errors), the added files' note, or one it does not show."""
        if self.reflection is not None:
            text, what = self.reflection
            self.b.add("user", text, msg_id=f"L{block.line}:reflected")
            self.b.repairs.append(f"line {block.line}: added the message Aider sent before this reply ({what}), "
                                  "as the history shows it among Aider's output")
        elif self.added:
            self.b.add("user", ADDED_FILES.format(", ".join(self.added)), msg_id=f"L{block.line}:added")
            self.b.repairs.append(f"line {block.line}: added the message Aider sent after the files were added to "
                                  f"the chat ({', '.join(self.added)}; aider/prompts.py added_files)")
        else:
            self.b.repairs.append(f"line {block.line}: this reply answers a message Aider sent itself (lint or test "
                                  "errors, a reflection) that the history does not show")

    def aider(self, block: Block) -> None:
        text = block.text
        found = TOKENS.match(text)
        if found:
            self._usage(found, text, block)
        elif (cost := COST.match(text)) is not None:
            self.cost = float(cost["session"])
        elif (answer := ANSWER.match(text)) is not None and answer["answer"]:
            yes = answer["answer"][:1].lower() in ("y", "a")
            if answer["question"] in ADD_FILES and yes:
                self.added += self.subjects[-1:] if answer["question"] == ADD_FILES[0] else \
                    [t for t in self.subjects if " " not in t]  # the file names listed before the question
            elif answer["question"] == "Attempt to fix lint errors?" and yes:
                self._lint()
            self.subjects = []
            self.b.skip("Aider question and answer")
        elif self.outputs[-1:] == [EDIT_ERROR] and not text.startswith("http") or \
                self.outputs[-2:-1] == [EDIT_ERROR] and self.outputs[-1].startswith("http"):
            self.reflection = (text, "the edit-format error, base_coder.py apply_updates")
            self.b.skip("Aider output line")
        else:
            if (model := MODEL.match(text)) is not None:
                self.model = model["model"]
            elif (version := VERSION.match(text)) is not None:
                self.b.meta["version"] = version["version"]
            self.subjects.append(text)
            self.b.skip("Aider output line")
        self.outputs.append(text)

    def _lint(self) -> None:
        """The lint errors Aider sends back: its output from the linter's first line on (each line
        as the history wrote it: leading spaces stripped)."""
        starts = [i for i, t in enumerate(self.outputs) if t.startswith(LINT_START)]
        if starts:
            self.reflection = ("\n".join(self.outputs[starts[-1]:]), "lint errors, base_coder.py lint_edited; "
                               "indentation as the history kept it")

    def _usage(self, found: re.Match[str], text: str, block: Block) -> None:
        if self.last is None:
            self.b.skip("Tokens line without a reply before it")
            return
        sent, write, hit = (count(found[k]) for k in ("sent", "write", "hit"))
        self.b.call(self.last, self.model, TokenUsage(max(sent - write - hit, 0), hit, write,
                                                       count(found["received"])))
        cost = COST.search(text)
        if cost is not None:
            self.cost = float(cost["session"])
        self.last = None


FORMAT = LogFormat(NAME, "md", (".md",), lambda values: False, lambda lines, source: _one(lines, source),
                   convert_all=convert_all)


def _one(lines: Iterable[Line], source: LogSource) -> dict[str, Any]:
    records = list(convert_all(lines, source))
    if len(records) != 1 or isinstance(records[0], LogError):
        raise LogError(f"the history holds {len(records)} sessions, not one", source.display)
    return records[0]
