"""`compaction` and `compaction_seed001`: seed 001's Pi-style compaction on the policy model.

`strategy` holds `compaction` (its parameters, the trigger, their mapping onto the policy model's
`Parts`: the compaction itself is `ctxlab.strategies.policy.attempts`, written once for every
policy), `seed001` the thin wrapper with the seed's confirmation and character cap, and `events`
(seed 001's ``context_compacted``, private).
"""

from ctxlab.strategies.seeds.compaction.seed001 import CONFIRMATION_QUESTION, CompactionSeed001
from ctxlab.strategies.seeds.compaction.strategy import Compaction

__all__ = ["CONFIRMATION_QUESTION", "Compaction", "CompactionSeed001"]
