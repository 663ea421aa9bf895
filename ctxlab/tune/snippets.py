"""A setting in the agent's own terms: snippets to paste, and back.

`render_snippets` takes a preset and ctxlab parameters (any subset; the rest are the preset's defaults) and
writes every `ctxlab.strategies.policy.knobs.Form` of its preset: pi's settings.json block, Codex's config.toml
keys, a LangChain or inspect_ai constructor, an OpenHands condenser, environment variables, an
Anthropic request body. Units convert on the way: a share becomes a percentage (Claude Code),
tokens an absolute limit at the given window (Codex), a reserve below the window (pi, opencode).
`parse_snippet` reads such a text back into ctxlab parameters, so a snippet survives the round trip
``text -> parameters -> text``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from ctxlab.errors import CtxlabError
from ctxlab.strategies import strategy_params
from ctxlab.strategies.policy.knobs import Form, Tuning
from ctxlab.tune import forms
from ctxlab.tune.agents import knobs_for


class Snippet(NamedTuple):
    """One form of a setting: where it goes (``title``), its text, and the source of its names."""

    preset: str
    agent: str
    kind: str
    title: str
    text: str
    source: str


def base_params(entry: Tuning, window: int) -> dict[str, Any]:
    """The parameters a setting overrides: the preset's defaults."""
    return strategy_params(entry.preset)


def written_values(preset: str, params: Mapping[str, Any], window: int) -> dict[str, Any]:
    """Every knob of `preset` as the agent writes it, for ctxlab `params` at `window` tokens."""
    entry = knobs_for(preset)
    merged = {**base_params(entry, window), **params}
    return {knob.name: knob.decode(merged, window) for knob in entry.knobs}


def render_snippets(preset: str, params: Mapping[str, Any], window: int) -> tuple[Snippet, ...]:
    """Every snippet form of `preset` for ctxlab `params` (overrides of the preset's defaults).

    Args:
        preset: a preset name in the knob table.
        params: ctxlab parameters; those not given are the preset's defaults.
        window: the context window the setting is for (tokens).

    Raises:
        UnknownNameError: a preset the table does not have.
    """
    entry = knobs_for(preset)
    values = written_values(preset, params, window)
    return tuple(Snippet(preset, entry.agent, form.kind, form.title, forms.render(form, values),
                         str(entry.cite(form.where)))
                 for form in entry.forms)


def parse_snippet(preset: str, text: str, window: int, kind: str | None = None) -> dict[str, Any]:
    """The ctxlab parameters a snippet of `preset` sets (a knob it leaves out: the agent's default).

    Args:
        preset: a preset name in the knob table.
        text: the snippet.
        window: the context window (tokens) shares and reserves are resolved at.
        kind: the form's kind (json, toml, ...); default the entry's first form.

    Raises:
        CtxlabError: an unknown form kind, a text that does not parse, or values the agent's
            source rejects (a constraint between knobs).
    """
    entry = knobs_for(preset)
    form = _form(entry, kind)
    values = forms.read(form, text)
    values = {name: entry.knob(name).default if value is None else value for name, value in values.items()}
    broken = entry.violations({**written_values(preset, {}, window), **values})
    if broken:
        raise CtxlabError(f"{form.title}: {'; '.join(broken)}")
    params: dict[str, Any] = {}
    for name, value in values.items():
        params |= entry.knob(name).encode(value, window)
    return params


def _form(entry: Tuning, kind: str | None) -> Form:
    for form in entry.forms:
        if kind is None or form.kind == kind:
            return form
    raise CtxlabError(f"{entry.preset} has no {kind} form (it has: {', '.join(f.kind for f in entry.forms)})")


__all__ = ["Snippet", "base_params", "parse_snippet", "render_snippets", "written_values"]
