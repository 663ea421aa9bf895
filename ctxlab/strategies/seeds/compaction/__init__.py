"""`compaction` and `compaction_seed001`: seed 001's Pi-style compaction on the shared mechanics.

`strategy` holds `compaction` (the trigger, the attempts, the summary message), `seed001` the thin
wrapper with the seed's confirmation and character cap; the private helpers are `job` (the positions
and costs of one job, the fallback window), `attempts` (where each attempt cuts, what it keeps and
summarizes), `summaries` (the history and turn-prefix summaries under one cap) and `events` (seed
001's ``context_compacted``).
"""

from ctxlab.strategies.seeds.compaction.seed001 import CONFIRMATION_QUESTION, CompactionSeed001
from ctxlab.strategies.seeds.compaction.strategy import Compaction

__all__ = ["CONFIRMATION_QUESTION", "Compaction", "CompactionSeed001"]
