"""Models litellm's bundled price map lacks under their own name, priced by the entry of the same model.

litellm 1.106.2 dropped the Anthropic API entries of Anthropic's retired models, among them
``claude-sonnet-4-20250514`` (Claude Sonnet 4, what Claude Code 1.0.x logs record), while it still
prices the same models under their Amazon Bedrock names. Anthropic names them one to one: its page
"Claude on Amazon Bedrock" (docs.anthropic.com/en/api/claude-on-amazon-bedrock, "API model names")
gives ``anthropic.<Claude API id>-v1:0`` for each model (Claude Sonnet 4 is
``anthropic.claude-sonnet-4-20250514-v1:0``), and its pricing page
(docs.anthropic.com/en/docs/about-claude/pricing) gives one list price per model: Claude Sonnet 4
$3 / MTok input, $3.75 5-minute cache writes, $6 1-hour writes, $0.30 cache hits, $15 output, and
$6 / $22.50 for prompts over 200K tokens, which is what litellm's Bedrock entry carries.

Rule: a dated Claude API id (``claude-...-YYYYMMDD``, with or without ``anthropic/``) that the map
does not price is priced by ``anthropic.<id>-v1:0`` when the map prices that. Only the base
Bedrock entry is used; the regional ones (``us.``, ``eu.``, ``apac.``...) can cost more.
Simplification: the rule trusts Bedrock's base price to equal Anthropic's; tests check that it
does for every Claude model the map prices under both names.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from ctxlab.models import model_info, model_map

_DATED_CLAUDE = re.compile(r"claude-[a-z0-9.-]+-\d{8}")
BEDROCK_WHY = ("the same model under its Amazon Bedrock name (Anthropic's Bedrock model names), "
               "at Anthropic's list price")


class Alias(NamedTuple):
    """A model priced by another entry of litellm's map: the name asked for, the entry, and why."""

    model: str
    entry: str
    why: str

    def describe(self) -> str:
        """One line for a report: ``<model> priced as <entry>: <why>``."""
        return f"{self.model} priced as {self.entry}: {self.why}"


def is_rate(value: Any) -> bool:
    """Whether a map value is a usable price: a number, not negative."""
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0


def priced(info: Any) -> bool:
    """Whether a map entry carries an input price."""
    return isinstance(info, dict) and is_rate(info.get("input_cost_per_token"))


def find_alias(model: str) -> Alias | None:
    """The entry that prices `model` under another name (None: it is priced under its own name,
    or no documented alias applies)."""
    if priced(model_info(model)):
        return None
    name = model.removeprefix("anthropic/")
    entry = f"anthropic.{name}-v1:0"
    if _DATED_CLAUDE.fullmatch(name) and priced(model_map().get(entry)):
        return Alias(model, entry, BEDROCK_WHY)
    return None
