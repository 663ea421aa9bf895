"""inspect_ai's knobs: ``CompactionTrim(threshold=, preserve=)``, ``CompactionEdit(threshold=,
keep_tool_uses=)`` and ``CompactionSummary(threshold=)``.

Source: UKGovernmentBEIS/inspect_ai @ 499e6152: ``src/inspect_ai/model/_compaction/types.py`` @ e66c7f3d
(``threshold: int | float = 0.9``), ``_compaction.py`` @ eb520277 (``_resolve_threshold``: an int
or a float above 1.0 is ``int(threshold)`` tokens, a float up to 1.0 a share of the model's input
window; compaction when ``total_tokens > threshold``), ``trim.py`` @ c1bb2672 (``preserve=0.8``),
``model/_trim.py`` @ 94a2c841 (``preserve`` must be in [0, 1]), ``edit.py`` @ ae60d04d
(``keep_tool_uses=3``; 0 clears every tool result), ``summary.py`` @ 4e818d08, and
``docs/compaction.qmd`` @ 010a12b2 (passed as ``react(..., compaction=...)``). No environment
variable or CLI option sets them.
"""

from __future__ import annotations

from ctxlab.tune.convert import int_or_share, param
from ctxlab.tune.knobs import AgentKnobs, Form, Knob, Ref, Span

_REPO = "UKGovernmentBEIS/inspect_ai"
_TYPES = Ref(_REPO, "src/inspect_ai/model/_compaction/types.py, _compaction.py (_resolve_threshold)", "499e6152")
_TRIM = Ref(_REPO, "src/inspect_ai/model/_compaction/trim.py, model/_trim.py", "499e6152")
_EDIT = Ref(_REPO, "src/inspect_ai/model/_compaction/edit.py", "499e6152")
_SUMMARY = Ref(_REPO, "src/inspect_ai/model/_compaction/summary.py", "499e6152")


def _threshold() -> Knob:
    return Knob("threshold", ("trigger", "trigger_share", "trigger_tokens"), "float", "share", allowed=Span(0, None),
                searched=Span(0.3, 0.95), step=0.05, default=0.9, source=_TYPES, **int_or_share(), write=float,
                number=lambda v, window: v if isinstance(v, float) and v <= 1.0 else int(v) / window,
                note="a float up to 1.0 is a share of the model's input window, an int (or a float above 1.0) "
                     "tokens; compaction when the count is over it (>)")


def _form(cls: str, source: Ref, names: tuple[str, ...]) -> Form:
    return Form("python", "the react() agent's compaction (or a custom agent's)", source,
                {name: (cls, name) for name in names},
                template=f"from inspect_ai.model import {cls}\n\n"
                         f"compaction = {cls}({{{cls}}})  # react(..., compaction=compaction)")


INSPECT_TRIM = AgentKnobs(
    preset="inspect_trim", agent="inspect_ai CompactionTrim",
    knobs=(_threshold(),
           Knob("preserve", ("keep_message_share",), "float", "share", allowed=Span(0, 1), searched=Span(0.1, 0.95), step=0.05,
                default=0.8, source=_TRIM, **param("keep_message_share", float),
                note="the share of the conversation's messages kept (after system and input messages)")),
    forms=(_form("CompactionTrim", _TRIM, ("threshold", "preserve")),),
)

INSPECT_EDIT = AgentKnobs(
    preset="inspect_edit", agent="inspect_ai CompactionEdit",
    knobs=(_threshold(),
           Knob("keep_tool_uses", ("mask_keep",), "int", "tool uses", allowed=Span(0, None), searched=Span(0, 20),
                step=1, default=3, source=_EDIT, **param("mask_keep"),
                note="the newest tool use/result pairs left whole; 0 clears them all")),
    forms=(_form("CompactionEdit", _EDIT, ("threshold", "keep_tool_uses")),),
)

INSPECT_SUMMARY = AgentKnobs(
    preset="inspect_summary", agent="inspect_ai CompactionSummary",
    knobs=(_threshold(),),
    forms=(_form("CompactionSummary", _SUMMARY, ("threshold",)),),
)

ENTRIES = (INSPECT_TRIM, INSPECT_EDIT, INSPECT_SUMMARY)
