"""`load_conversations`: stream validated `Conversation`s from any source, strictly or skipping.

Strict loading stops at the first bad record with ``InvalidInputError(reason, where="file:line")``;
non-strict loading reports each bad record to ``on_skip(where, reason)`` and goes on. Nothing is
dropped silently: without an `on_skip`, skips are logged as warnings (a named dataset's known
defects as one summary line).
"""

from __future__ import annotations

import itertools
import logging
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator

from ctxlab.datasets.sources import Resolved, resolve
from ctxlab.errors import InvalidInputError
from ctxlab.messages import Conversation

OnSkip = Callable[[str, str], None]
Source = str | os.PathLike
_log = logging.getLogger("ctxlab.datasets")


def load_conversations(source: Source | Resolved | Iterable[Source | Resolved], *, strict: bool = True,
                       on_skip: OnSkip | None = None, limit: int | None = None) -> Iterator[Conversation]:
    """Stream the conversations of one source or of several, in order.

    Args:
        source: a path (``.jsonl``, ``.json``, ``.parquet`` or a folder; agent logs in it, see
            `ctxlab.datasets.logs`, are recognised by content), ``<log format>:<path>``,
            ``sample:<name>``, ``hf:<dataset>[:<split>]``, ``sharegpt``, a source already
            resolved (`ctxlab.datasets.sources.resolve`), or a list of these.
        strict: raise on the first bad record; when False, skip it and report it.
        on_skip: called as ``on_skip(where, reason)`` for every skipped record (also for a
            named dataset's known defects and, in a folder, a log that holds no conversation by
            design, such as gemini-cli recorded responses: these are skipped even when strict).
        limit: stop after this many conversations in total.

    Returns:
        An iterator; files are read lazily, record by record. Conversation ids are unique within
        a source: a repeated id gets a ``~2``, ``~3``... suffix; a record without an id gets
        ``<file stem>:<line>``.

    Raises:
        CtxlabError: at once, for a source that does not exist or cannot be read.
        InvalidInputError: while iterating, for a bad record when `strict`.
    """
    sources = [source] if isinstance(source, str | os.PathLike | Resolved) else list(source)
    # Unknown names and missing files fail before any reading.
    resolved = [s if isinstance(s, Resolved) else resolve(s) for s in sources]
    stream = itertools.chain.from_iterable(_conversations(r, strict, on_skip) for r in resolved)
    return itertools.islice(stream, limit) if limit is not None else stream


def _conversations(source: Resolved, strict: bool, on_skip: OnSkip | None) -> Iterator[Conversation]:
    used: set[str] = set()
    known: Counter[str] = Counter()
    for raw in source.records():
        reason = raw.error
        if reason is None:
            try:
                conversation = Conversation.from_record(raw.record, default_id=raw.default_id)
            except InvalidInputError as exc:
                reason = exc.reason
        if reason is None:
            yield _unique(conversation, used)
            continue
        is_known = source.known_defect(reason)
        if strict and not is_known:
            raise InvalidInputError(reason, where=raw.where)
        if on_skip is not None:
            on_skip(raw.where, reason)
        elif is_known:  # a named dataset's documented defects: one summary line, not one per record
            known[reason.partition(":")[0]] += 1
        else:
            _log.warning("skipped %s: %s", raw.where, reason)
    if known:
        _log.warning("skipped %d records known to be unusable (%s); pass on_skip to list them",
                     known.total(), ", ".join(f"{n} {reason}" for reason, n in known.items()))


def _unique(conversation: Conversation, used: set[str]) -> Conversation:
    """The conversation with an id not used before in its source (deterministic suffixes)."""
    conv_id, n = conversation.id, 1
    while conv_id in used:
        n += 1
        conv_id = f"{conversation.id}~{n}"
    used.add(conv_id)
    if conv_id == conversation.id:
        return conversation
    return Conversation(conv_id, conversation.messages, conversation.tools, conversation.meta)
