"""SWE-agent trajectories (``<instance>.traj``, one JSON document) -> one conversation.

A trajectory holds ``history`` (the chat as sent: role system / user / assistant / tool, content,
``agent``, ``message_type``, assistant ``tool_calls`` in the OpenAI shape, tool ``tool_call_ids``,
``thinking_blocks``, demonstrations marked ``is_demo``), ``trajectory`` (steps: thought, action,
response, observation) and ``info`` (``model_stats``: tokens_sent, tokens_received, api_calls,
instance_cost; exit_status). The history is the conversation; without one (very old files) the
steps become a user/assistant text chat. SWE-agent reports usage only as run totals, so there are
no per-call ``provider_calls``; the totals go to ``meta.usage_total``. A run that reports calls but
zero tokens (a demonstration replayed with the ``replay`` model: scripted actions, real environment
output) has no usage to report: it gets a line in ``meta.notes`` instead (it still loads: its history
is what the agent ran, so strategies can replay it; calibration and pricing have nothing to use).
A run with totals gets a note saying it has only those.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ctxlab.datasets.logs.builder import LogBuilder
from ctxlab.datasets.logs.common import Line, LogError, LogFormat, LogSource, as_int, entry, first_str, tool_call

_ROLES = ("system", "user", "assistant", "tool")
_RUN_NAME = re.compile(r"(?P<model>[^_]+(?:_[^_]+)*?)__.+__t-[\d.]+__p-[\d.]+__c-[\d.]+")


def detect(values: list[Any]) -> bool:
    """A trajectory document: a ``trajectory`` list, or a ``history`` list next to ``info``."""
    first = values[0] if values else None
    return isinstance(first, Mapping) and (isinstance(first.get("trajectory"), list) or (
        isinstance(first.get("history"), list) and isinstance(first.get("info"), Mapping)))


def convert(lines: Iterable[Line], source: LogSource) -> dict[str, Any]:
    """Import one trajectory (see the module docstring)."""
    documents = list(lines)
    if len(documents) != 1:
        raise LogError("a trajectory file holds one JSON document", documents[1].where)
    where, traj = documents[0].where, entry(documents[0])
    b = LogBuilder("swe_agent", source)
    history, steps = traj.get("history"), traj.get("trajectory")
    if isinstance(history, list) and history:
        _from_history(b, history, where)
    elif isinstance(steps, list) and steps:
        _from_steps(b, steps, where)
    else:
        raise LogError("neither 'history' nor 'trajectory' is a non-empty list", where)
    _model(b, traj, source)
    _info(b, traj)
    return b.record(source.path.stem)


def _from_history(b: LogBuilder, history: list[Any], where: str) -> None:
    """The chat messages of the main agent (other agents' entries, e.g. a reviewer's, are counted)."""
    agent = next((h.get("agent") for h in history if isinstance(h, Mapping) and h.get("agent")), None)
    for i, item in enumerate(history):
        if not isinstance(item, Mapping) or item.get("role") not in _ROLES:
            raise LogError(f"history[{i}] is not a chat message with a role in {', '.join(_ROLES)}", where)
        if agent and item.get("agent", agent) != agent:
            b.skip(f"agent:{item['agent']}")
            continue
        _history_item(b, item, where, i)
    if any(isinstance(h, Mapping) and h.get("is_demo") for h in history):
        b.meta["demonstration_messages"] = sum(1 for h in history if isinstance(h, Mapping) and h.get("is_demo"))


def _history_item(b: LogBuilder, item: Mapping[str, Any], where: str, i: int) -> None:
    role, text = item["role"], b.text(item.get("content"))
    if role == "tool":
        ids = item.get("tool_call_ids") or ([item["tool_call_id"]] if item.get("tool_call_id") else [])
        if ids:  # SWE-agent answers one call per observation; further ids stay unanswered (repaired)
            b.add("tool", text or "", tool_call_id=str(ids[0]), msg_id=str(ids[0]))
            return
        b.repairs.append(f"history[{i}]: tool observation without tool_call_ids kept as a user message")
        role = "user"
    message = b.add(role, text, tool_calls=_calls(item.get("tool_calls"), where, i) if role == "assistant" else None)
    for block in item.get("thinking_blocks") or []:
        if isinstance(block, Mapping):
            b.think(message, first_str(block.get("thinking"), block.get("text")) or "",
                    **({"redacted": True} if block.get("type") == "redacted_thinking" else {}))


def _calls(value: Any, where: str, i: int) -> list[dict[str, Any]]:
    calls = []
    for call in value or []:
        fn = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(fn, Mapping) or not call.get("id"):
            raise LogError(f"history[{i}] has a tool call without id or function", where)
        calls.append(tool_call(call["id"], fn.get("name"), fn.get("arguments")))
    return calls


def _from_steps(b: LogBuilder, steps: list[Any], where: str) -> None:
    """Old trajectories without a history: each step is the model's response and what it observed."""
    for i, step in enumerate(steps):
        if not isinstance(step, Mapping):
            raise LogError(f"trajectory[{i}] is {type(step).__name__}, not an object", where)
        response = first_str(step.get("response")) or "\n".join(
            t for t in (step.get("thought"), step.get("action")) if isinstance(t, str) and t)
        b.add("assistant", response)
        b.add("user", first_str(step.get("observation")) or "")


