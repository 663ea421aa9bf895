"""Snippets in each agent's own terms: they parse with the real parser, carry the source's names,
and survive the round trips text -> parameters -> text and values -> parameters -> values."""

from __future__ import annotations

import ast
import json
import shlex
import tomllib

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxlab.errors import CtxlabError
from ctxlab.tune import knobs_for, parse_snippet, render_snippets, tunable, written_values
from ctxlab.tune.space import dimensions, on_step

WINDOW = 64_000

# The names each agent's source defines, written here from the sources (see docs/tuning.md), not
# read from the table: a table entry that drifts from its source fails here.
EXPECTED = {
    ("pi", "json"): {"compaction.enabled", "compaction.reserveTokens", "compaction.keepRecentTokens"},
    ("codex", "toml"): {"model_auto_compact_token_limit"},
    ("codex", "cli"): {"-c model_auto_compact_token_limit"},
    ("langchain_summarization", "python"): {"SummarizationMiddleware.model", "SummarizationMiddleware.trigger",
                                            "SummarizationMiddleware.keep"},
    ("langchain_clear_tool_uses", "python"): {"ContextEditingMiddleware.edits", "ClearToolUsesEdit.trigger",
                                              "ClearToolUsesEdit.keep"},
    ("langchain_trim", "python"): {"trim_messages.max_tokens", "trim_messages.strategy", "trim_messages.token_counter",
                                   "trim_messages.include_system", "trim_messages.start_on"},
    ("openhands", "python"): {"LLMSummarizingCondenser.llm", "LLMSummarizingCondenser.max_size",
                              "LLMSummarizingCondenser.keep_first", "LLMSummarizingCondenser.max_tokens",
                              "LLMSummarizingCondenser.minimum_progress"},
    ("openhands", "json"): {"kind", "max_size", "keep_first", "max_tokens", "minimum_progress"},
    ("inspect_trim", "python"): {"CompactionTrim.threshold", "CompactionTrim.preserve"},
    ("inspect_edit", "python"): {"CompactionEdit.threshold", "CompactionEdit.keep_tool_uses"},
    ("inspect_summary", "python"): {"CompactionSummary.threshold"},
    ("claude_code", "env"): {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"},
    ("claude_code", "json"): set(),  # the default threshold is no percentage: the variable stays unset
    ("anthropic_context_editing", "json"): {
        "context_management.edits.0.type", "context_management.edits.0.trigger.type",
        "context_management.edits.0.trigger.value", "context_management.edits.0.keep.type",
        "context_management.edits.0.keep.value", "context_management.edits.0.clear_tool_inputs"},
    ("anthropic_compaction", "json"): {"context_management.edits.0.type", "context_management.edits.0.trigger.type",
                                       "context_management.edits.0.trigger.value"},
    ("gemini_cli", "json"): {"model.compressionThreshold",
                             "contextManagement.tools.outputMasking.protectionThresholdTokens",
                             "contextManagement.tools.outputMasking.minPrunableThresholdTokens",
                             "contextManagement.tools.outputMasking.protectLatestTurn"},
    ("opencode", "json"): {"$schema", "compaction.auto", "compaction.prune", "compaction.reserved"},
    ("aider", "yaml"): {"max-chat-history-tokens"},
    ("aider", "cli"): {"--max-chat-history-tokens"},
    ("aider", "env"): {"AIDER_MAX_CHAT_HISTORY_TOKENS"},
    ("goose", "env"): {"GOOSE_AUTO_COMPACT_THRESHOLD"},
    ("goose", "yaml"): {"GOOSE_AUTO_COMPACT_THRESHOLD"},
    ("cline", "json"): {"compaction.enabled", "compaction.strategy", "compaction.preserveRecentTokens"},
    ("letta", "json"): {"compaction_settings.mode", "compaction_settings.sliding_window_percentage"},
    ("learned", "python"): {"get_strategy.model", "get_strategy.trigger_events", "get_strategy.rescue_share"},
}
IMPORTS = {"langchain_summarization": "langchain.agents.middleware", "langchain_clear_tool_uses":
           "langchain.agents.middleware", "langchain_trim": "langchain_core.messages",
           "openhands": "openhands.sdk.context.condenser", "openhands_agent": "openhands.sdk.context.condenser",
           "inspect_trim": "inspect_ai.model", "inspect_edit": "inspect_ai.model", "inspect_summary": "inspect_ai.model",
           "learned": "ctxlab"}
# names the source defines that a snippet carries only when set
OPTIONAL = {("claude_code", "json"): {"env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"},
            ("anthropic_context_editing", "json"): {"context_management.edits.0.clear_at_least.type",
                                                    "context_management.edits.0.clear_at_least.value",
                                                    "context_management.edits.0.exclude_tools"}}
EXPECTED[("openhands_agent", "python")] = EXPECTED[("openhands", "python")]
EXPECTED[("openhands_agent", "json")] = EXPECTED[("openhands", "json")]
FORMS = sorted((entry.preset, form.kind) for entry in map(knobs_for, tunable()) for form in entry.forms)


def names_in(kind: str, text: str) -> set[str]:
    """The names a snippet uses, read with the real parser of its kind."""
    if kind == "json":
        return _leaves(json.loads(text))
    if kind == "toml":
        return _leaves(tomllib.loads(text))
    if kind == "yaml":
        return _leaves(yaml.safe_load(text))
    if kind == "python":
        return {f"{_call(node)}.{k.arg}" for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Call)
                for k in node.keywords}
    if kind == "env":
        return {shlex.split(line)[1].partition("=")[0] for line in text.splitlines()}
    words = shlex.split(text)
    return {f"{a} {b.partition('=')[0]}" if a == "-c" else a for a, b in zip(words, words[1:], strict=False)
            if a.startswith("-")}


