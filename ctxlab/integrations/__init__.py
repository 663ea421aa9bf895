"""Run a ctxlab policy inside an agent: on plain chat-message lists, or as LangChain middleware.

    import ctxlab
    send = ctxlab.apply(history, "recommended", 128_000, state=state)          # OpenAI or Anthropic lists

    from ctxlab.integrations.langchain import ContextPolicyMiddleware          # pip install 'ctxlab[langchain]'
    agent = create_agent(model, tools, middleware=[ContextPolicyMiddleware("recommended", window=128_000)])

Both step a policy call by call as ctxlab's per-turn replay does (`session`), so what it sends in
an agent is what ctxlab measured. The LangChain module imports LangChain, so it is not imported here.
"""

from __future__ import annotations

from ctxlab.integrations.chat import FORMATS, ApplyState, apply
from ctxlab.integrations.session import StateMismatchError, WindowTooSmallError

__all__ = ["FORMATS", "ApplyState", "StateMismatchError", "WindowTooSmallError", "apply"]
