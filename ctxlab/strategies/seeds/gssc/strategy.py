"""`gssc`: seed 002's Go GSSC pipeline (Gather -> Select -> Structure -> Compress).

Every call rebuilds the prompt, as the seed's builder does for every agent step: packets are
gathered (system prompt, current query, the last messages as history; in `gssc_retrieval` also
older messages retrieved by BM25 as evidence), scored by relevance and recency, selected within
``budget * (1 - reserve_ratio)``, laid out in the seed's sectioned template and truncated section
by section if still over. The result is one system message holding the structured context, then
the newest user message itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import ctxlab.strategies.seeds.gssc.compress as compress_phase
from ctxlab.errors import CtxlabError
from ctxlab.messages import Message, as_messages
from ctxlab.strategies.base import BaseStrategy, Event, Plan, Request, Tools
from ctxlab.strategies.mechanics import context
from ctxlab.strategies.registry import register
from ctxlab.strategies.seeds.gssc.built import Built, account, build_event, instructions_whole, passthrough
from ctxlab.strategies.seeds.gssc.gather import GATHERERS, Gatherer, gather, gather_input, resolve_gatherers
from ctxlab.strategies.seeds.gssc.packets import P0_TYPES, GatherInput, Packet
from ctxlab.strategies.seeds.gssc.pieces import additive, message_counter, share, text_counter
from ctxlab.strategies.seeds.gssc.select import Weights, clock_of, passes, score, select
from ctxlab.strategies.seeds.gssc.structure import STRUCTURERS
from ctxlab.tokens import TokenCounter, get_counter

RESULT_ID = "gssc_context"
# The Go builder's default gatherers (the seed's upstream NewGSSCBuilder); retrieval is ctxlab's.
DEFAULT_GATHERERS = ("instructions", "task", "history")
RETRIEVAL_GATHERERS = (*DEFAULT_GATHERERS, "retrieval")
PINNED_GATHERERS = ("instructions", "task")
RETRIES = 3  # re-fits when a counter's message count is not quite text count + message overhead


def available_tokens(budget: int, reserve_ratio: float) -> int:
    """The seed's GetAvailableTokens: ``int(budget * (1 - reserve_ratio))`` (8000 -> 6800)."""
    return int(budget * (1 - reserve_ratio))


