"""The docs generated from the code: the CLI reference and the strategy parameter tables."""

from __future__ import annotations

import pytest

from ctxlab.cli.reference import cli_reference, docstring_attributes, preset_changes, strategy_table
from ctxlab.strategies import STRATEGIES, list_strategies, strategy_params


@pytest.mark.parametrize("name", list_strategies())
def test_source_names_name_parameters_the_table_shows(name: str):
    """A group naming a parameter the strategy does not have would vanish from the docs silently;
    a preset's unchanged parameter its source names (a knob its users set) is shown, in the row of
    its group beside the source's names. A strategy without source names gets no empty column."""
    params = strategy_params(name)
    table = strategy_table(name)
    header, _, *rows = table.splitlines()
    groups = STRATEGIES.get(name).source_names
    assert ("| source |" in header) == any(names for _, names in groups), (name, header)
    for group, names in groups:
        keys = [p.strip() for p in group.split(",")]
        assert all(p in params for p in keys), (name, group)
        row = [r for r in rows if r.startswith("| " + ", ".join(f"`{p}`" for p in keys) + " |")]
        cell = " ".join(names.split()).replace("|", "\\|")  # as a markdown cell writes them
        assert len(row) == 1 and cell in row[0], (name, group)


@pytest.mark.parametrize("name", list_strategies())
def test_every_parameter_a_table_should_show_is_in_it(name: str):
    table = strategy_table(name)
    shown = preset_changes(STRATEGIES.get(name)) or strategy_params(name)
    assert all(f"`{p}`" in table for p in shown), name


def test_a_preset_table_lists_only_what_it_changes_with_the_sources_names():
    table = strategy_table("codex", "Codex")
    assert table.splitlines()[0] == "| parameter | default | Codex |"
    assert "| `trigger`, `trigger_share`, `trigger_inclusive` | `\"share\"`, `0.9`, `True` |" in table
    assert "`summarizer`" not in table  # unchanged from the policy model


def test_docstring_attributes_join_continuation_lines_and_shared_entries():
    doc = "Title.\n\nAttributes:\n    a: first line\n        continued.\n    b, c: shared.\n\nReturns:\n    x: no."
    assert docstring_attributes(doc) == {"a": "first line continued.", "b": "shared.", "c": "shared."}


def test_cli_reference_has_every_command_and_its_options():
    text = cli_reference()
    for command in ("replay", "recommend", "cost", "logs check", "calibrate", "demo"):
        assert f"### `ctxlab {command}" in text, command
    assert "`--price-model`" in text and "`--window`" in text
    assert "`--budget`" not in text  # replay's hidden alias of --window (docs/cli.md says so in prose)
