"""`compaction` and `compaction_seed001`: seed 001's Pi-style compaction on the shared mechanics."""

from ctxlab.strategies.seeds.compaction.strategy import Compaction, CompactionSeed001

__all__ = ["Compaction", "CompactionSeed001"]