def _leaves(doc, prefix: str = "") -> set[str]:
    if isinstance(doc, dict):
        return {name for key, value in doc.items() for name in _leaves(value, f"{prefix}{key}.")}
    if isinstance(doc, list) and doc and isinstance(doc[0], dict):
        return {name for i, value in enumerate(doc) for name in _leaves(value, f"{prefix}{i}.")}
    return {prefix[:-1]}


def _call(node: ast.Call) -> str:
    return node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")


def test_every_form_is_pinned_here():
    assert set(FORMS) == set(EXPECTED)


@pytest.mark.parametrize(("preset", "kind"), FORMS)
def test_default_snippet_parses_with_the_sources_names(preset, kind):
    snippet = next(s for s in render_snippets(preset, {}, WINDOW) if s.kind == kind)
    assert names_in(kind, snippet.text) == EXPECTED[(preset, kind)]
    assert snippet.source and snippet.title
    if kind == "python":
        modules = {n.module for n in ast.walk(ast.parse(snippet.text)) if isinstance(n, ast.ImportFrom)}
        assert IMPORTS[preset] in modules


@pytest.mark.parametrize("window", [8000, 200_000])
def test_claude_code_s_default_leaves_the_override_unset(window):
    # Its default threshold is window - min(max output, 20k) - 13k, not a percentage: written as one
    # it read 83.5 at 200k (not an allowed 1-100 integer) and -312.5 at 8k.
    env, json_form = render_snippets("claude_code", {}, window)
    assert env.text == "unset CLAUDE_AUTOCOMPACT_PCT_OVERRIDE" and json.loads(json_form.text) == {}
    for snippet in (env, json_form):
        assert parse_snippet("claude_code", snippet.text, window, snippet.kind) == {
            "trigger": "reserve", "trigger_reserve": 13000}


def test_langchain_trim_snippet_runs_against_langchain_core():
    text = render_snippets("langchain_trim", {"keep_tokens": 5000}, WINDOW)[0].text
    namespace: dict = {"messages": []}
    exec(compile(text, "<snippet>", "exec"), namespace)  # the real trim_messages checks every keyword
    assert namespace["messages"] == []


def _values(preset: str):
    """Written values for every knob of `preset`: searched knobs anywhere on their span (in the
    agent's other written forms too), the others from small strategies."""
    entry = knobs_for(preset)
    dims = {d.name: d for d in dimensions(entry, WINDOW)}
    parts = {}
    for knob in entry.knobs:
        if knob.name in dims:
            d = dims[knob.name]
            number = st.floats(d.low, d.high).map(lambda x, k=knob: k.write(on_step(x, k)))
            parts[knob.name] = st.one_of(number, *_other_forms(preset, knob.name))
        elif knob.kind == "bool":
            parts[knob.name] = st.booleans()
        else:
            parts[knob.name] = st.one_of(st.none(), st.lists(st.from_regex(r"[a-z_]{1,12}", fullmatch=True),
                                                             min_size=1, max_size=3).map(tuple))
    return st.fixed_dictionaries(parts).filter(lambda v: not entry.violations(v))


def _other_forms(preset: str, name: str) -> list:
    if (preset, name) == ("langchain_summarization", "trigger"):
        return [st.integers(1, WINDOW).map(lambda n: ("tokens", n))]
    if name == "threshold":  # inspect_ai: an int is tokens
        return [st.integers(2, WINDOW)]
    return []


def _params(preset: str, values) -> dict:
    entry = knobs_for(preset)
    params: dict = {}
    for name, value in values.items():
        params |= entry.knob(name).encode(value, WINDOW)
    return params


@pytest.mark.parametrize("preset", tunable())
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_round_trips(preset, data):
    values = data.draw(_values(preset))
    params = _params(preset, values)
    assert written_values(preset, params, WINDOW) == values  # values -> parameters -> values
    for snippet in render_snippets(preset, params, WINDOW):
        names = EXPECTED[(preset, snippet.kind)] | OPTIONAL.get((preset, snippet.kind), set())
        assert EXPECTED[(preset, snippet.kind)] <= names_in(snippet.kind, snippet.text) <= names
        back = parse_snippet(preset, snippet.text, WINDOW, snippet.kind)
        again = next(s for s in render_snippets(preset, back, WINDOW) if s.kind == snippet.kind)
        assert again.text == snippet.text  # text -> parameters -> text
        assert written_values(preset, back, WINDOW) == values


