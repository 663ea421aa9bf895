"""Specs stored before `Policy` split ``trigger_value``/``tail_value`` by unit still build the same policy."""

from __future__ import annotations

import pytest

from ctxlab.strategies import StrategySpec, get_strategy

# A pi spec as a run stored it (the `params` column of result_rows) before the split.
OLD_PI = ('{"name": "pi", "params": {"context_window": 0, "fold_previous": true, "head": "system", "keep_first": 0, '
          '"mask_keep": 3, "mask_order": "results", "mask_placeholder": "[cleared]", "middle": "summarize", '
          '"model": "", "passes": 1, "placement": "after_head", "prefix_max_tokens": 8192, "repair_orphans": false, '
          '"snap": "valid_cut", "split_turns": true, "start_on_user": false, "strip_trailing_assistant": "none", '
          '"summarizer": "extractive", "summary_input_tokens": 0, "summary_max_tokens": 13107, '
          '"tail": "recent_tokens", "tail_counter": "pi_chars4", "tail_value": 20000.0, "trigger": "reserve", '
          '"trigger_counter": "reference", "trigger_events": 0, "trigger_inclusive": false, "trigger_value": 16384.0, '
          '"voice": "pi"}}')


def test_a_stored_pi_spec_rebuilds_the_current_pi() -> None:
    built = StrategySpec.from_json(OLD_PI).build()
    assert built == get_strategy("pi")
    assert (built.trigger_reserve, built.keep_tokens, built.trigger_counter) == (16384, 20000, "request")


@pytest.mark.parametrize(("name", "old", "new"), [
    ("pi", {"trigger_value": 100.0, "tail_value": 1500.0}, {"trigger_reserve": 100, "keep_tokens": 1500}),
    ("codex", {"trigger_value": 0.5, "tail_value": 40.0}, {"trigger_share": 0.5, "keep_tokens": 40}),
    ("langchain_trim", {"tail_value": 300.0}, {"keep_tokens": 300}),
    ("langchain_summarization", {"tail_value": 3.0}, {"keep_messages": 3}),
    ("langchain_clear_tool_uses", {"trigger_value": 5000.0}, {"trigger_tokens": 5000}),
    ("inspect_trim", {"tail_value": 0.4}, {"keep_message_share": 0.4}),
    ("openhands", {"tail_value": 0.2}, {"min_progress": 0.2}),
    ("recommended", {"trigger_value": 0.5, "tail_value": 0.3}, {"trigger_share": 0.5, "target_share": 0.3}),
    ("policy", {"tail": "recent_messages", "snap": "owner", "tail_value": 4.0},
     {"tail": "recent_messages", "snap": "owner", "keep_messages": 4}),
    ("policy", {"tail_value": 7.0, "trigger_value": 0.5}, {}),  # kinds that read no size: ignored, as before
    ("inspect_edit", {"trigger_counter": "reference", "tail_counter": "reference"},
     {"trigger_counter": "request", "tail_counter": "request"}),
])
def test_old_names_map_to_the_field_of_their_kinds_unit(name: str, old: dict, new: dict) -> None:
    assert get_strategy(name, **old) == get_strategy(name, **new)
    spec = ",".join(f"{k}={v}" for k, v in old.items())
    assert get_strategy(f"{name}:{spec}") == get_strategy(name, **new)


def test_a_current_name_given_too_wins() -> None:
    assert get_strategy("pi", tail_value=1.0, keep_tokens=900).keep_tokens == 900
