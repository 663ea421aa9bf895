"""`Parts`: a `Policy`'s flat fields grouped by the mechanic that reads them, typed.

`Policy.parts` builds it, the one place where field names meet the mechanics' arguments; the tails
and the compaction passes read these groups, never the policy itself.
"""

from __future__ import annotations

from typing import NamedTuple

from ctxlab.strategies.mechanics.mask import Clearable
from ctxlab.strategies.mechanics.rescue import Rescue
from ctxlab.strategies.trigger import Trigger


class Head(NamedTuple):
    """The kept head: ``kind`` (`cuts.head_end`), OpenHands' ``keep_first`` events, and whether
    earlier summaries right after the head are folded into the new one."""

    kind: str
    keep_first: int
    fold_previous: bool


class Tail(NamedTuple):
    """The kept tail (`ctxlab.strategies.policy.tails`, `window_tails`): its kind, the counter it
    measures with, one size per unit (each kind reads its own), how a cut may fall, the budget of
    whole tool outputs in the kept part (Gemini CLI), the model's max output tokens (0: unknown) and
    the user rounds the ``rounds`` tail keeps (seed 001)."""

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
    keep_char_share: float = 0.0
    evict_share: float = 0.0
    results_budget: int = 0
    results_cut_chars: int = 0
    max_output: int = 0
    keep_rounds: int = 0


class Prune(NamedTuple):
    """Old tool outputs pruned behind a protected budget on every call (`mechanics.prune`): off
    unless ``on``; the counter it measures outputs with and the placeholder they become."""

    on: bool = False
    protect: int = 0
    minimum: int = 0
    inclusive: bool = True
    skip_messages: int = 0
    skip_turns: int = 0
    exempt: tuple[str, ...] = ()
    counter: str = "request"
    placeholder: str = ""
    stop_at_pruned: bool = False


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
    """The summary: its voice, caps (tokens; characters, 0: none), the summarizer's input budget and
    how an input over it is cut, where it goes, whether the source bills its summarization pass
    (an estimated ``summary_call`` when ctxlab makes none, for the model named), how a split turn's
    prefix is capped (``split``: ``own`` cap, or a ``shared`` one) and what a failed summarizer
    call leads to (``on_error``: the ``offline`` summarizer, or ``drop`` the summary)."""

    voice: str
    max_tokens: int
    prefix_max_tokens: int
    input_tokens: int
    placement: str
    max_chars: int = 0
    input_reduce: str = "oldest"
    billed: bool = False
    model: str = ""
    split: str = "own"
    on_error: str = "offline"


class Parts(NamedTuple):
    """Every mechanic's arguments of one policy: ``scope`` is what the trigger counts (``all`` or
    ``history``: Aider's completed exchanges only), ``refuse_growth`` keeps the input when a
    compaction would make it larger (Gemini CLI), ``retry`` how the passes go on: compact the
    output ``again`` (inspect_ai) or redo the input keeping less (``keep_less``: seed 001),
    ``rescue`` what a learned model keeps out of the ``budget`` tail's fold (the `learned` policy;
    None for every other)."""

    trigger: Trigger
    head: Head
    tail: Tail
    middle: Middle
    summary: Writing
    strip_trailing_assistant: str
    passes: int
    prune: Prune = Prune()
    scope: str = "all"
    refuse_growth: bool = False
    retry: str = "again"
    rescue: Rescue | None = None


__all__ = ["Head", "Middle", "Parts", "Prune", "Tail", "Writing"]
