"""A scripted LangChain agent: three tools, langchain-core's fake chat model, 40 model calls.

Ten user requests on one thread; for each, the model reads a file, greps and runs one test file
(two calls in one message), runs the whole suite, then answers: four calls a request. The fake
model records every message list it is handed, so a test can compare it with ctxlab's replay.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.tools import tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from ctxlab.integrations.lc_messages import to_ctxlab
from ctxlab.messages import Conversation
from tests.builders import huge_text, prose

SYSTEM = "You are a careful coding agent. Read before you edit; run the tests after every change."
REQUESTS = 10
THREAD = {"configurable": {"thread_id": "session-1"}}


@tool
def read_file(path: str) -> str:
    """Read a file of the repository."""
    return huge_text(2400 + 40 * len(path), head=f"# {path}\n", tail=f"\n# end of {path}")


@tool
def grep(pattern: str) -> str:
    """Search the repository for a pattern."""
    return "\n".join(f"src/mod{i}.py:{10 * i + 3}: def {pattern}_{i}(config):" for i in range(6))


@tool
def run_tests(target: str) -> str:
    """Run the tests under a path."""
    return f"$ pytest {target}\n" + prose(1100, offset=len(target)) + f"\n== 12 passed, 1 failed in {target} =="


TOOLS = (read_file, grep, run_tests)


class RecordingFakeModel(GenericFakeChatModel):
    """langchain-core's fake chat model, bound to tools as a real one is, recording each prompt."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> RecordingFakeModel:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def call(u: int, k: int, name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args, "id": f"call_{u}_{k}", "type": "tool_call"}


def replies(usage: bool = False) -> Iterator[AIMessage]:
    """The model's 40 replies, four per request; with `usage`, each carries the provider usage a
    real model reports (a prompt of 150 tokens more at every call, scripted)."""
    for u in range(REQUESTS):
        for k, reply in enumerate((
                AIMessage("", tool_calls=[call(u, 0, "read_file", path=f"src/mod{u}.py")]),
                AIMessage(f"Checking who calls load_{u}.", tool_calls=[
                    call(u, 1, "grep", pattern=f"load_{u}"), call(u, 2, "run_tests", target=f"tests/test_mod{u}.py")]),
                AIMessage("", tool_calls=[call(u, 3, "run_tests", target="tests")]),
                AIMessage(f"Step {u} is done: load_{u} in src/mod{u}.py now validates its config. {prose(300, u)}"))):
            prompt = 150 * (4 * u + k + 1)
            yield reply.model_copy(update={"usage_metadata": {"input_tokens": prompt, "output_tokens": 40,
                                                              "total_tokens": prompt + 40}}) if usage else reply


def agent(middleware: Sequence[Any] = (), *, usage: bool = False) -> tuple[RecordingFakeModel, Any]:
    """The scripted model and an agent around it, with a checkpointer (the thread keeps its state)."""
    model = RecordingFakeModel(messages=replies(usage))
    return model, create_agent(model, list(TOOLS), system_prompt=SYSTEM, middleware=list(middleware),
                               checkpointer=InMemorySaver())


def request(u: int) -> dict[str, Any]:
    text = f"Request {u}: make load_{u} in src/mod{u}.py validate its config. {prose(200, u)}"
    return {"messages": [{"role": "user", "content": text}]}


def run(middleware: Sequence[Any] = (), callbacks: Sequence[Any] = (), *,
        usage: bool = False) -> tuple[RecordingFakeModel, list[BaseMessage]]:
    """Drive the agent through the ten requests; the model and the thread's final history."""
    model, graph = agent(middleware, usage=usage)
    state: dict[str, Any] = {}
    for u in range(REQUESTS):
        state = graph.invoke(request(u), THREAD | {"callbacks": list(callbacks)})
    return model, state["messages"]


async def arun(middleware: Sequence[Any] = ()) -> tuple[RecordingFakeModel, list[BaseMessage]]:
    """`run`, with ``ainvoke``."""
    model, graph = agent(middleware)
    state: dict[str, Any] = {}
    for u in range(REQUESTS):
        state = await graph.ainvoke(request(u), THREAD)
    return model, state["messages"]


def conversation(history: Sequence[BaseMessage]) -> Conversation:
    """The agent's session as ctxlab replays it: the system prompt, the thread, the tools, and the
    usage the model reported for each call, as an agent log records it."""
    given = [SystemMessage(SYSTEM), *history]
    calls = [{"index": i, "model": "fake", "prompt_tokens": m.usage_metadata["input_tokens"],
              "output_tokens": m.usage_metadata["output_tokens"]}
             for i, m in enumerate(given) if isinstance(m, AIMessage) and m.usage_metadata]
    return Conversation("langchain-agent", to_ctxlab(given), tuple(convert_to_openai_tool(t) for t in TOOLS),
                        {"provider_calls": calls} if calls else {})
