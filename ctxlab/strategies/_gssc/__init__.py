"""The phases of seed 002's GSSC pipeline, used by `ctxlab.strategies.gssc`.

packets (P0..P4 packets, GatherInput, the word tokenizer), gather (built-in and BM25 retrieval
gatherers, the gatherer registry), select (scores, filter, greedy fill, MMR), structure (sectioned,
minimal, custom templates), compress (section truncation, halve then delete).
"""

from ctxlab.strategies._gssc.gather import GATHERERS, Gatherer, bm25, resolve_gatherers
from ctxlab.strategies._gssc.packets import GatherInput, Packet, render, words

__all__ = ["GATHERERS", "GatherInput", "Gatherer", "Packet", "bm25", "render", "resolve_gatherers", "words"]
