"""Knobs of ctxlab's own `learned` policy (``ctxlab/strategies/presets/learned.py``): how often it
compacts (`recommended`'s event limit) and the share of the target its need model may spend on old
tool outputs it keeps out of a fold. Its model file is not a knob: `ctxlab learn` writes it.
"""

from __future__ import annotations

from ctxlab.tune.convert import param
from ctxlab.tune.knobs import AgentKnobs, Form, Knob, Ref, Span

_LEARNED = Ref("ctxlab", "ctxlab/strategies/presets/learned.py, ctxlab/strategies/mechanics/rescue.py", "issue 29")

LEARNED = AgentKnobs(
    preset="learned", agent="ctxlab learned",
    knobs=(
        Knob("trigger_events", ("trigger_events",), "int", "events", allowed=Span(0, None), searched=Span(20, 200),
             step=10, default=60, source=_LEARNED, **param("trigger_events"),
             note="compact above this many events (a tool call or a message each), or when full"),
        Knob("rescue_share", ("rescue_share",), "float", "share", allowed=Span(0, 1), searched=Span(0.0, 0.3),
             step=0.05, default=0.1, source=_LEARNED, **param("rescue_share", float),
             note="the share of the target (and of the event limit) the rescued old outputs may take"),
    ),
    forms=(
        Form("python", "ctxlab (the model file: `ctxlab learn ... --out MODEL`)", _LEARNED,
             {"trigger_events": ("get_strategy", "trigger_events"), "rescue_share": ("get_strategy", "rescue_share")},
             template="from ctxlab import get_strategy\n\n"
                      "policy = get_strategy(\"learned\", model=\"MODEL.json\", {get_strategy})"),
    ),
)

ENTRIES = (LEARNED,)
