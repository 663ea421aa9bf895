"""`learned:model=PATH` through the integrations: `ctxlab.apply` called before each model call and
the LangChain middleware send what ctxlab's per-turn replay of the same policy sends, with the
model file shipped in the package and with one `ctxlab learn` wrote; the file named is the model
that ranks, and its ranking changes what is sent (the calls differ from `recommended`'s)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from langchain_core.messages import convert_to_openai_messages
from typer.testing import CliRunner

import ctxlab
from ctxlab.cli import app
from ctxlab.integrations import openai
from ctxlab.integrations.langchain import ContextPolicyMiddleware
from ctxlab.messages import Conversation
from ctxlab.replay.steps import replay_steps
from ctxlab.strategies.mechanics.need_model import NeedModel
from tests.integrations.agent_script import conversation, run

SESSIONS = list(itertools.islice(ctxlab.load_conversations("sample:agent_sessions"), 3))
WINDOW = 4000


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model `ctxlab learn` wrote: fitted on ten bundled sessions, judged on none."""
    folder = tmp_path_factory.mktemp("learned")
    out = folder / "mine.json"
    result = CliRunner().invoke(app, ["learn", "sample:agent_sessions", "--limit", "10", "--split", "none",
                                      "--out", str(out), "--db", str(folder / "learn.duckdb")])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(params=["shipped", "written"])
def model(request: pytest.FixtureRequest) -> Path:
    return NeedModel.default_path() if request.param == "shipped" else request.getfixturevalue("written")


def test_the_written_model_is_another_model_than_the_shipped_one(written: Path) -> None:
    mine = NeedModel.load(written)
    assert mine != NeedModel.default() and len(mine.about["trained_on"]) == 10
    assert ctxlab.get_strategy(f"learned:model={written}").need_model == mine


def test_apply_sends_what_the_replay_sends(model: Path) -> None:
    policy, differs = f"learned:model={model}", 0
    for conv in SESSIONS:
        given = [m.to_openai() for m in conv.messages]
        state, plain = ctxlab.ApplyState(), ctxlab.ApplyState()
        steps = list(replay_steps(ctxlab.get_strategy(policy), Conversation("s", openai.parse(given), conv.tools),
                                  WINDOW, ctxlab.get_counter("o200k_base"), "per-turn"))
        for step in steps:
            assert step.error is None
            out = ctxlab.apply(given[:step.turn], policy, WINDOW, state=state, counter="o200k_base", tools=conv.tools)
            assert out == [m.to_openai() for m in step.result.messages], f"{conv.id} call at {step.turn}"
            differs += out != ctxlab.apply(given[:step.turn], "recommended", WINDOW, state=plain,
                                           counter="o200k_base", tools=conv.tools)
    assert differs, "the model's ranking should change some call against recommended's"


def test_the_langchain_middleware_sends_what_the_replay_sends(model: Path) -> None:
    middleware = ContextPolicyMiddleware(f"learned:model={model}", window=6000)
    assert middleware.runner.strategy.need_model == NeedModel.load(model)
    seen, history = run([middleware])
    conv, counter = conversation(history), middleware.runner.counter
    steps = list(replay_steps(middleware.runner.strategy, conv, 6000, counter, "per-turn"))
    assert len(seen.seen) == len(steps) == 40
    for k, (sent, step) in enumerate(zip(seen.seen, steps, strict=True)):
        assert step.error is None
        assert convert_to_openai_messages(sent) == [m.to_openai() for m in step.result.messages], f"call {k}"
    assert all(s.result.fits for s in steps) and any(s.result.dropped_ids or s.result.truncated_ids for s in steps)
    plain, _ = run([ContextPolicyMiddleware("recommended", window=6000)])
    assert any(convert_to_openai_messages(a) != convert_to_openai_messages(b)
               for a, b in zip(seen.seen, plain.seen, strict=True)), "the ranking should change some call"
