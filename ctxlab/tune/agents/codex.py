"""Codex's knob: ``model_auto_compact_token_limit`` in ``~/.codex/config.toml``.

Sources: openai/codex ``codex-rs/core/src/models_manager/model_info.rs`` @ 2f83b5db
(``with_config_overrides``: the configured value becomes the model's ``auto_compact_token_limit``),
``codex-rs/protocol/src/openai_models.rs`` @ 8db07003 (unset: ``context_window * 9 / 10``), the
compaction check in ``codex-rs/core/src/compact.rs`` @ 0100b103 (``total_usage_tokens >=
auto_compact_limit``), and the config reference (developers.openai.com/codex/config-reference:
"Token threshold that triggers automatic history compaction (unset uses model defaults)").
``-c key=value`` overrides a config key on the command line; Codex reads no environment variable
for it. Later releases take the smaller of the configured value and 90% of the window (as read by
others from rust-v0.154.0, not confirmed here), so ctxlab searches at or below 90%.
"""

from __future__ import annotations

from ctxlab.tune.convert import limit
from ctxlab.tune.knobs import AgentKnobs, Form, Knob, Ref, Span, W

_CONFIG = Ref("openai/codex", "codex-rs/core/src/models_manager/model_info.rs (with_config_overrides)", "2f83b5db")
_DEFAULT = Ref("openai/codex", "codex-rs/protocol/src/openai_models.rs (auto_compact_token_limit)", "8db07003")
_DOCS = Ref("https://developers.openai.com/codex/config-reference", "model_auto_compact_token_limit", "read 2026-11")

CODEX = AgentKnobs(
    preset="codex", agent="OpenAI Codex CLI",
    knobs=(
        Knob("model_auto_compact_token_limit", ("trigger", "trigger_tokens", "trigger_share"), "int", "tokens",
             allowed=Span(1, None), searched=Span(W(0.3), W(0.9), "later releases cap it at 90% of the window"),
             step=256, default=None, source=_DEFAULT,
             **limit(unset={"trigger": "share", "trigger_share": 0.9}),
             note="unset: 90% of the context window (context_window * 9 / 10); compacts when the reported "
                  "usage reaches it (>=)"),
    ),
    forms=(
        Form("toml", "~/.codex/config.toml (top-level key, before any table)", _DOCS,
             {"model_auto_compact_token_limit": ("model_auto_compact_token_limit",)},
             template="# ~/.codex/config.toml"),
        Form("cli", "one run, on the command line", _CONFIG,
             {"model_auto_compact_token_limit": ("-c", "model_auto_compact_token_limit")}, template="codex"),
    ),
)

ENTRIES = (CODEX,)