@register("gssc")
@dataclass(frozen=True)
class GSSC(BaseStrategy):
    """Seed 002: P0..P4 packets, relevance + recency scores, sectioned template, section truncation.

    Attributes:
        reserve_ratio: share of the budget left for the reply (available = budget * 0.85).
        min_relevance: non-P0 packets below this relevance are filtered out (task_state excepted).
        relevance_weight, recency_weight: composite = 0.7 * relevance + 0.3 * recency.
        recency_tau: seconds of the recency decay ``exp(-dt / tau)``.
        max_history_messages: messages in the history packet ([Context]).
        enable_compression: run the Compress phase (section truncation) when over.
        enable_mmr: re-rank non-P0 packets by maximal marginal relevance (`mmr_lambda`).
        filter_history: apply MinRelevance to the history packet too (the seed does).
        structurer: ``sectioned`` (the seed's default), ``minimal`` or ``custom`` (`template`).
        template: the custom structurer's template with ``{{instructions}}``-style placeholders.
        output_template: the [Output] text ("" = the seed's answer format).
        retrieval_top_k: evidence packets the retrieval gatherer returns (`gssc_retrieval`).
        gatherers: registered gatherer names or callables ``(GatherInput) -> list[Packet]``; the
            default is the Go builder's (instructions, task, history).
    """

    reserve_ratio: float = 0.15
    min_relevance: float = 0.3
    relevance_weight: float = 0.7
    recency_weight: float = 0.3
    recency_tau: float = 3600.0
    max_history_messages: int = 10
    enable_compression: bool = True
    enable_mmr: bool = False
    mmr_lambda: float = 0.7
    filter_history: bool = True
    structurer: str = "sectioned"
    template: str = ""
    output_template: str = ""
    retrieval_top_k: int = 5
    gatherers: tuple[str | Gatherer, ...] = DEFAULT_GATHERERS

    # Seed 002 counts with TiktokenCounter ("精确") and keeps EstimatedCounter (`bytes4`) as its
    # fallback ("降级方案", when tiktoken is unavailable), so the seed's counter is a tiktoken one. The
    # seed names no encoding; its upstream NewTiktokenCounter says "默认使用 cl100k_base 编码".
    seed_counter: ClassVar[str] = "cl100k_base"
    source_names: ClassVar[tuple[tuple[str, str], ...]] = (
        ("reserve_ratio", "`ReserveRatio` (available = budget × 0.85: 8000 → 6800)"),
        ("min_relevance", "`MinRelevance`"), ("relevance_weight, recency_weight", "`RelevanceWeight`, `RecencyWeight`"),
        ("recency_tau", "`RecencyTau` (seconds)"), ("max_history_messages", "`MaxHistoryMessages`"),
        ("enable_compression", "`EnableCompression`"), ("enable_mmr, mmr_lambda", "`EnableMMR` (λ: upstream's `MMRLambda`)"),
        ("filter_history", "the seed filters the history packet like any non-P0 packet"),
        ("structurer, template", "`DefaultStructurer`, `MinimalStructurer`, `CustomStructurer(template)`"),
        ("output_template", "`OutputTemplate`"),
        ("retrieval_top_k", "`RAGGatherer` top K (used by `retrieval`, i.e. `gssc_retrieval`)"),
        ("gatherers", "`CompositeGatherer`"))

    def __post_init__(self) -> None:
        STRUCTURERS.get(self.structurer)
        object.__setattr__(self, "gatherers", tuple(self.gatherers))
        resolve_gatherers(self.gatherers)
        if self.structurer == "custom" and self.template and "{{instructions}}" not in self.template:
            raise CtxlabError("gssc pins the system prompt, so a custom template must include {{instructions}}")
        missing = [name for name in PINNED_GATHERERS if name not in self.gatherers]
        if missing:
            raise CtxlabError(f"gssc pins the system prompt and the query, so gatherers must include "
                              f"{' and '.join(map(repr, missing))}")

    def build(self, messages: Iterable[Message | Mapping[str, Any]], budget: int,
              counter: str | TokenCounter = "cl100k_base", tools: Tools | None = None) -> str:
        """The seed's Build: the structured context string, fitted to ``budget * (1 - reserve_ratio)``."""
        request = Request(as_messages(messages), budget, get_counter(counter), tuple(tools or ()))
        return self.pipeline(request, available_tokens(budget, self.reserve_ratio)).text

    def pipeline(self, request: Request, limit: int) -> Built:
        """Gather, select within `limit` tokens, structure, and compress to `limit` tokens."""
        inp = gather_input(request.messages, self.max_history_messages, self.retrieval_top_k)
        packets = gather(resolve_gatherers(self.gatherers), inp)
        weights = Weights(self.relevance_weight, self.recency_weight, self.recency_tau)
        count = text_counter(request.counter)
        scored = score(packets, inp.query, clock_of(request.messages), weights, count)
        selected = select(scored, limit, min_relevance=self.min_relevance, filter_history=self.filter_history,
                          mmr_lambda=self.mmr_lambda if self.enable_mmr else None, count=count)
        filtered = tuple(p for p in scored if p.type not in P0_TYPES
                         and not passes(p, self.min_relevance, self.filter_history))
        text, sections = STRUCTURERS.get(self.structurer)(selected, inp.query, self.template, self.output_template)
        done = (compress_phase.compress(text, limit, count, sections)
                if self.enable_compression else compress_phase.Compressed(text))
        return Built(done.text, inp, len(packets), tuple(selected), done.cuts, filtered)

    def plan(self, request: Request) -> Plan:
        messages = request.messages
        if not messages:
            return Plan(())
        q = context.newest_user(messages)
        available = available_tokens(request.budget, self.reserve_ratio)
        built = self._fit(request, q, available)
        if built is None or not built.text.strip() or not instructions_whole(messages, built.text):
            return passthrough(request, available)
        ids = account(messages, built, q)
        out = [Message("system", built.text, id=RESULT_ID, mark="marker", source_ids=ids.sources)]
        share(built.text)
        if additive(request.counter):  # fitting counted it exactly, by pieces
            request.counter.remember(out[0], message_counter(request.counter, RESULT_ID)(built.text))
        out += [messages[q]] if q is not None else []
        payload = build_event(built, available, request.cost(out) + request.overhead)
        return Plan(out, events=(Event("gssc.build", payload),), truncated_ids=ids.truncated, dropped_ids=ids.dropped)

    def _fit(self, request: Request, q: int | None, available: int) -> Built | None:
        """Run the pipeline with the tokens left for the context message; tighten and rerun if the
        counted message is still over (None when nothing fits)."""
        count_message = message_counter(request.counter, RESULT_ID)
        shell = count_message("")
        fixed = request.overhead + shell + (request.counts[q] if q is not None else 0)
        limit = available - fixed
        for _ in range(RETRIES):
            if limit <= 0:
                return None
            built = self.pipeline(request, limit)
            over = count_message(built.text) - shell + fixed - available
            if over <= 0 or not self.enable_compression:
                return built
            limit -= over
        return None


@register("gssc_retrieval")
@dataclass(frozen=True)
class GSSCRetrieval(GSSC):
    """`gssc` plus ctxlab's BM25 retrieval gatherer: messages older than the history window that best
    match the query come back as [Evidence] (the part an external RAGGatherer plays in the seed)."""

    gatherers: tuple[str | Gatherer, ...] = RETRIEVAL_GATHERERS


__all__ = ["GATHERERS", "GSSC", "GSSCRetrieval", "RETRIEVAL_GATHERERS", "GatherInput", "Gatherer", "Packet", "STRUCTURERS", "available_tokens"]
