"""Next-action agreement: a model is given what a policy sends at one of the agent's calls, with the
session's tools, and proposes the next tool call; the proposal is scored against the recorded call.

In the manner of AGORA (Zhang and Sun, "AGORA: Adapter-Grounded Observation-Action Retention for
Inference-Free Prompt Compression in LLM Agents", arXiv 2605.26596, 2026), which labels a history
step as relevant when removing it changes the backbone's next action. Here the reference is the
action the agent actually took, and the score is defined by ctxlab (docs/agreement.md):

- ``name_match``: the proposal's first tool call names the recorded tool (exact string);
- ``text_answer``: the model answered with text (no tool call) where the agent called a tool;
- over the recorded call's argument keys, ``arg_exact``: the share whose proposed value is equal
  after `canonical` normalization, and ``arg_overlap``: the mean per key of 1 for an equal value,
  else the token-set Jaccard of the two values (0 for a key the proposal lacks);
- ``arg_tokens``: the token-set Jaccard of all argument values of the two calls together.

Arguments are scored whatever tool the proposal names (a ``Read`` of the file the agent went on
to ``Edit`` shares its path). When the agent made several calls at once, the proposal's first call
is scored against the one it matches best. A text answer scores 0 on every argument measure; a
recorded call without arguments leaves them undefined (None).
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from ctxlab.messages import Conversation, Message, ToolCall
from ctxlab.summarize.cache import CallCache
from ctxlab.summarize.client import CallResult, Endpoint, Retry, complete

# Part of every call's cache key: a change to what is sent or how must not reuse old answers.
AGREEMENT_PROTOCOL = ("next-action agreement v1: the policy's messages as sent, the session's tool "
                      "definitions, tool_choice auto")
DEFAULT_PARAMS: Mapping[str, Any] = {"temperature": 0.0, "max_tokens": 1024}
RAW_ARGUMENTS = "(arguments)"
_WORD = re.compile(r"\w+")
_RETRY = Retry()
_DERIVED = "Derived by ctxlab from this session's recorded calls (the log has no tool definitions)."


class CallScore(NamedTuple):
    """How one proposal agrees with the recorded call (argument measures in [0, 1] or None)."""

    name_match: bool
    text_answer: bool
    arg_exact: float | None
    arg_overlap: float | None
    arg_tokens: float | None


def arguments(raw: str) -> dict[str, Any]:
    """A call's arguments as a dict; anything but a JSON object is one argument, `RAW_ARGUMENTS`."""
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return {RAW_ARGUMENTS: raw}
    return value if isinstance(value, dict) else {RAW_ARGUMENTS: value}


