"""`key_message`: seed 004's Electron key-message extraction.

`strategy` holds the registered strategy; the private helpers are `scoring` (priority scores,
atomic units, the greedy step), `fallback` (tool-result previews, text trims, the last K rounds,
the current tool loop) and `events` (the seed's CompressionResult metadata).
"""

from ctxlab.strategies.seeds.key_message.strategy import KeyMessage, compress_historical, loop_start

__all__ = ["KeyMessage", "compress_historical", "loop_start"]