def _no_usage(calls: int, replayed: bool) -> str:
    """The note of a run that reports calls but no tokens; a ``replay`` run is a real history with
    scripted actions: worth replaying, nothing to calibrate or price."""
    if not replayed:
        return f"model_stats reports 0 tokens for {calls} calls: no usage to calibrate or price"
    return (f"a demonstration replayed with model 'replay' (scripted actions, real environment output; {calls} "
            "calls, 0 tokens, no provider called): strategies can replay it, calibration and pricing have nothing "
            "to use")


def _info(b: LogBuilder, traj: Mapping[str, Any]) -> None:
    raw_info, raw_stats = traj.get("info"), None
    info: Mapping[str, Any] = raw_info if isinstance(raw_info, Mapping) else {}
    raw_stats = info.get("model_stats")
    stats: Mapping[str, Any] = raw_stats if isinstance(raw_stats, Mapping) else {}
    sent, received, calls = (as_int(stats.get(k)) for k in ("tokens_sent", "tokens_received", "api_calls"))
    if sent or received:
        b.meta["usage_total"] = {"prompt_tokens": sent, "output_tokens": received, "api_calls": calls,
                                 "cost_usd": stats.get("instance_cost")}
        b.meta.setdefault("notes", []).append(f"run totals only: {sent:,} tokens sent in {calls:,} calls")
    elif calls:
        b.meta.setdefault("notes", []).append(_no_usage(calls, b.meta.get("model") == "replay"))
    if info.get("exit_status"):
        b.meta["exit_status"] = info["exit_status"]


def _model(b: LogBuilder, traj: Mapping[str, Any], source: LogSource) -> None:
    """The model: from the trajectory's config, else from its run folder's name, which SWE-agent
    builds as ``{model}__{data}__{config}__t-..__p-..__c-..`` (then ``__install-..``) (``meta.model_source``
    says which)."""
    for key in ("replay_config", "config"):
        model = _model_name(traj.get(key))
        if model:
            b.meta.update(model=model, model_source=key)
            return
    for folder in (source.path.parent, source.path.parent.parent):
        found = _RUN_NAME.match(folder.name)
        if found:
            b.meta.update(model=found["model"], model_source=f"run folder {folder.name}")
            return


def _model_name(config: Any) -> str | None:
    """The model from ``replay_config`` (newer SWE-agent stores that config as a JSON string)."""
    if isinstance(config, str):
        try:
            config = json.loads(config)
        except json.JSONDecodeError:
            return None
    agent = config.get("agent") if isinstance(config, Mapping) else None
    model = agent.get("model") if isinstance(agent, Mapping) else None
    if isinstance(model, Mapping):
        return first_str(model.get("name"), model.get("model_name"))
    return first_str(model)


FORMAT = LogFormat("swe_agent", "json", (".traj", ".json"), detect, convert)
