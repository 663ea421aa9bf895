"""Small deterministic builders of messages and conversations for tests.

    from tests.builders import Convo, huge_text
    messages = (Convo().system().user("Fix the test.")
                .tools(("read_file", huge_text(60_000)), ("grep", "3 matches"))
                .assistant("Fixed.").user("Thanks!").build())

`Convo` numbers message ids ``m0, m1, ...`` and call ids ``call_0, call_1, ...`` in order, so the
same calls build the same conversation; the single-message helpers take explicit ids.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxlab.messages import Message, ToolCall

# Characters that sit on tiktoken split patterns' edges: newlines, brackets, apostrophes, combining
# marks, CJK, digits, odd whitespace, "/" (o200k's punctuation rule swallows it after newlines).
SPLIT_PATTERN_EDGES = [
    " ", "  ", "\n", "\r", "\t", "/", "[", "]", "a", "A", "Ab", "1", "123", ".", "'", "'s", "中", "文",
    "\u0301", "\u00a0", "\u3000", "é", "Σ", "ς", "x/", "\n/", "\r\n", "'ll", "-", "ǅ", "ʰ", "٣", "\u2028",
    "\x0b", "\x1c", "\x85", "😀", "<|endoftext|>", "error: ", "[tool] ", "## Files\n"]
CJK = "上下文压缩需要保留关键信息，并且丢弃冗余的工具输出。"
JAPANESE = "コンテキストの圧縮では、重要な情報を残して古い出力を省略します。"
WORDS = ("the", "context", "window", "budget", "tool", "output", "keeps", "recent", "turns",
         "and", "drops", "older", "messages", "when", "over", "limit")


def prose(chars: int, offset: int = 0) -> str:
    """English-like words, exactly `chars` characters, varying with `offset`."""
    out, i, total = [], offset, 0
    while total < chars:
        out.append(WORDS[i % len(WORDS)])
        total += len(out[-1]) + 1
        i += 1
    return " ".join(out)[:chars]


def cjk_text(chars: int) -> str:
    """Chinese text of exactly `chars` characters."""
    return (CJK * (chars // len(CJK) + 1))[:chars]


def japanese_text(chars: int) -> str:
    """Japanese text of exactly `chars` characters."""
    return (JAPANESE * (chars // len(JAPANESE) + 1))[:chars]


def huge_text(chars: int, head: str = "HEAD>", tail: str = "<TAIL") -> str:
    """A long tool output of exactly `chars` characters (numbered lines) that starts with `head`
    and ends with `tail`, so tests can check what truncation keeps."""
    body_len = chars - len(head) - len(tail)
    lines, total, n = [], 0, 0
    while total < body_len:
        line = f"line {n}: value={n * 7 % 1000}\n"
        lines.append(line)
        total += len(line)
        n += 1
    return head + "".join(lines)[:max(body_len, 0)] + tail


def system(text: str = "You are a careful coding assistant.", id: str = "sys") -> Message:
    return Message(role="system", content=text, id=id)


def user(text: str = "Please help.", id: str = "u", name: str | None = None) -> Message:
    return Message(role="user", content=text, id=id, name=name)


def assistant(text: str | None = "Sure.", id: str = "a", calls: Sequence[ToolCall] = ()) -> Message:
    return Message(role="assistant", content=text, id=id, tool_calls=tuple(calls))


def tool_result(call_id: str, text: str, id: str | None = None, name: str | None = None) -> Message:
    return Message(role="tool", content=text, id=id or f"r_{call_id}", tool_call_id=call_id, name=name)


class Convo:
    """Fluent builder with sequential ids; `build()` returns the message tuple."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self._calls = 0

    def _add(self, role: str, content: str | tuple[str, ...] | None, **fields: object) -> Convo:
        message = Message(role=role, content=content, id=f"m{len(self.messages)}", **fields)  # type: ignore[arg-type]
        self.messages.append(message)
        return self

    def system(self, text: str = "You are a careful coding assistant.") -> Convo:
        return self._add("system", text)

    def user(self, text: str | tuple[str, ...] = "Please help.", name: str | None = None) -> Convo:
        return self._add("user", text, name=name)

    def assistant(self, text: str | tuple[str, ...] | None = "Done.") -> Convo:
        return self._add("assistant", text)

    def tools(self, *outputs: tuple[str, str], text: str | None = None) -> Convo:
        """One assistant message calling `len(outputs)` tools in parallel, then their results.

        Args:
            outputs: ``(tool_name, output_text)`` pairs, one per call.
            text: the assistant's content alongside the calls.
        """
        calls = []
        for name, _ in outputs:
            calls.append(ToolCall(f"call_{self._calls}", name, f'{{"arg": {self._calls}}}'))
            self._calls += 1
        self._add("assistant", text, tool_calls=tuple(calls))
        for call, (_, output) in zip(calls, outputs, strict=False):
            self._add("tool", output, tool_call_id=call.id)
        return self

    def build(self) -> tuple[Message, ...]:
        return tuple(self.messages)


def chat(turns: int, chars: int = 200, system_prompt: bool = True) -> tuple[Message, ...]:
    """A plain chat: optional system prompt, then `turns` user/assistant pairs of `chars` characters."""
    c = Convo().system() if system_prompt else Convo()
    for i in range(turns):
        c.user(prose(chars, i)).assistant(prose(chars, i + 5))
    return c.build()


def agent_session(steps: int, output_chars: int = 2000, parallel: int = 1) -> tuple[Message, ...]:
    """A coding-agent session: system, a task, `steps` tool exchanges of `parallel` calls each
    (outputs of `output_chars` characters), a final answer and a follow-up user message."""
    c = Convo().system().user("Fix the failing test in tests/test_api.py.")
    for step in range(steps):
        c.tools(*((f"read_file_{k}" if k else "read_file", huge_text(output_chars, f"S{step}K{k}>"))
                  for k in range(parallel)), text=f"Step {step}: reading.")
    return c.assistant("The test passes now.").user("Thanks, now update the changelog.").build()
