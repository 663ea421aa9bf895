"""`gssc` and `gssc_retrieval`: seed 002's Go GSSC pipeline (Gather -> Select -> Structure -> Compress).

`strategy` holds the registered strategies, `built` what one run built and how the result accounts
for it; the private helpers are the pipeline's phases:
packets (P0..P4 packets, GatherInput, the word tokenizer), gather (built-in and BM25 retrieval
gatherers, the gatherer registry), select (scores, filter, greedy fill, MMR), structure (sectioned,
minimal, custom templates), compress (section truncation, halve then delete), pieces (the counting
and overlap pieces the phases share).
"""

from ctxlab.strategies.seeds.gssc.gather import GATHERERS, Gatherer, bm25, resolve_gatherers
from ctxlab.strategies.seeds.gssc.packets import GatherInput, Packet, render, words
from ctxlab.strategies.seeds.gssc.strategy import (
    DEFAULT_GATHERERS,
    GSSC,
    RESULT_ID,
    RETRIEVAL_GATHERERS,
    STRUCTURERS,
    GSSCRetrieval,
    available_tokens,
)

__all__ = ["DEFAULT_GATHERERS", "GATHERERS", "GSSC", "RESULT_ID", "RETRIEVAL_GATHERERS", "STRUCTURERS",
           "GSSCRetrieval", "GatherInput", "Gatherer", "Packet", "available_tokens", "bm25", "render",
           "resolve_gatherers", "words"]
