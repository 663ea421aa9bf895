"""pi's knobs: ``compaction.reserveTokens`` and ``compaction.keepRecentTokens`` in settings.json.

Source: badlogic/pi-mono ``packages/coding-agent/src/core/settings-manager.ts`` and
``docs/settings.md`` @ 7ddaf150 (``CompactionSettings``: numbers, defaults 16384 and 20000, no range
check; ``~/.pi/agent/settings.json`` or ``.pi/settings.json``, nested objects merged),
``src/core/compaction/compaction.ts`` @ d3593520 (``shouldCompact``: ``contextTokens >
contextWindow - reserveTokens``; the summary may use ``0.8 x reserveTokens``, a split turn's prefix
``0.5 x reserveTokens``). pi reads no environment variable for them.
"""

from __future__ import annotations

from ctxlab.tune.convert import param, reserve
from ctxlab.tune.knobs import AgentKnobs, Form, Knob, Ref, Span, W

_SETTINGS = Ref("badlogic/pi-mono", "packages/coding-agent/src/core/settings-manager.ts, docs/settings.md", "7ddaf150")
_COMPACTION = Ref("badlogic/pi-mono", "packages/coding-agent/src/core/compaction/compaction.ts", "d3593520")

PI = AgentKnobs(
    preset="pi", agent="pi coding agent",
    knobs=(
        Knob("compaction.reserveTokens", ("trigger", "trigger_reserve", "summary_max_tokens", "prefix_max_tokens"),
             "int", "tokens", allowed=Span(0, None), searched=Span(W(0.05), W(0.5), "a reserve over half the "
             "window compacts a session that is half empty"), step=256, default=16384, source=_COMPACTION,
             **reserve(summary_caps=True),
             note="compact when the context is over window - reserveTokens; it also caps the summary (0.8x) "
                  "and a split turn's prefix summary (0.5x). At or above the window pi compacts before every call."),
        Knob("compaction.keepRecentTokens", ("keep_tokens",), "int", "tokens", allowed=Span(0, None),
             searched=Span(W(0.05), W(0.6), "past the trigger nothing is left to summarize"), step=256, default=20000,
             source=_COMPACTION, **param("keep_tokens", int),
             note="walk back from the newest message summing chars/4 estimates until this many, then cut at a "
                  "valid cut point"),
    ),
    forms=(
        Form("json", "~/.pi/agent/settings.json (or .pi/settings.json in the project)", _SETTINGS,
             {"compaction.reserveTokens": ("compaction", "reserveTokens"),
              "compaction.keepRecentTokens": ("compaction", "keepRecentTokens")},
             fixed={("compaction", "enabled"): True}),
    ),
)

ENTRIES = (PI,)
