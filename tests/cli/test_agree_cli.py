"""`ctxlab agree`: one line when no model is configured; with a fake OpenAI endpoint, the table
per policy, the rows stored, and a second run answered by the cache."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from ctxlab import store
from ctxlab.cli import app
from tests.summarize.fake_openai import FakeOpenAI

UNSET = {name: None for name in ("CTXLAB_LLM_MODEL", "CTXLAB_LLM_API_BASE", "CTXLAB_LLM_API_KEY",
                                 "CTXLAB_AGREEMENT_MODEL", "CTXLAB_AGREEMENT_API_BASE", "CTXLAB_AGREEMENT_API_KEY")}


def read_first_file(body: dict) -> dict:
    """A fake model that always reads the first path it finds in a tool call it was shown."""
    calls = [c for m in body["messages"] for c in m.get("tool_calls") or ()]
    path = next((json.loads(c["function"]["arguments"]).get("path") for c in calls), None) or "README.md"
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": "p", "type": "function", "function": {"name": "read_file", "arguments": json.dumps({"path": path})}}]}


def test_without_a_model_it_says_what_to_set_in_one_line(tmp_path):
    db = tmp_path / "a.duckdb"
    result = CliRunner().invoke(app, ["agree", "sample:agent_sessions", "--strategy", "pi", "--window", "8000",
                                      "--db", str(db)], env=UNSET)
    assert result.exit_code == 1
    (line,) = result.output.strip().splitlines()
    assert line.startswith("error: ctxlab agree needs a model") and "CTXLAB_AGREEMENT_MODEL" in line
    assert "Traceback" not in result.output and not db.exists()


def test_agree_prints_agreement_per_policy_and_stores_one_row_per_call(tmp_path):
    db = str(tmp_path / "a.duckdb")
    args = ["agree", "sample:agent_sessions", "--strategy", "observation_masking", "--window", "4000",
            "--limit", "2", "--calls", "2", "--db", db]
    with FakeOpenAI(message_fn=read_first_file) as server:
        env = {**UNSET, "CTXLAB_AGREEMENT_MODEL": "openai/gpt-4o-mini", "CTXLAB_AGREEMENT_API_BASE": server.api_base,
               "CTXLAB_AGREEMENT_API_KEY": "sk-fake", "CTXLAB_LLM_CACHE": str(tmp_path / "llm.duckdb"),
               "COLUMNS": "250"}
        first = CliRunner().invoke(app, args, env=env)
        asked = len(server.requests)
        second = CliRunner().invoke(app, args, env=env)
        assert len(server.requests) == asked  # the cache answers the second run
    assert first.exit_code == 0, first.output
    assert "same tool as the agent" in first.output and "observation_masking" in first.output
    assert f"{asked} call(s) made" in first.output and asked > 0
    assert second.exit_code == 0 and "0 call(s) made, 8 read from the cache" in second.output
    with store.reading(db) as con:
        rows = store.agreement_rows(con)
    assert len(rows) == 2 * 2 * 2  # sessions x calls x (noop + observation_masking)
    assert set(rows["label"]) == {"noop", "observation_masking"} and rows["error"].isna().all()
    assert rows["name_match"].notna().all() and rows["tokens_sent"].gt(0).all()
