"""The knobs each agent's preset declares: parameters that exist, the preset's fields that are the
knobs' defaults, spans that hold together, a source for every name."""

from __future__ import annotations

import pytest

from ctxlab.errors import CtxlabError, UnknownNameError
from ctxlab.strategies import STRATEGIES, list_strategies, strategy_params
from ctxlab.strategies.policy import Policy
from ctxlab.strategies.policy.knobs import Span, W
from ctxlab.tune import knobs_for, tunable
from ctxlab.tune.reference import knob_table, snippet_examples

WINDOWS = (8_000, 64_000, 200_000)
ENTRIES = [knobs_for(p) for p in tunable()]
KNOB_CASES = [(e, k) for e in ENTRIES for k in e.knobs]
# every knob the preset replays at the agent's default (LangChain's summarization trigger has none)
DEFAULTED = [(e, k) for e, k in KNOB_CASES if k.preset_value is k.default]


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


@pytest.mark.parametrize(("entry", "knob"), KNOB_CASES, ids=_id)
def test_knob_parameters_exist(entry, knob):
    assert set(knob.params) <= set(strategy_params(entry.preset))
    for window in WINDOWS:
        assert set(knob.encode(knob.preset_value, window)) <= set(knob.params), f"{knob.name} sets undeclared fields"


@pytest.mark.parametrize(("entry", "knob"), KNOB_CASES, ids=_id)
def test_the_presets_fields_are_the_knobs_defaults_encoded(entry, knob):
    """Each default is written once: the preset's fields a knob sets are its value, encoded."""
    preset = strategy_params(entry.preset)
    assert {k: preset[k] for k in knob.encode(knob.preset_value, 64_000)} == knob.encode(knob.preset_value, 64_000)


@pytest.mark.parametrize(("entry", "knob"), DEFAULTED, ids=_id)
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
    cited = entry.cite(knob.where)
    assert cited.repo and cited.path and cited.version, f"{knob.name} needs a source and its version"
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
            cited = entry.cite(form.where)
            assert cited.repo and cited.version and set(form.paths) <= {k.name for k in entry.knobs}


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
        assert f"| `{knob.name}` |" in table and str(entry.cite(knob.where)) in table
    assert snippet_examples(entry.preset).count("```") == 2 * len(entry.forms)


def test_an_agent_preset_without_user_settings_says_why_it_cannot_be_tuned():
    for preset in UNTUNABLE:
        why = STRATEGIES.get(preset).untunable  # a registered preset...
        with pytest.raises(CtxlabError, match=f"{preset} cannot be tuned: .*remote config"):
            knobs_for(preset)  # ...whose knobs no user sets
        assert preset not in tunable() and why
    assert not [name for name in list_strategies() if STRATEGIES.get(name).untunable and name not in UNTUNABLE]
