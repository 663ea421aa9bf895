"""`Parts`: a `Policy`'s flat fields grouped by the mechanic that reads them, typed.

`Policy.parts` builds it, the one place where field names meet the mechanics' arguments; the tails
and the compaction passes read these groups, never the policy itself.
"""

from __future__ import annotations

from typing import NamedTuple

from ctxlab.strategies.mechanics.mask import Clearable
from ctxlab.strategies.trigger import Trigger


class Head(NamedTuple):
    """The kept head: ``kind`` (`cuts.head_end`), OpenHands' ``keep_first`` events, and whether
    earlier summaries right after the head are folded into the new one."""

    kind: str
    keep_first: int
    fold_previous: bool


class Tail(NamedTuple):
    """The kept tail (`ctxlab.strategies.policy.tails`): its kind, the counter it measures with, one
    size per unit (each kind reads its own), and how a cut may fall."""

    kind: str
    counter: str
    keep_tokens: int
    keep_messages: int
    keep_message_share: float
    target_share: float
    min_progress: float
    snap: str
    split_turns: bool
    start_on_user: bool
    repair_orphans: bool


class Middle(NamedTuple):
    """What becomes of the middle (``drop``, ``mask``, ``summarize``) and the mask's settings: which
    tools it may clear, the fewest tokens worth clearing, whether the cleared calls' inputs go too."""

    kind: str
    mask_keep: int
    mask_placeholder: str
    mask_order: str
    tools: Clearable = Clearable()
    at_least: int = 0
    inputs: bool = False


class Writing(NamedTuple):
    """The summary: its voice, caps, the summarizer's input budget, where it goes, and whether the
    source bills its summarization pass (an estimated ``summary_call`` when ctxlab makes none, for
    the model named)."""

    voice: str
    max_tokens: int
    prefix_max_tokens: int
    input_tokens: int
    placement: str
    billed: bool = False
    model: str = ""


class Parts(NamedTuple):
    """Every mechanic's arguments of one policy."""

    trigger: Trigger
    head: Head
    tail: Tail
    middle: Middle
    summary: Writing
    strip_trailing_assistant: str
    passes: int


__all__ = ["Head", "Middle", "Parts", "Tail", "Writing"]
