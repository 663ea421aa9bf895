"""The knob table against the presets it tunes: parameters that exist, defaults that match, spans
that hold together, a source for every name."""

from __future__ import annotations

import pytest

from ctxlab.errors import CtxlabError, UnknownNameError
from ctxlab.strategies import STRATEGIES, list_strategies, strategy_params
from ctxlab.strategies.policy import Policy
from ctxlab.tune import knobs_for, tunable
from ctxlab.tune.knobs import Span, W
from ctxlab.tune.reference import knob_table, snippet_examples

WINDOWS = (8_000, 64_000, 200_000)
ENTRIES = [knobs_for(p) for p in tunable()]
KNOB_CASES = [(e, k) for e in ENTRIES for k in e.knobs]
# every knob but LangChain's summarization trigger, which has no default in its source
DEFAULTED = [(e, k) for e, k in KNOB_CASES if not (e.preset == "langchain_summarization" and k.name == "trigger")]


def _id(case) -> str:
    return getattr(case, "name", getattr(case, "preset", ""))


# Agent presets without a knob their users write: Claude Code's micro-compaction is remote config.
UNTUNABLE = {"claude_code_microcompact"}


def _agent_presets() -> list[str]:
    """Registered policy presets that follow an agent (not ctxlab's own) through knobs its users write."""
    return [name for name in list_strategies()
            if issubclass(cls := STRATEGIES.get(name), Policy) and not cls.building_block
            and cls.source is not None and cls.source.repo != "ctxlab" and name not in UNTUNABLE]


def test_every_agent_preset_has_an_entry():
    assert set(_agent_presets()) <= set(tunable())
    assert {"pi", "codex", "langchain_trim", "langchain_summarization", "langchain_clear_tool_uses", "openhands",
            "openhands_agent", "inspect_trim", "inspect_edit", "inspect_summary"} <= set(tunable())


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.preset)
def test_pending_means_not_registered_yet(entry):
    # once the agents issue registers a preset, its entry must drop `pending` and meet the registered checks
    assert entry.pending == (entry.preset not in list_strategies())


@pytest.mark.parametrize(("entry", "knob"), DEFAULTED, ids=_id)
def test_knob_parameters_exist(entry, knob):
    valid = set(strategy_params("policy")) | set(entry.adds) if entry.pending else set(strategy_params(entry.preset))
    assert set(knob.params) <= valid
    for window in WINDOWS:
        assert set(knob.encode(knob.default, window)) <= set(knob.params), f"{knob.name} sets undeclared parameters"


@pytest.mark.parametrize(("entry", "knob"), [(e, k) for e, k in DEFAULTED if not e.pending], ids=_id)
@pytest.mark.parametrize("window", WINDOWS)
def test_the_presets_defaults_read_as_the_agents_default(entry, knob, window):
    preset = strategy_params(entry.preset)
    assert knob.decode(preset, window) == knob.decode({**preset, **knob.encode(knob.default, window)}, window)
    if knob.default is not None:
        assert knob.decode(preset, window) == knob.default


def test_langchain_has_no_default_trigger_and_the_preset_says_so():
    knob = knobs_for("langchain_summarization").knob("trigger")
    assert knob.default is None and "never summarizes" in knob.note
    with pytest.raises(CtxlabError, match="never summarizes"):
        knob.encode(None, 64_000)
    assert knob.decode(strategy_params("langchain_summarization"), 64_000) == ("fraction", 0.8)


@pytest.mark.parametrize(("entry", "knob"), KNOB_CASES, ids=_id)
def test_spans_hold_together(entry, knob):
    assert knob.source.where and knob.source.version, f"{knob.name} needs a source and its version"
    if knob.kind in ("bool", "names"):
        assert knob.searched is None
        return
    assert knob.allowed is not None and knob.step > 0
    for window in WINDOWS:
        low, high = knob.allowed.resolve(window)
        if knob.searched is None:
            continue
        s_low, s_high = knob.searched.resolve(window)
        assert s_low is not None and s_high is not None, "a searched span is bounded"
        assert (low is None or s_low >= low) and (high is None or s_high <= high), f"{knob.name} searches outside"


def test_every_form_cites_a_source_and_kinds_are_unique():
    for entry in ENTRIES:
        kinds = [form.kind for form in entry.forms]
        assert kinds and len(kinds) == len(set(kinds)), entry.preset
        for form in entry.forms:
            assert form.source.where and set(form.paths) <= {k.name for k in entry.knobs}


def test_span_resolves_shares_of_the_window():
    assert Span(W(0.5), 100).resolve(64_000) == (32_000, 100)
    assert Span(None, W(1.0)).resolve(10) == (None, 10)


def test_unknown_preset_names_the_known_ones():
    with pytest.raises(UnknownNameError, match="pi"):
        knobs_for("no_such_agent")


def test_openhands_constraint_is_the_validators():
    entry = knobs_for("openhands")
    assert entry.violations({"max_size": 80, "keep_first": 38}) == []  # 80 // 2 - 38 - 1 = 1 > 0
    assert entry.violations({"max_size": 80, "keep_first": 39}) != []


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.preset)
def test_docs_tables_name_every_knob_and_source(entry):
    table = knob_table(entry.preset)
    for knob in entry.knobs:
        assert f"| `{knob.name}` |" in table and str(knob.source) in table
    assert ("is not a registered preset yet" in table) == entry.pending
    assert snippet_examples(entry.preset).count("```") == 2 * len(entry.forms)


def test_an_agent_preset_without_user_settings_says_why_it_cannot_be_tuned():
    from ctxlab.strategies import get_strategy
    from ctxlab.tune.agents import UNTUNABLE

    for preset, why in UNTUNABLE.items():
        get_strategy(preset)  # a registered preset...
        with pytest.raises(CtxlabError, match=f"{preset} cannot be tuned: .*remote config"):
            knobs_for(preset)  # ...whose knobs no user sets
        assert preset not in tunable() and why
