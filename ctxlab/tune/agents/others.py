"""Knobs of Gemini CLI, opencode, Cline, Aider, goose and Letta (the presets in
``ctxlab/strategies/presets/`` of the same names).

Sources:
- google-gemini/gemini-cli @ 5411f113: ``packages/cli/src/config/settingsSchema.ts`` @ e6f92d66
  (``model.compressionThreshold``: number, default 0.5, "the fraction of context usage at which to
  trigger context compression"; ``contextManagement.tools.outputMasking.protectionThresholdTokens``
  50,000, ``minPrunableThresholdTokens`` 30,000 and ``protectLatestTurn`` true, under an
  experimental section), ``packages/core/src/context/chatCompressionService.ts`` @ 4a5d5cfc (no
  compression while the prompt is under ``threshold x tokenLimit``, so it fires at ``>=``) and
  ``toolOutputMaskingService.ts`` @ 4a5d5cfc. Remote experiment flags can override these settings
  (``config.ts``).
- anomalyco/opencode ``packages/opencode/src/session/compaction.ts`` @ fd78ec63 (it reads
  ``config.compaction?.auto``, ``.prune`` and ``.reserved``: unset, the overflow margin is
  ``min(20000, max output)`` below the input limit and prune is on), in ``opencode.json``.
- cline/cline @ 21cb8d25: ``sdk/packages/core/src/types/config.ts`` (``CoreCompactionConfig``:
  ``enabled``, ``strategy`` (``agentic``, ``basic``), ``preserveRecentTokens``) and
  ``extensions/context/compaction-shared.ts`` (``DEFAULT_PRESERVE_RECENT_TOKENS`` 20,000); the SDK
  session config is code, written here as the ``compaction`` object's JSON.
- Aider-AI/aider @ 5dc9490b: ``aider/args.py`` @ 320ee06c (``--max-chat-history-tokens``, int,
  default the model's ``max_chat_history_tokens``; every option is also ``AIDER_<NAME>`` and a key of
  ``.aider.conf.yml``, ``aider/website/assets/sample.aider.conf.yml`` @ c48fea64),
  ``aider/models.py`` @ a7a54a93 (``min(max(max_input_tokens / 16, 1024), 8192)``).
- block/goose ``crates/goose/src/context_mgmt/mod.rs`` @ 331a8429 (``DEFAULT_COMPACTION_THRESHOLD``
  0.8, read with ``get_param("GOOSE_AUTO_COMPACT_THRESHOLD")``: the environment variable first, then
  ``config.yaml``; compacts when usage / context limit is over it; at or below 0, or at or above 1,
  auto-compaction is off, which ctxlab's trigger cannot say: the tuner searches inside).
- letta-ai/letta ``letta/services/summarizer/summarizer_config.py`` @ 56ba9c25 (``CompactionSettings``:
  ``mode`` ``sliding_window``, ``sliding_window_percentage`` from
  ``LETTA_SUMMARIZER_PARTIAL_EVICT_SUMMARIZER_PERCENTAGE`` (0.30), ``clip_chars`` 50,000), set per agent
  as ``compaction_settings`` when it is created or modified (``clip_chars`` only clips an LLM's
  summary, so it is not a tuned knob).
"""

from __future__ import annotations

from ctxlab.tune.convert import flag, limit, param, reserve, share
from ctxlab.tune.knobs import AgentKnobs, Form, Knob, Ref, Span, W

_GEMINI = Ref("google-gemini/gemini-cli", "packages/cli/src/config/settingsSchema.ts", "5411f113")
_GEMINI_CORE = Ref("google-gemini/gemini-cli", "packages/core/src/context/chatCompressionService.ts", "5411f113")
_OPENCODE = Ref("anomalyco/opencode", "packages/opencode/src/session/compaction.ts (compaction config)", "fd78ec63")
_CLINE = Ref("cline/cline", "sdk/packages/core/src/types/config.ts (CoreCompactionConfig)", "21cb8d25")
_AIDER = Ref("Aider-AI/aider", "aider/args.py, aider/models.py, aider/website/assets/sample.aider.conf.yml",
             "5dc9490b")
_GOOSE = Ref("block/goose", "crates/goose/src/context_mgmt/mod.rs", "331a8429")
_LETTA = Ref("letta-ai/letta", "letta/services/summarizer/summarizer_config.py (CompactionSettings)", "56ba9c25")
_MASKING = ("contextManagement", "tools", "outputMasking")

