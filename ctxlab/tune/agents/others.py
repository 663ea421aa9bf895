"""Knobs of Gemini CLI, opencode, Aider and goose, for presets the late-2026 agents issue adds (not
registered yet, so ``pending``).

Sources:
- google-gemini/gemini-cli @ 5411f113: ``packages/cli/src/config/settingsSchema.ts`` @ e6f92d66
  (``model.compressionThreshold``: number, default 0.5, "the fraction of context usage at which to
  trigger context compression"; ``contextManagement.tools.outputMasking.protectionThresholdTokens``
  50,000 and ``minPrunableThresholdTokens`` 30,000, under an experimental section),
  ``packages/core/src/context/chatCompressionService.ts`` @ 4a5d5cfc (no compression while the
  prompt is under ``threshold x tokenLimit``, so it fires at ``>=``). Remote experiment flags can
  override these settings (``config.ts``).
- opencode's config schema (``packages/opencode/src/config/config.ts``, the ``compaction`` object:
  ``auto``, ``prune`` booleans and ``reserved``, an int >= 0, "token buffer for compaction"; its
  commit is not confirmed here) in ``opencode.json``; unset, the overflow margin is
  ``min(20000, max output)`` (the preset issue's reading of ``session/overflow.ts``).
- Aider-AI/aider @ 5dc9490b: ``aider/args.py`` @ 320ee06c (``--max-chat-history-tokens``, int,
  default the model's ``max_chat_history_tokens``; every option is also ``AIDER_<NAME>`` and a key of
  ``.aider.conf.yml``, ``aider/website/assets/sample.aider.conf.yml`` @ c48fea64),
  ``aider/models.py`` @ a7a54a93 (``min(max(max_input_tokens / 16, 1024), 8192)``).
- block/goose ``crates/goose/src/context_mgmt/mod.rs`` @ 331a8429 (``DEFAULT_COMPACTION_THRESHOLD``
  0.8, read with ``get_param("GOOSE_AUTO_COMPACT_THRESHOLD")``: the environment variable first, then
  ``config.yaml``; compacts when usage / context limit is over it; at or below 0, or at or above 1,
  auto-compaction is off).
"""

from __future__ import annotations

from ctxlab.tune.convert import added, limit, reserve, share
from ctxlab.tune.knobs import AgentKnobs, Form, Knob, Ref, Span, W

_GEMINI = Ref("google-gemini/gemini-cli", "packages/cli/src/config/settingsSchema.ts", "5411f113")
_GEMINI_CORE = Ref("google-gemini/gemini-cli", "packages/core/src/context/chatCompressionService.ts", "5411f113")
_OPENCODE = Ref("anomalyco/opencode", "packages/opencode/src/config/config.ts (compaction)", "not confirmed")
_AIDER = Ref("Aider-AI/aider", "aider/args.py, aider/models.py, aider/website/assets/sample.aider.conf.yml",
             "5dc9490b")
_GOOSE = Ref("block/goose", "crates/goose/src/context_mgmt/mod.rs", "331a8429")
_MASKING = ("contextManagement", "tools", "outputMasking")

GEMINI_CLI = AgentKnobs(
    preset="gemini_cli", agent="Gemini CLI", pending=True, adds=("mask_protect_tokens", "mask_min_prunable_tokens"),
    knobs=(
        Knob("model.compressionThreshold", ("trigger", "trigger_share", "trigger_inclusive"), "float", "share",
             allowed=Span(0, 1), searched=Span(0.2, 0.9), step=0.05, default=0.5, source=_GEMINI_CORE,
             **share(inclusive=True), note="compress once the prompt reaches this share of the model's limit"),
        Knob("protectionThresholdTokens", ("mask_protect_tokens",), "int", "tokens", allowed=Span(0, None),
             searched=Span(W(0.05), W(0.5)), step=256, default=50_000, source=_GEMINI,
             **added("mask_protect_tokens", int, 50_000), note="the newest tool output tokens never masked"),
        Knob("minPrunableThresholdTokens", ("mask_min_prunable_tokens",), "int", "tokens", allowed=Span(0, None),
             searched=Span(0, W(0.3)), step=256, default=30_000, source=_GEMINI,
             **added("mask_min_prunable_tokens", int, 30_000), note="mask only when at least this much would go"),
    ),
    forms=(
        Form("json", "~/.gemini/settings.json (or .gemini/settings.json)", _GEMINI,
             {"model.compressionThreshold": ("model", "compressionThreshold"),
              "protectionThresholdTokens": (*_MASKING, "protectionThresholdTokens"),
              "minPrunableThresholdTokens": (*_MASKING, "minPrunableThresholdTokens")}),
    ),
)

