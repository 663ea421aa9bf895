"""OpenHands event streams (a JSON list of events, or a session folder of ``events/<n>.json``).

Events carry ``id``, ``source`` (user / agent / environment) and either ``action`` with ``args``
or ``observation`` with ``content``; ``cause`` links an observation to its action. An agent action
made by function calling has ``tool_call_metadata`` {function_name, tool_call_id, model_response}:
the LiteLLM response holds the assistant message (content, tool_calls, reasoning) and its
``usage``. Actions of one response share its id and become one assistant message; observations
with metadata are its tool results. Like OpenHands' own prompt builder, ``finish`` is a plain
assistant message (its call is never answered) and observations of user actions are user messages.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ctxlab.datasets.logs.broken import sort_lines, usable
from ctxlab.datasets.logs.builder import LogBuilder
from ctxlab.datasets.logs.common import (
    Line,
    LogFormat,
    LogSource,
    TokenUsage,
    compact_json,
    epoch,
    first_str,
    tool_call,
)

# Observations that tell the UI something but are not shown to the model as such.
_NOT_CONTEXT = frozenset({"agent_state_changed", "null", "recall", "agent_condensation", "success"})


def detect(values: list[Any]) -> bool:
    """An OpenHands event: an ``action`` or ``observation`` with an id or a source."""
    first = values[0] if values else None
    return isinstance(first, Mapping) and ("action" in first or "observation" in first) \
        and ("id" in first or "source" in first)


def convert(lines: Iterable[Line], source: LogSource) -> dict[str, Any]:
    """Import one event stream (see the module docstring). An event that does not decode or is not an
    object (an event file in a session folder, an element of a saved list) is skipped on its own
    (`ctxlab.datasets.logs.broken`): its effects are local (an action whose observation then has no
    call is an orphan result, dropped and noted like any other)."""
    reader = _Reader(LogBuilder("openhands", source))
    for line in usable(sort_lines(lines), reader.b):
        event = line.value
        reader.event_at[event.get("id")] = reader.b.position()
        if "action" in event:
            reader.action(event)
        elif "observation" in event:
            reader.observation(event)
        else:
            reader.b.skip("event without action or observation")
    return reader.b.record(source.path.stem)


class _Reader:
    """Reads events in order; `responses` maps a model response id to its assistant message."""

    def __init__(self, b: LogBuilder):
        self.b = b
        self.responses: dict[str, dict[str, Any]] = {}
        self.event_at: dict[Any, int] = {}

    def action(self, event: Mapping[str, Any]) -> None:
        kind, args = event.get("action"), _mapping(event.get("args"))
        time, user = epoch(event.get("timestamp")), event.get("source") == "user"
        if kind == "system":  # the system prompt and the tool schemas the agent was given
            self.b.add("system", first_str(args.get("content")) or "", msg_id=event.get("id"), timestamp=time)
            self.b.tools = [t for t in args.get("tools") or [] if isinstance(t, Mapping)]
        elif kind == "run" and user:  # what OpenHands shows the model for a command the user ran
            self.b.add("user", f"User executed the command:\n{args.get('command', '')}", msg_id=event.get("id"),
                       timestamp=time)
        elif isinstance(event.get("tool_call_metadata"), Mapping):
            self.tool_action(event, kind, args)
        elif kind == "message":
            self.message(event, args, "user" if user else "assistant")
        elif kind == "finish" and not user:
            self.b.add("assistant", _finish_text(args), msg_id=event.get("id"), timestamp=time)
        elif kind == "condensation":
            self.condensation(args)
        else:
            self.b.skip(f"action:{kind}")

    def message(self, event: Mapping[str, Any], args: Mapping[str, Any], role: str) -> None:
        text = first_str(args.get("content")) or ""
        for _ in args.get("image_urls") or []:
            text += "\n" + self.b.placeholder("image")
        out = self.b.add(role, text, msg_id=event.get("id"), timestamp=epoch(event.get("timestamp")))
        if role == "assistant":  # a reply without tool calls: its usage is only in the metrics
            self._metrics_call(out, event.get("llm_metrics"))

    def tool_action(self, event: Mapping[str, Any], kind: Any, args: Mapping[str, Any]) -> None:
        metadata = event["tool_call_metadata"]
        response = _mapping(metadata.get("model_response"))
        call_id = str(metadata.get("tool_call_id") or event.get("id"))
        key = first_str(response.get("id")) or call_id
        out = self.responses.get(key)
        if out is None:
            out = self.responses[key] = self._response(response, event, first_str(args.get("thought")))
        calls, text = out["tool_calls"], _finish_text(args)
        if kind == "finish":  # never answered: OpenHands shows the model a plain message instead
            calls[:] = [c for c in calls if c["id"] != call_id]
            self.b.append_text(out, text if text != out["content"] else None)
        elif all(c["id"] != call_id for c in calls):
            args_json = {k: v for k, v in args.items() if k != "thought"}
            calls.append(tool_call(call_id, metadata.get("function_name"), compact_json(args_json)))

    def _response(self, response: Mapping[str, Any], event: Mapping[str, Any], thought: str | None) -> dict:
        """The assistant message of a model response (the action's thought when the log lacks it)."""
        message = _choice_message(response)
        text = self.b.text(message.get("content")) if message else thought
        out = self.b.add("assistant", text, tool_calls=_calls(message), msg_id=response.get("id") or event.get("id"),
                         timestamp=epoch(event.get("timestamp")))
        reasoning = first_str(message.get("reasoning_content"))
        if reasoning:
            self.b.think(out, reasoning)
        usage = response.get("usage")
        if isinstance(usage, Mapping):
            details = _mapping(usage.get("prompt_tokens_details"))
            self.b.call(out, first_str(response.get("model")), TokenUsage.openai(
                usage.get("prompt_tokens"), details.get("cached_tokens") or usage.get("cache_read_input_tokens"),
                usage.get("completion_tokens"), usage.get("cache_creation_input_tokens")))
        return out

    def _metrics_call(self, out: dict[str, Any], metrics: Any) -> None:
        """The newest per-response usage in the event's metrics, when no message has claimed it yet."""
        usages = _mapping(metrics).get("token_usages")
        last = usages[-1] if isinstance(usages, list) and usages and isinstance(usages[-1], Mapping) else None
        if last is None or last.get("response_id") in self.responses:
            return
        self.responses[str(last.get("response_id"))] = out
        self.b.call(out, first_str(last.get("model")), TokenUsage.openai(
            last.get("prompt_tokens"), last.get("cache_read_tokens"), last.get("completion_tokens"),
            last.get("cache_write_tokens")))

    def observation(self, event: Mapping[str, Any]) -> None:
        kind, time, metadata = event.get("observation"), epoch(event.get("timestamp")), event.get("tool_call_metadata")
        content = self._sent_text(event)
        if isinstance(metadata, Mapping) and metadata.get("tool_call_id"):
            self.b.add("tool", content, msg_id=event.get("id"), tool_call_id=str(metadata["tool_call_id"]),
                       name=first_str(metadata.get("function_name")), timestamp=time)
        elif kind not in _NOT_CONTEXT and content:
            self.b.add("user", content, msg_id=event.get("id"), timestamp=time)
        else:
            self.b.skip(f"observation:{kind}")

    def _sent_text(self, event: Mapping[str, Any]) -> str:
        """What the model received for an observation. An ``oh_aci`` file edit logged before
        OpenHands moved it into ``content`` (PR #6671) carries it in
        ``extras.formatted_output_and_error``; ``content`` then holds the display diff."""
        content = first_str(event.get("content")) or ""
        extras = _mapping(event.get("extras"))
        sent = first_str(extras.get("formatted_output_and_error")) if extras.get("impl_source") == "oh_aci" else None
        if sent is None or sent == content:
            return content
        self.b.repairs.append(f"event {event.get('id')}: the model received extras.formatted_output_and_error "
                              "(oh_aci edit), not the display diff in content")
        return sent

    def condensation(self, args: Mapping[str, Any]) -> None:
        """The condenser forgot a range of events: the compaction ends where the kept events resume."""
        ids = [i for i in args.get("forgotten_event_ids") or [] if isinstance(i, int)]
        end = args.get("forgotten_events_end_id")
        end = end if isinstance(end, int) else max(ids, default=None)
        after = [pos for event_id, pos in self.event_at.items()
                 if isinstance(event_id, int) and end is not None and event_id > end]
        self.b.compaction(first_str(args.get("summary")), None, min(after, default=None),
                          forgotten_events=_forgotten(args, ids))


def _choice_message(response: Mapping[str, Any]) -> Mapping[str, Any]:
    """The first choice's message of a LiteLLM response ({} when the log has none)."""
    choices = response.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    return _mapping(_mapping(first).get("message"))


def _calls(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [tool_call(c["id"], _mapping(c.get("function")).get("name"), _mapping(c.get("function")).get("arguments"))
            for c in message.get("tool_calls") or [] if isinstance(c, Mapping) and c.get("id")]


def _forgotten(args: Mapping[str, Any], ids: list[int]) -> list[int]:
    start, end = args.get("forgotten_events_start_id"), args.get("forgotten_events_end_id")
    return [start, end] if isinstance(start, int) and isinstance(end, int) else [min(ids), max(ids)] if ids else []


def _finish_text(args: Mapping[str, Any]) -> str:
    return first_str(args.get("final_thought"), args.get("thought"), _mapping(args.get("outputs")).get("content")) or ""


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


FORMAT = LogFormat("openhands", "json", (".json",), detect, convert)