GEMINI_CLI = AgentKnobs(
    preset="gemini_cli", agent="Gemini CLI",
    knobs=(
        Knob("model.compressionThreshold", ("trigger", "trigger_share", "trigger_inclusive"), "float", "share",
             allowed=Span(0, 1), searched=Span(0.2, 0.9), step=0.05, default=0.5, source=_GEMINI_CORE,
             **share(inclusive=True), note="compress once the prompt reaches this share of the model's limit"),
        Knob("protectionThresholdTokens", ("prune_protect_tokens",), "int", "tokens", allowed=Span(0, None),
             searched=Span(W(0.05), W(0.5)), step=256, default=50_000, source=_GEMINI,
             **param("prune_protect_tokens"), note="the newest tool output tokens never masked"),
        Knob("minPrunableThresholdTokens", ("prune_min_tokens",), "int", "tokens", allowed=Span(0, None),
             searched=Span(0, W(0.3)), step=256, default=30_000, source=_GEMINI,
             **param("prune_min_tokens"), note="mask only when at least this much would go"),
        Knob("protectLatestTurn", ("prune_skip_messages",), "bool", "", allowed=None, searched=None, step=0,
             default=True, source=_GEMINI, **flag("prune_skip_messages", 2, 1),
             note="never mask the newest history entry (the request being built is never masked)"),
    ),
    forms=(
        Form("json", "~/.gemini/settings.json (or .gemini/settings.json)", _GEMINI,
             {"model.compressionThreshold": ("model", "compressionThreshold"),
              "protectionThresholdTokens": (*_MASKING, "protectionThresholdTokens"),
              "minPrunableThresholdTokens": (*_MASKING, "minPrunableThresholdTokens"),
              "protectLatestTurn": (*_MASKING, "protectLatestTurn")}),
    ),
)

OPENCODE = AgentKnobs(
    preset="opencode", agent="opencode",
    knobs=(
        Knob("compaction.reserved", ("trigger", "trigger_reserve", "trigger_reply"), "int", "tokens",
             allowed=Span(0, None), searched=Span(W(0.05), W(0.5)), step=256, default=None, source=_OPENCODE,
             **reserve(unset={"trigger": "reserve", "trigger_reserve": 0, "trigger_reply": 20_000},
                       replaces_reply=True),
             note="unset: min(20000, the model's max output) tokens below the input limit"),
        Knob("compaction.prune", ("prune",), "bool", "", allowed=None, searched=None, step=0, default=True,
             source=_OPENCODE, **flag("prune", True, False),
             note="erase old tool outputs past the newest 40,000 tokens when more than 20,000 would go"),
    ),
    forms=(
        Form("json", "opencode.json (project) or ~/.config/opencode/opencode.json", _OPENCODE,
             {"compaction.reserved": ("compaction", "reserved"), "compaction.prune": ("compaction", "prune")},
             fixed={("$schema",): "https://opencode.ai/config.json", ("compaction", "auto"): True}),
    ),
)

CLINE = AgentKnobs(
    preset="cline", agent="Cline (SDK)",
    knobs=(
        Knob("compaction.preserveRecentTokens", ("keep_tokens",), "int", "tokens", allowed=Span(0, None),
             searched=Span(W(0.02), W(0.5), "the kept part never exceeds the compaction target"), step=256,
             default=20_000, source=_CLINE, **param("keep_tokens"),
             note="the newest tokens kept verbatim (at most what the compaction target leaves)"),
    ),
    forms=(
        Form("json", "the Cline SDK session config's compaction object (CoreSessionConfig)", _CLINE,
             {"compaction.preserveRecentTokens": ("compaction", "preserveRecentTokens")},
             fixed={("compaction", "enabled"): True, ("compaction", "strategy"): "agentic"}),
    ),
)


def _aider_default(window: int) -> dict[str, object]:
    return {"trigger": "share", "trigger_share": 1 / 16, "trigger_min_tokens": 1024, "trigger_max_tokens": 8192}


_AIDER_NAME = "max-chat-history-tokens"
AIDER = AgentKnobs(
    preset="aider", agent="Aider",
    knobs=(
        Knob(_AIDER_NAME, ("trigger", "trigger_tokens", "trigger_share", "trigger_min_tokens", "trigger_max_tokens"),
             "int", "tokens", allowed=Span(None, None), searched=Span(1024, W(0.5)), step=256, default=None,
             source=_AIDER, **limit(unset=_aider_default),
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
    preset="goose", agent="goose",
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

_LETTA_SETTINGS = ("compaction_settings",)
LETTA = AgentKnobs(
    preset="letta", agent="Letta",
    knobs=(
        Knob("compaction_settings.sliding_window_percentage", ("evict_share",), "float", "share",
             allowed=Span(0, 1), searched=Span(0.1, 0.8), step=0.05, default=0.3, source=_LETTA,
             **param("evict_share", float),
             note="the share of messages eviction starts from (the first attempt evicts 0.1 more); what "
                  "is kept must fit in 1 - this of the window"),
    ),
    forms=(
        Form("json", "the agent's compaction_settings (agent create or modify, REST or SDK)", _LETTA,
             {"compaction_settings.sliding_window_percentage": (*_LETTA_SETTINGS, "sliding_window_percentage")},
             fixed={(*_LETTA_SETTINGS, "mode"): "sliding_window"}),
    ),
)

ENTRIES = (GEMINI_CLI, OPENCODE, CLINE, AIDER, GOOSE, LETTA)