def canonical(value: Any) -> str:
    """A value's comparable form: text NFC-normalized with runs of white space folded to one space,
    numbers and booleans as JSON (so ``5``, ``5.0`` and ``"5"`` are equal), containers recursively."""
    if isinstance(value, str):
        text = " ".join(unicodedata.normalize("NFC", value).split())
        try:
            parsed = json.loads(text)
        except ValueError:
            return text
        return canonical(parsed) if isinstance(parsed, bool | int | float) else text
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else json.dumps(value)
    if isinstance(value, Mapping):
        return json.dumps({str(k): canonical(v) for k, v in value.items()}, sort_keys=True, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return json.dumps([canonical(v) for v in value], ensure_ascii=False)
    return canonical(str(value))


def value_tokens(value: Any) -> frozenset[str]:
    """The word tokens (``\\w+``, case kept) of every string in `value`, plus its numbers and booleans."""
    if isinstance(value, str):
        return frozenset(_WORD.findall(unicodedata.normalize("NFC", value)))
    if isinstance(value, Mapping):
        return frozenset().union(*(value_tokens(v) for v in value.values()))
    if isinstance(value, list | tuple):
        return frozenset().union(*(value_tokens(v) for v in value))
    return frozenset() if value is None else frozenset({canonical(value)})


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a & b| / |a | b|; 1.0 when both are empty."""
    union = a | b
    return len(a & b) / len(union) if union else 1.0


def score_arguments(recorded: Mapping[str, Any], proposed: Mapping[str, Any]) -> tuple[float, float, float] | None:
    """(arg_exact, arg_overlap, arg_tokens) over the recorded call's keys; None when it has none."""
    if not recorded:
        return None
    exact = [k in proposed and canonical(proposed[k]) == canonical(v) for k, v in recorded.items()]
    overlap = [1.0 if same else jaccard(value_tokens(v), value_tokens(proposed[k])) if k in proposed else 0.0
               for same, (k, v) in zip(exact, recorded.items(), strict=True)]
    pooled = jaccard(value_tokens(list(recorded.values())), value_tokens(list(proposed.values())))
    return sum(exact) / len(exact), sum(overlap) / len(overlap), pooled


def score_call(recorded: Sequence[ToolCall], proposed: Sequence[ToolCall]) -> CallScore:
    """Score the proposal's first call against the recorded call it matches best (name, then
    arg_overlap); a proposal without calls is a text answer.

    Raises:
        ValueError: `recorded` is empty (only a recorded tool call can be agreed with).
    """
    if not recorded:
        raise ValueError("next-action agreement needs a recorded tool call")
    if not proposed:
        scores = score_arguments(arguments(recorded[0].arguments), {})
        return CallScore(False, True, *((0.0, 0.0, 0.0) if scores else (None, None, None)))
    first = proposed[0]
    candidates = [CallScore(call.name == first.name, False,
                            *(score_arguments(arguments(call.arguments), arguments(first.arguments))
                              or (None, None, None)))
                  for call in recorded]
    return max(candidates, key=lambda s: (s.name_match, s.arg_overlap or 0.0))


def session_tools(conv: Conversation) -> tuple[dict[str, Any], ...]:
    """The tool definitions a model is offered for `conv`, in OpenAI's format: the recorded ones,
    else (agent logs rarely record them) one per tool the session called, its properties the
    argument keys seen, typed from the values, with a description saying they were derived."""
    if conv.tools:
        return tuple(_openai_tool(t) for t in conv.tools)
    seen: dict[str, dict[str, set[str]]] = {}
    for call in (c for m in conv.messages for c in m.tool_calls):
        keys = seen.setdefault(call.name, {})
        for key, value in arguments(call.arguments).items():
            keys.setdefault(key, set()).add(_json_type(value))
    return tuple({"type": "function", "function": {
        "name": name, "description": _DERIVED,
        "parameters": {"type": "object", "properties": {k: _property(types) for k, types in keys.items()}}}}
        for name, keys in seen.items())


def agreement_endpoint(model: str | None = None, api_base: str | None = None,
                       api_key: str | None = None) -> Endpoint:
    """The model that proposes next actions: the arguments, else env ``CTXLAB_AGREEMENT_MODEL``,
    ``CTXLAB_AGREEMENT_API_BASE`` and ``CTXLAB_AGREEMENT_API_KEY``, each falling back to its
    ``CTXLAB_LLM_*`` counterpart (the summarizer's), then to litellm's own provider variables."""
    env = os.environ.get
    return Endpoint(model or env("CTXLAB_AGREEMENT_MODEL") or None,
                    api_base or env("CTXLAB_AGREEMENT_API_BASE") or None,
                    api_key or env("CTXLAB_AGREEMENT_API_KEY") or None).resolve()


def build_request(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The chat messages sent to the model: the policy's messages exactly as it sends them (a tool
    result's optional ``name`` left out, which chat APIs reject on tool messages)."""
    out = []
    for message in messages:
        sent = message.to_openai()
        if message.role == "tool":
            sent.pop("name", None)
        out.append(sent)
    return out


def propose(messages: Sequence[Message], tools: Sequence[Mapping[str, Any]], *, endpoint: Endpoint,
            cache: CallCache, retry: Retry = _RETRY, params: Mapping[str, Any] = DEFAULT_PARAMS) -> CallResult:
    """Ask the model for the next action after `messages` (cached and retried by
    `ctxlab.summarize.client.complete`); its calls are in the result's `tool_calls`."""
    return complete(build_request(messages), endpoint=endpoint, prompt_name="agreement",
                    prompt_text=AGREEMENT_PROTOCOL, params=params, cache=cache, retry=retry, tools=tools)


def _openai_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    """A definition in OpenAI's format (Anthropic's ``name``/``input_schema`` form is converted)."""
    if "function" in tool or "name" not in tool:
        return dict(tool)
    schema = tool.get("input_schema") or tool.get("parameters") or {"type": "object", "properties": {}}
    return {"type": "function", "function": {"name": tool["name"], "description": tool.get("description", ""),
                                             "parameters": schema}}


def _json_type(value: Any) -> str:
    kinds = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"), (list, "array"), (dict, "object"))
    return next((name for kind, name in kinds if isinstance(value, kind)), "null")


def _property(types: set[str]) -> dict[str, Any]:
    """A property schema: its one type, or none when the session passed several."""
    if len(types) != 1 or "null" in types:
        return {}
    (kind,) = types
    return {"type": kind, "items": {}} if kind == "array" else {"type": kind}
