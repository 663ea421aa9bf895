"""`recommended`: ctxlab's own policy, designed to keep the most facts for what it sends.

Not an agent's: a composition of the policy model's mechanics (see `ctxlab.strategies.policy.budget`
and `ctxlab.strategies.policy.trail`), tuned on nothing but the mechanics' own logic.
"""

from __future__ import annotations

from ctxlab.strategies.policy import Policy, Source, preset

RECOMMENDED = preset("recommended", Policy, {
    "trigger": "share", "trigger_value": 0.8, "head": "input", "tail": "budget", "tail_value": 0.6,
    "mask_keep": 2, "middle": "summarize", "voice": "ctxlab", "summary_max_tokens": 4000,
    "placement": "after_head", "passes": 2,
}, Source("ctxlab", "ctxlab/strategies/policy/budget.py, trail.py", "ctxlab's own design"),
    "ctxlab's recommendation: over 0.8 of the window, clear old tool outputs to their details, fold the "
    "oldest turns into a running extractive summary, cut the largest outputs last, down to 0.6")