def test_units_convert_to_the_agents():
    claude = render_snippets("claude_code", {"trigger": "share", "trigger_share": 0.75}, WINDOW)
    assert claude[0].text == "export CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=75"
    assert json.loads(claude[1].text) == {"env": {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "75"}}
    codex = render_snippets("codex", {}, WINDOW)[0].text  # unset: 90% of the window, as an absolute limit
    assert tomllib.loads(codex) == {"model_auto_compact_token_limit": 57_600}
    assert parse_snippet("codex", "model_auto_compact_token_limit = 40000", WINDOW) == {
        "trigger": "tokens", "trigger_tokens": 40_000}
    pi = parse_snippet("pi", '{"compaction": {"reserveTokens": 10000}}', WINDOW)
    assert pi == {"trigger": "reserve", "trigger_reserve": 10_000, "summary_max_tokens": 8000, "prefix_max_tokens": 5000,
                  "keep_tokens": 20_000}  # keepRecentTokens left out: pi's default


def test_inspect_threshold_keeps_its_type():
    share = render_snippets("inspect_summary", {"trigger": "share", "trigger_share": 1.0}, WINDOW)[0].text
    tokens = render_snippets("inspect_summary", {"trigger": "tokens", "trigger_tokens": 1}, WINDOW)[0].text
    assert "threshold=1.0)" in share and "threshold=1)" in tokens
    assert parse_snippet("inspect_summary", share, WINDOW)["trigger"] == "share"
    assert parse_snippet("inspect_summary", tokens, WINDOW)["trigger"] == "tokens"
    assert parse_snippet("inspect_summary", "CompactionSummary(threshold=2.5)", WINDOW) == {
        "trigger": "tokens", "trigger_tokens": 2}  # a float above 1.0 is int(threshold) tokens


def test_the_late_2026_presets_render_their_agents_defaults():
    text = render_snippets("goose", {}, WINDOW)[0].text
    assert text == "export GOOSE_AUTO_COMPACT_THRESHOLD=0.8"
    assert render_snippets("aider", {}, WINDOW)[0].text == "max-chat-history-tokens: 4000"  # 64000 / 16
    assert parse_snippet("aider", "max-chat-history-tokens: 2048", WINDOW) == {"trigger": "tokens",
                                                                            "trigger_tokens": 2048}
    opencode = json.loads(render_snippets("opencode", {"trigger_reserve": 30_000, "trigger_reply": 0}, WINDOW)[0].text)
    assert opencode["compaction"] == {"auto": True, "prune": True, "reserved": 30_000}
    assert parse_snippet("opencode", '{"compaction": {"reserved": 30000, "prune": false}}', WINDOW) == {
        "trigger": "reserve", "trigger_reserve": 30_000, "trigger_reply": 0, "prune": False}
    gemini = json.loads(render_snippets("gemini_cli", {"prune_skip_messages": 1}, WINDOW)[0].text)
    assert gemini["contextManagement"]["tools"]["outputMasking"]["protectLatestTurn"] is False
    assert json.loads(render_snippets("letta", {}, WINDOW)[0].text) == {"compaction_settings": {
        "mode": "sliding_window", "sliding_window_percentage": 0.3}}


@pytest.mark.parametrize(("preset", "text", "kind", "message"), [
    ("pi", "{not json", "json", "does not parse as json"),
    ("codex", "model_auto_compact_token_limit = ", "toml", "does not parse as toml"),
    ("openhands", "LLMSummarizingCondenser(llm=llm, max_size=80, keep_first=39)", "python", "keep_first must be less"),
    ("langchain_summarization", 'SummarizationMiddleware(keep=("tokens", 3000), trigger=("fraction", 0.5))',
     "python", "keeps messages only"),
    ("langchain_summarization", 'SummarizationMiddleware(keep=("messages", 10))', "python", "never summarizes"),
    ("pi", "{}", "toml", "pi has no toml form"),
])
def test_bad_snippets_say_why(preset, text, kind, message):
    with pytest.raises(CtxlabError, match=message):
        parse_snippet(preset, text, WINDOW, kind)


@pytest.fixture(scope="module")
def one_session():
    from ctxlab.tune import Sessions

    return Sessions.load(["sample:agent_sessions"], limit=1)


@pytest.mark.parametrize("preset", tunable())
def test_a_search_s_pick_renders_snippets_that_parse_with_the_source_s_names(preset, one_session):
    from ctxlab.tune import tune

    window = 64_000 if preset == "anthropic_compaction" else 4000  # the API refuses a trigger under 50,000
    result = tune(one_session, preset, window=window, trials=3).result
    chosen = result.evaluations[result.pick.row if result.pick is not None else -1].setting
    snippets = render_snippets(preset, chosen.params, window)
    assert {s.kind for s in snippets} == {kind for p, kind in FORMS if p == preset}
    for snippet in snippets:
        names = names_in(snippet.kind, snippet.text)
        assert EXPECTED[(preset, snippet.kind)] <= names <= EXPECTED[(preset, snippet.kind)] | OPTIONAL.get(
            (preset, snippet.kind), set()), snippet.text
