"""`noop`: the baseline that keeps everything, so every other strategy has something to beat."""

from __future__ import annotations

from dataclasses import dataclass

from ctxlab.strategies.base import BaseStrategy, Plan, Request
from ctxlab.strategies.registry import register


@register("noop")
@dataclass(frozen=True)
class Noop(BaseStrategy):
    """Keeps every message unchanged; `fits` tells whether the conversation already fits."""

    def plan(self, request: Request) -> Plan:
        return Plan(request.messages)
