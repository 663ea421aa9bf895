"""`learned`: `recommended` with a need model fitted on a user's own sessions deciding what survives a fold.

`recommended` compacts every ``trigger_events`` events (or when full): old tool outputs cleared to
the lines later messages name, the oldest tool groups folded into a running summary, by recency
alone. `learned` is the same rule with one change (docs/learned.md): before the fold, the old tool
outputs are ranked by a learned model's probability that they hold a string the agent will soon
need and nothing newer holds, per token (`ctxlab.strategies.mechanics.rescue`), and the best stay
in place, up to ``rescue_share`` of the target: each whole, the rest of its tool group cleared to
its referenced lines. The learned ranking is built into the strong rule rather than replacing it:
recency still keeps the working set, and the model only spends a bounded share on what recency
would lose.

- ``model``: a model file written by ``ctxlab learn`` (JSON; ``""``: the model shipped with
  ctxlab, docs/learned.md says what it was fitted on);
- ``rescue_share`` (0.1): the share of the target rescued outputs may take (0: `recommended`);
- ``trigger_events`` (60): as `recommended`'s, the knob that moves the tokens sent.

No LLM; reads only the messages it is handed (the model's features are the history so far). A
model file that is missing, foreign, tampered with or of another version fails when the policy is
built, in one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ctxlab.errors import CtxlabError
from ctxlab.strategies.base import BaseStrategy, Plan, Request
from ctxlab.strategies.mechanics.need_model import NeedModel
from ctxlab.strategies.mechanics.rescue import Rescue
from ctxlab.strategies.policy import Form, Knob, Source, Span, Tuning
from ctxlab.strategies.policy.conversions import param
from ctxlab.strategies.policy.parts import Parts
from ctxlab.strategies.presets.recommended import RECOMMENDED
from ctxlab.strategies.registry import register
from ctxlab.strategies.trigger import Trigger


# RECOMMENDED is a preset class made at import (`preset`), which type checkers cannot follow.
@dataclass(frozen=True)
class _Ranked(RECOMMENDED):  # type: ignore[misc,valid-type]
    """`recommended` whose budget tail rescues what `ranking` ranks highest (never registered)."""

    ranking: Any = None

    @cached_property
    def parts(self) -> Parts:
        return super().parts._replace(rescue=self.ranking)


_SOURCE = Source("ctxlab", "ctxlab/strategies/presets/learned.py, ctxlab/strategies/mechanics/rescue.py, need.py, "
                 "need_model.py; ctxlab/learn/", "issue 29", "ctxlab's own design")
# Its knobs, searched by `ctxlab tune --policy learned`; the model file is not one (`ctxlab learn` writes it).
_TUNING = Tuning("learned", "ctxlab learned", _SOURCE, knobs=(
    Knob("trigger_events", "int", "events", default=60, sets=param("trigger_events"), allowed=Span(0, None),
         searched=Span(20, 200), step=10, where="ctxlab/strategies/presets/learned.py",
         note="compact above this many events (a tool call or a message each), or when full"),
    Knob("rescue_share", "float", "share", default=0.1, sets=param("rescue_share", float), allowed=Span(0, 1),
         searched=Span(0.0, 0.3), step=0.05, where="ctxlab/strategies/mechanics/rescue.py",
         note="the share of the target (and of the event limit) the rescued old outputs may take"),
), forms=(
    Form("python", "ctxlab (the model file: `ctxlab learn ... --out MODEL`)",
         {"trigger_events": ("get_strategy", "trigger_events"), "rescue_share": ("get_strategy", "rescue_share")},
         "ctxlab/strategies/presets/learned.py",
         template="from ctxlab import get_strategy\n\n"
                  "policy = get_strategy(\"learned\", model=\"MODEL.json\", {get_strategy})"),
))


@register("learned")
@dataclass(frozen=True)
class LearnedPolicy(BaseStrategy):
    """`recommended` whose folds keep the old outputs a learned need model ranks highest (module docstring)."""

    model: str = ""
    rescue_share: float = 0.1
    trigger_events: int = 60

    source = _SOURCE
    tuning = _TUNING
    about = ("recommended, with a need model fitted on your earlier sessions keeping the old tool outputs it "
             "ranks highest out of each fold (model=PATH from `ctxlab learn`; default: the shipped model)")
    source_names = (("model", "a need model written by `ctxlab learn` (JSON); empty: the model shipped with ctxlab"),
                    ("rescue_share", "the share of the target the rescued old outputs may take (0: recommended)"),
                    ("trigger_events", "as recommended's: compact above this many events (a tool call or a message "
                                       "each), or when the request is over the window"))

    def __post_init__(self) -> None:
        if not 0.0 <= self.rescue_share <= 1.0:
            raise ValueError(f"rescue_share must be between 0 and 1, not {self.rescue_share!r}")
        self.rule  # a bad model file or knob fails now, not mid-replay  # noqa: B018

    @cached_property
    def need_model(self) -> NeedModel:
        """The model this policy ranks with."""
        try:
            return NeedModel.load(self.model) if self.model else NeedModel.default()
        except CtxlabError as exc:
            raise CtxlabError(f"learned: {exc}") from None

    @cached_property
    def rule(self) -> BaseStrategy:
        """`recommended` at these knobs, its folds ranked by the model."""
        return _Ranked(trigger_events=self.trigger_events, ranking=Rescue(self.need_model, self.rescue_share))

    def when(self) -> Trigger:
        return self.rule.when()

    def window(self, budget: int) -> int:
        return self.rule.window(budget)

    def fires(self, request: Request) -> bool:
        return self.rule.fires(request)

    def idle(self, request: Request) -> Plan:
        return self.rule.idle(request)

    def plan(self, request: Request) -> Plan:
        return self.rule.plan(request)


__all__ = ["LearnedPolicy"]
