"""gemini-cli recorded responses (``--record-responses``; the ``*.responses`` files of its tests).

Source: google-gemini/gemini-cli @ 5411f113, ``packages/core/src/core/recordingContentGenerator.ts``:
one JSON line per model API call, ``{"method", "response"}``, where a ``generateContent`` response
is ``{candidates, usageMetadata}``, a ``generateContentStream`` response the list of its chunks
(each ``{candidates, usageMetadata}``), ``countTokens`` ``{totalTokens, cachedContentTokenCount}``
and ``embedContent`` the embeddings; ``fakeContentGenerator.ts`` replays them in order.

Only the responses are recorded: no prompt, no tool result, no model name. Such a file is not a
conversation, so loading it is refused in one line that says what it holds (in a folder, a recorded
skip: `ctxlab.datasets.logs.holds_no_conversation`); `responses_usage` reads the usage each call
reported.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from ctxlab.datasets.logs.common import Line, LogError, LogFormat, LogSource, as_int, entry
from ctxlab.datasets.readers import read_jsonl

NAME = "gemini_responses"
REFUSAL = "gemini-cli recorded responses (--record-responses): responses only, no prompts or tool results"
METHODS = ("generateContent", "generateContentStream", "countTokens", "embedContent")


class ResponseUsage(NamedTuple):
    """The usage one recorded call reported (its last chunk's ``usageMetadata`` for a stream; all
    zero for ``countTokens`` and ``embedContent``, which report none)."""

    where: str
    method: str
    prompt_tokens: int
    cached_tokens: int
    output_tokens: int
    thoughts_tokens: int
    total_tokens: int


def detect(values: list[Any]) -> bool:
    """Recorded responses: ``{"method": <a ContentGenerator method>, "response": ...}`` lines."""
    first = values[0] if values else None
    return isinstance(first, Mapping) and first.get("method") in METHODS and "response" in first


def call_usage(line: Line) -> ResponseUsage:
    """One recorded call's usage.

    Raises:
        LogError: the line is not a recorded call.
    """
    value = entry(line)
    method, response = value.get("method"), value.get("response")
    if method not in METHODS:
        raise LogError(f"'method' is {method!r}, not one of {', '.join(METHODS)}", line.where)
    chunks = response if isinstance(response, list) else [response]
    found = [c["usageMetadata"] for c in chunks if isinstance(c, Mapping) and isinstance(c.get("usageMetadata"), Mapping)]
    usage: Mapping[str, Any] = found[-1] if found else {}
    return ResponseUsage(line.where, method, as_int(usage.get("promptTokenCount")),
                         as_int(usage.get("cachedContentTokenCount")), as_int(usage.get("candidatesTokenCount")),
                         as_int(usage.get("thoughtsTokenCount")), as_int(usage.get("totalTokenCount")))


def responses_usage(path: str | Path) -> list[ResponseUsage]:
    """The usage of every call recorded in a ``.responses`` file, in order.

    Raises:
        LogError: a line that is not valid JSON or not a recorded call.
    """
    path = Path(path)
    out = []
    for raw in read_jsonl(path, str(path)):
        if raw.error is not None:
            raise LogError(raw.error, raw.where)
        out.append(call_usage(Line(raw.where, raw.record)))
    return out


def convert(lines: Iterable[Line], source: LogSource) -> dict[str, Any]:
    """Always refuses, in one line: what the file holds and why it is not a conversation."""
    calls = [call_usage(line) for line in lines]
    methods = Counter(c.method for c in calls)
    raise LogError(
        f"{REFUSAL}, so not a conversation ({', '.join(f'{n} {m}' for m, n in methods.items())} calls, "
        f"{sum(c.prompt_tokens for c in calls):,} prompt and {sum(c.output_tokens + c.thoughts_tokens for c in calls):,}"
        " output tokens; gemini_responses.responses_usage reads them)", source.display)


FORMAT = LogFormat(NAME, "jsonl", (".responses", ".jsonl"), detect, convert)
