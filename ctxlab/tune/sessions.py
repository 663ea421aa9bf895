"""The sessions a tuner evaluates settings over: read once, numbered as a replay numbers them, and
each with the state every setting reuses.

`Sessions.load` reads sources the way `ctxlab.replay` does (each source resolved once, dataset names
made unique, conversations numbered per dataset, bad records stopping the read or recorded as
skips), so a setting's rows carry the same ``dataset`` and ``seq`` a replay of the same sources
stores. `Sessions.of` takes conversations already in hand (the dashboard's: a run's stored
records). What a setting does not change is computed once per session and kept
(`ctxlab.replay.worker.Session`: counts per message as prefix sums, what each recorded action
needed, the recorded output tokens); the `scope` text names the sessions by content, so the
evaluations of the same logs are found again whatever path they were read from.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from ctxlab.messages import Conversation
from ctxlab.replay.plan import GROUNDED_VERSION, turn_indices
from ctxlab.replay.worker import Session, prepare_session
from ctxlab.tokens import TokenCounter, get_counter


class Item(NamedTuple):
    """One session: its dataset, its number there and the conversation."""

    dataset: str
    seq: int
    conversation: Conversation


class Skip(NamedTuple):
    """A record left out (``--skip-invalid``): where and why."""

    dataset: str
    where: str
    reason: str


def _digest(names: list[str]) -> str:
    return hashlib.sha256("\n".join(names).encode()).hexdigest()[:16]


class _Skips:
    """A loader's ``on_skip`` recording into a list under one dataset's name."""

    def __init__(self, into: list[Skip], dataset: str) -> None:
        self.into, self.dataset = into, dataset

    def __call__(self, where: str, reason: str) -> None:
        self.into.append(Skip(self.dataset, where, reason))


class _Counters(dict[str, TokenCounter]):
    """Counters by name, filled on first use (each strategy brings its own estimator)."""

    def __missing__(self, name: str) -> TokenCounter:
        counter = self[name] = get_counter(name)
        return counter


class Sessions:
    """Numbered sessions with their fingerprints, and their kept per-session state.

    Attributes:
        items: the sessions in replay order.
        fingerprints: dataset name -> content fingerprint.
        sources: what they were read from (shown, and stored with each run's config).
        skips: records left out.
        limit, skip_invalid: how they were read (which sessions a source gave).
    """

    def __init__(self, items: Sequence[Item], fingerprints: Mapping[str, str], *, sources: Sequence[str] = (),
                 skips: Sequence[Skip] = (), limit: int | None = None, skip_invalid: bool = False) -> None:
        self.items = tuple(items)
        self.fingerprints = dict(fingerprints)
        self.sources = tuple(sources)
        self.skips = tuple(skips)
        self.limit, self.skip_invalid = limit, skip_invalid
        self.counters = _Counters()
        self._prepared: dict[str, dict[int, Session]] = {}

    @classmethod
    def load(cls, sources: Sequence[str], *, limit: int | None = None, skip_invalid: bool = False) -> Sessions:
        """Read `sources` as `ctxlab replay` would.

        Raises:
            InvalidInputError: a bad record without `skip_invalid` (file, line and reason).
            CtxlabError: a source that cannot be read.
        """
        from ctxlab.datasets import load_conversations
        from ctxlab.datasets.sources import resolve
        from ctxlab.replay.run import dataset_names

        resolved = [resolve(s) for s in sources]
        infos = [r.info() for r in resolved]
        names = dataset_names(infos)
        items: list[Item] = []
        skips: list[Skip] = []
        for source, name in zip(resolved, names, strict=True):
            read = load_conversations(source, strict=not skip_invalid, limit=limit, on_skip=_Skips(skips, name))
            items += [Item(name, seq, conv) for seq, conv in enumerate(read)]
        return cls(items, {n: i.fingerprint for n, i in zip(names, infos, strict=True)}, sources=sources, skips=skips,
                   limit=limit, skip_invalid=skip_invalid)

    @classmethod
    def of(cls, dataset: str, conversations: Iterable[tuple[int, Conversation]], fingerprint: str,
           source: str = "") -> Sessions:
        """Sessions already read: ``(seq, conversation)`` pairs of one dataset with its fingerprint."""
        return cls([Item(dataset, seq, conv) for seq, conv in conversations], {dataset: fingerprint},
                   sources=(source or dataset,))

    @classmethod
    def stored(cls, con: Any, run_id: str, dataset: str) -> Sessions:
        """One dataset's conversations as run `run_id` stored them (none when it kept no records),
        with the fingerprint the run recorded for it (open `con` with `ctxlab.store.reading`)."""
        from ctxlab import store
        from ctxlab.analysis.frames import run_info

        fingerprint = str(run_info(con, run_id).get("fingerprints", {}).get(dataset, dataset))
        return cls.of(dataset, store.stored_conversations(con, run_id, dataset), fingerprint)

    def __len__(self) -> int:
        return len(self.items)

    @property
    def calls(self) -> int:
        """The provider calls a per-turn replay makes over these sessions."""
        return sum(self.calls_of(i) for i in range(len(self.items)))

    def calls_of(self, i: int) -> int:
        """The provider calls of session `i`."""
        return len(turn_indices(self.items[i].conversation))

    def scope(self, reference: str, price_model: str | None) -> str:
        """What an evaluation depends on besides the setting: the sessions by content (each dataset's
        fingerprint and which of its conversations were read, by number and id, however they were
        read: a source with ``--limit``, or a run's stored records of it), the reference tokenizer,
        the price model and the grounded measures' version."""
        read: dict[str, list[str]] = {}
        for item in self.items:
            read.setdefault(item.dataset, []).append(f"{item.seq}:{item.conversation.id}")
        datasets = {name: {"fingerprint": fingerprint, "sessions": _digest(read.get(name, []))}
                    for name, fingerprint in self.fingerprints.items()}
        return json.dumps({"datasets": datasets, "reference": reference, "price_model": price_model,
                           "grounded": GROUNDED_VERSION}, sort_keys=True, separators=(",", ":"))

    def prepared(self, reference: str, indices: Iterable[int] | None = None) -> dict[int, Session]:
        """Each session's kept state by its index (those in `indices`, or all), built on first use
        (the first setting to reach a session pays for it)."""
        kept = self._prepared.setdefault(reference, {})
        ref = self.counters[reference]
        for i in range(len(self.items)) if indices is None else indices:
            if i not in kept:
                kept[i] = prepare_session(self.items[i].conversation, self.counters, ref, grounded=True, priced=True)
        return kept


__all__ = ["Item", "Sessions", "Skip"]
