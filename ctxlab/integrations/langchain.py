"""`ContextPolicyMiddleware`: a ctxlab policy as LangChain v1 agent middleware (``pip install 'ctxlab[langchain]'``).

    from langchain.agents import create_agent
    from ctxlab.integrations.langchain import ContextPolicyMiddleware

    agent = create_agent(model, tools, system_prompt=...,
                         middleware=[ContextPolicyMiddleware("recommended", window=128_000)],
                         checkpointer=InMemorySaver())

Why ``wrap_model_call``: LangChain's `SummarizationMiddleware` works in ``before_model`` and
rewrites the stored history (``RemoveMessage(REMOVE_ALL_MESSAGES)``, then the summary and the kept
messages), so the thread loses what it summarized. This middleware leaves the stored history
whole: it wraps the model call, sees the request as the model would get it (system prompt, tools,
messages, after any outer middleware), and hands the model what the policy sends
(``request.override``). What it sent is kept per thread in a private state key (a LangGraph
checkpoint, so a checkpointer carries it across invocations), returned with the response
(`ExtendedModelResponse`'s command), and the next call starts from it plus the new messages: the
step of ctxlab's per-turn replay (`ctxlab.integrations.session`), so the model receives exactly
what the replay measured and a compaction's summary stays the prefix. When the history no longer
begins with the one it carried (another middleware rewrote it, the system prompt changed), the
policy starts again from the whole history, as the replay does after a failed call.

Each call is logged (`ctxlab.integrations.report`) and sent as the LangChain custom event
``ctxlab_context`` (``on_custom_event`` of a callback handler, ``astream_events``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, NamedTuple, NotRequired, cast

from ctxlab.errors import CtxlabError

try:
    from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
    from langchain.agents.middleware.types import ExtendedModelResponse, PrivateStateAttr
    from langchain_core.callbacks import adispatch_custom_event, dispatch_custom_event
    from langchain_core.messages import AnyMessage, SystemMessage
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from langgraph.types import Command
except ImportError as exc:  # the optional extra is not installed
    raise CtxlabError(f"ctxlab.integrations.langchain needs LangChain v1 ({exc.name} is missing): "
                      "pip install 'ctxlab[langchain]'") from None

from ctxlab.integrations import lc_messages, report, stored
from ctxlab.integrations.session import START, PolicyLike, Runner
from ctxlab.messages import Message
from ctxlab.replay.steps import Carry
from ctxlab.tokens import TokenCounter

KEY = "ctxlab_context"  # the private state key holding what the policy carries, per thread


class ContextPolicyState(AgentState):
    """The agent state with the policy's carry (private: not in the agent's input or output)."""

    ctxlab_context: NotRequired[Annotated[dict[str, Any], PrivateStateAttr]]


class _Prepared(NamedTuple):
    request: ModelRequest
    state: dict[str, Any]
    record: dict[str, Any]


class ContextPolicyMiddleware(AgentMiddleware):
    """Hands the model exactly what a ctxlab policy sends, call by call, per thread.

    Args:
        policy: any spec `ctxlab.get_strategy` takes (``"recommended"``, ``"pi:keep_tokens=12000"``,
            ``"recommended:summarizer=llm"``) or a strategy object.
        window: the model's context window in tokens.
        counter: the counter the window is measured with (default: the policy's own, else o200k_base).

    Raises:
        UnknownNameError: an unknown policy, parameter or counter.
        CtxlabError: a window that is not a positive integer.
    """

    state_schema = ContextPolicyState

    def __init__(self, policy: PolicyLike = "recommended", *, window: int,
                 counter: str | TokenCounter | None = None) -> None:
        super().__init__()
        self.runner = Runner.build(policy, window, counter)
        self._tools: dict[int, tuple[Any, dict[str, Any]]] = {}

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> Any:
        prepared = self._prepare(request)
        try:
            dispatch_custom_event(report.EVENT, prepared.record)
        except RuntimeError:  # no LangChain run to report to (the handler called outside an agent)
            pass
        return ExtendedModelResponse(handler(prepared.request), Command(update={KEY: prepared.state}))

    async def awrap_model_call(self, request: ModelRequest,
                               handler: Callable[[ModelRequest], Awaitable[ModelResponse]]) -> Any:
        # Off the event loop: a policy may tokenize a long history or call an LLM summarizer.
        prepared = await asyncio.to_thread(self._prepare, request)
        try:
            await adispatch_custom_event(report.EVENT, prepared.record)
        except RuntimeError:
            pass
        return ExtendedModelResponse(await handler(prepared.request), Command(update={KEY: prepared.state}))

    def _prepare(self, request: ModelRequest) -> _Prepared:
        given = [request.system_message, *request.messages] if request.system_message else list(request.messages)
        history = lc_messages.to_ctxlab(given)
        kept: dict[str, Any] = cast("dict[str, Any]", request.state).get(KEY) or {}
        # Usage recorded once the policy had changed what it sends describes another prompt.
        limit = kept.get("changed_at")
        calls = [c for c in lc_messages.recorded(given) if limit is None or c.covers < limit]
        result, after = self.runner.step(history, self._openai_tools(request.tools), _resume(kept, history), calls)
        if limit is None and not after.carry.pristine:
            limit = len(history)
        call = kept.get("calls", 0) + 1
        state = {"calls": call, "changed_at": limit, "carry": stored.dump(after)}
        return _Prepared(_override(request, result.messages, history, given), state, report.log(result, call))

    def _openai_tools(self, tools: list[Any]) -> list[dict[str, Any]]:
        """The request's tools in the OpenAI form ctxlab counts, converted once per tool object."""
        out = []
        for tool in tools:
            if id(tool) not in self._tools:  # the tool is held with its conversion, so its id stays its own
                self._tools[id(tool)] = (tool, convert_to_openai_tool(tool))
            out.append(self._tools[id(tool)][1])
        return out


def _resume(kept: dict[str, Any], history: tuple[Message, ...]) -> Carry:
    """The carry the thread's state holds, when the history still begins with what it stands for."""
    tracked = stored.load(kept["carry"], history) if kept else START
    if tracked is None:
        report.logger.warning("the history is not the one the policy carried plus new messages; "
                              "starting again from the whole history")
        return START.carry
    return tracked.carry


def _override(request: ModelRequest, sent: tuple[Message, ...], history: tuple[Message, ...],
              given: list[Any]) -> ModelRequest:
    """`request` with what the policy sent: a system message first becomes the system message."""
    messages = lc_messages.to_langchain(sent, {m.id: lc for m, lc in zip(history, given, strict=True)})
    system = cast("SystemMessage", messages[0]) if messages and messages[0].type == "system" else None
    rest = cast("list[AnyMessage]", messages[1:] if system is not None else messages)
    return request.override(system_message=system, messages=rest)


__all__ = ["KEY", "ContextPolicyMiddleware", "ContextPolicyState"]