OPENCODE = AgentKnobs(
    preset="opencode", agent="opencode", pending=True,
    knobs=(
        Knob("compaction.reserved", ("trigger", "trigger_reserve"), "int", "tokens", allowed=Span(0, None),
             searched=Span(W(0.05), W(0.5)), step=256, default=None, source=_OPENCODE,
             **reserve(unset={"trigger": "reserve", "trigger_reserve": 20_000}),
             note="unset: min(20000, the model's max output) tokens below the input limit (20000 assumed)"),
    ),
    forms=(
        Form("json", "opencode.json (project) or ~/.config/opencode/opencode.json", _OPENCODE,
             {"compaction.reserved": ("compaction", "reserved")},
             fixed={("$schema",): "https://opencode.ai/config.json", ("compaction", "auto"): True,
                    ("compaction", "prune"): True}),
    ),
)


def _aider_default(window: int) -> dict[str, object]:
    return {"trigger": "tokens", "trigger_tokens": int(min(max(window / 16, 1024), 8192))}


_AIDER_NAME = "max-chat-history-tokens"
AIDER = AgentKnobs(
    preset="aider", agent="Aider", pending=True,
    knobs=(
        Knob(_AIDER_NAME, ("trigger", "trigger_tokens"), "int", "tokens", allowed=Span(None, None),
             searched=Span(1024, W(0.5)), step=256, default=None, source=_AIDER, **limit(unset=_aider_default),
             note="unset: min(max(max input tokens / 16, 1024), 8192); a soft limit on the chat history, "
                  "after which it is summarized"),
    ),
    forms=(
        Form("yaml", ".aider.conf.yml (home, repository root or current directory)", _AIDER,
             {_AIDER_NAME: (_AIDER_NAME,)}),
        Form("cli", "on the command line", _AIDER, {_AIDER_NAME: ("--" + _AIDER_NAME,)}, template="aider"),
        Form("env", "the environment (or .env)", _AIDER, {_AIDER_NAME: ("AIDER_MAX_CHAT_HISTORY_TOKENS",)},
             text_values=True),
    ),
)

GOOSE = AgentKnobs(
    preset="goose", agent="goose", pending=True,
    knobs=(
        Knob("GOOSE_AUTO_COMPACT_THRESHOLD", ("trigger", "trigger_share", "trigger_inclusive"), "float", "share",
             allowed=Span(0, 1), searched=Span(0.3, 0.95), step=0.05, default=0.8, source=_GOOSE,
             **share(inclusive=False), note="compact when usage / context limit is over it (>); 0 or 1 turn it off"),
    ),
    forms=(
        Form("env", "the environment goose starts in", _GOOSE,
             {"GOOSE_AUTO_COMPACT_THRESHOLD": ("GOOSE_AUTO_COMPACT_THRESHOLD",)}, text_values=True),
        Form("yaml", "~/.config/goose/config.yaml", _GOOSE,
             {"GOOSE_AUTO_COMPACT_THRESHOLD": ("GOOSE_AUTO_COMPACT_THRESHOLD",)}),
    ),
)

ENTRIES = (GEMINI_CLI, OPENCODE, AIDER, GOOSE)
