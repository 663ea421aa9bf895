"""What a replay will do: its configuration, strategy entries, run identity and work chunks.

A run is identified by what determines its numbers (sources and their fingerprints, strategy
specs, counters, windows, references, modes, estimators), never by how it is executed (workers,
engine, limit, name). Running the same command again therefore finds the same run and only does
the conversations it has not finished.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

from ctxlab.messages import Conversation
from ctxlab.replay.config import DEFAULT_COUNTER, SEED, ReplayConfig
from ctxlab.strategies import default_strategies, get_strategy

FALLBACK_COUNTER = DEFAULT_COUNTER  # a strategy without a `seed_counter` counts with this
GROUNDED_VERSION = 1  # bump when the grounded measures change meaning (a new run id)
# The hindsight limit (issue 29, `limit_kept`) adds a measure without changing the others: not bumped, so
# stored runs keep their ids and resume; their units have no limit, shown as missing.


class Entry(NamedTuple):
    """One strategy variant run with one counter: `label` is the spec as the user wrote it."""

    label: str
    strategy: str
    spec_json: str
    counter: str


@dataclass(frozen=True)
class WorkSpec:
    """The part of a run every worker needs (small and picklable; sent with each chunk)."""

    run_id: str
    entries: tuple[Entry, ...]
    windows: tuple[int, ...]
    modes: tuple[str, ...]
    references: tuple[str, ...]
    estimators: tuple[str, ...]
    store_records: bool = True
    quality: bool = True
    price_models: tuple[str, ...] = ()
    grounded: bool = False
    summaries: bool = True


def resolve_entries(strategies: Sequence[str], counters: Sequence[str]) -> tuple[Entry, ...]:
    """Build every strategy spec x counter (validating names and parameters up front).

    ``seed`` as a counter means each strategy's own `seed_counter`, or o200k_base where it has
    none; pairs that end up identical are kept once.

    Raises:
        UnknownNameError: an unknown strategy or parameter.
    """
    specs = list(strategies) or default_strategies()
    out: dict[tuple[str, str], Entry] = {}
    for text in specs:
        strategy = get_strategy(text)
        for counter in counters:
            name = (getattr(type(strategy), "seed_counter", None) or FALLBACK_COUNTER) if counter == SEED else counter
            entry = Entry(text, strategy.name, strategy.spec.to_json(), name)
            out.setdefault((entry.spec_json, entry.counter), entry)
    return tuple(out.values())


def run_identity(config: ReplayConfig, entries: Sequence[Entry], fingerprints: dict[str, Any],
                 estimators: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """The run id (a digest of what determines the numbers) and the config stored with the run."""
    identity = {
        "sources": list(config.sources), "fingerprints": fingerprints,
        # Keyed "budgets", the field's name before issue 21: renaming the key would give every stored
        # run a new id, and running the same command again would restart it instead of resuming it.
        "entries": [e._asdict() for e in entries], "budgets": list(config.windows),
        "references": list(config.references), "modes": list(config.modes), "estimators": list(estimators),
        "quality": config.quality,
    }
    if config.price_models:  # only then, so runs without pricing keep the ids they always had
        identity["price_models"] = list(config.price_models)
    if config.quality and not config.summaries:  # only then, so every other run keeps its id
        identity["summaries"] = False
    if grounded(config):  # runs measured before the grounded measures existed lack their rows
        identity["grounded"] = GROUNDED_VERSION
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()[:12]
    kept = {k: v for k, v in identity.items() if k != "budgets"}  # stored as "windows" (asdict)
    stored = {**asdict(config), **kept, "strategies": [e.label for e in entries],
              "counters": sorted({e.counter for e in entries})}
    return digest, stored


def grounded(config: ReplayConfig) -> bool:
    """Whether a run measures the grounded measures (per-turn units only have a next action)."""
    return config.grounded and "per-turn" in config.modes


def chunks(items: Iterable[tuple[int, Conversation]], max_messages: int,
           max_conversations: int = 256) -> Iterator[list[tuple[int, Conversation]]]:
    """Group numbered conversations into work chunks of about `max_messages` messages each.

    Small chunks keep both workers busy to the end; each costs a task round trip and a few
    Arrow tables, which is negligible next to replaying a hundred messages.
    """
    chunk: list[tuple[int, Conversation]] = []
    size = 0
    for seq, conv in items:
        chunk.append((seq, conv))
        size += len(conv.messages)
        if size >= max_messages or len(chunk) >= max_conversations:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


def turn_indices(conv: Conversation) -> list[int]:
    """Per-turn replay points: every assistant message that has some history before it."""
    return [i for i, m in enumerate(conv.messages) if m.role == "assistant" and i > 0]
