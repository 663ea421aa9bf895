"""How wrong token estimators are: per-message rows against reference tokenizers, by content kind.

Estimators err differently on prose, CJK, code, JSON and tool output, so every row carries the
message's content kind and language; `conversation_rows` counts each whole request with its tool
definitions, which the seed estimators do not count at all.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence

import pandas as pd

from ctxlab import caches
from ctxlab.messages import Conversation, Message
from ctxlab.store.schema import EstimatorConversationRow, EstimatorRow
from ctxlab.tokens import TokenCounter, get_counter

KINDS = ("prose", "cjk", "code", "json", "tool_output")
LANGUAGES = ("en", "zh", "ja", "ko", "other")
CJK_SHARE = 0.3
# Kind and language are judged on the first characters only: a 100 kB tool output does not
# change its nature halfway, and the metrics must stay cheaper than the tokenizer they audit.
_SAMPLE_CHARS = 20_000

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff]")
_HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
_LATIN = re.compile(r"[A-Za-z]")
_ACCENTED = re.compile(r"[\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f]")
_OTHER_LETTERS = re.compile(r"[\u0370-\u03ff\u0400-\u052f\u0590-\u06ff\u0900-\u0dff\u0e00-\u0e7f]")
_FENCE = re.compile(r"^\s*(```|~~~)", re.MULTILINE)
_FENCED = re.compile(r"^\s*(?:```|~~~)[^\n]*\n(.*?)^\s*(?:```|~~~)", re.DOTALL | re.MULTILINE)
_JSON_LINE = re.compile(r'^\s*("[^"]*"\s*:|[\[\]{}],?$|[\[{].*[\]}],?$|"[^"]*",?$|-?\d[\d.eE+-]*,?$|(true|false|null),?$)')
# A line looks like code when it ends a statement or opens a block, calls something, assigns, or
# starts like a declaration. Prose ending in ":" or ")" alone does not count.
_CODE_ENDINGS = (";", "{", "}", "=>")
_CALL_ENDINGS = (")", "),", ");")
_CALL = re.compile(r"\w\(")
_BLOCK_OPENER = re.compile(r"\s*(if|for|while|elif|else|try|except|finally|with|async def)\b")
_CODE_START = re.compile(
    r"\s*([\w.\[\]\"']+\s*[-+*/|&]?=\s*\S|def |class |import |from \S+ import |function |const |let |var |"
    r"return\b|#include|package |func |fn |pub |public |private |@\w+|//|/\*|\*/|#!|\$ )")


def content_kind(text: str, role: str) -> str:
    """What a message's text is: ``json``, ``code``, ``cjk``, ``tool_output`` or ``prose``.

    JSON parses (or its lines are JSON-shaped, as in truncated output); code is fenced or
    code-shaped lines dominate; CJK is 30% or more of the letters; remaining tool-role text
    (logs, listings) is tool output; everything else is prose.
    """
    stripped = text.strip()
    if stripped.startswith(('{"', '[{', '["')) or (stripped[:1] in ("{", "[") and _is_json(stripped)):
        return "json"
    lines = [line for line in stripped[:_SAMPLE_CHARS].splitlines() if line.strip()]
    if lines and _code_share(stripped, lines) >= 0.5:
        return "code"
    if _cjk_share(text) >= CJK_SHARE:
        return "cjk"
    return "tool_output" if role == "tool" else "prose"


def language(text: str) -> str:
    """The dominant language by script: kana ``ja``, Hangul ``ko``, Han ``zh``, Latin ``en``
    (accent-heavy Latin and other scripts are ``other``)."""
    if text.isascii():
        return "en" if _LATIN.search(text) else "other"
    text = text[:_SAMPLE_CHARS]
    han, kana, hangul, latin, accented, others = (
        _count(p, text) for p in (_HAN, _KANA, _HANGUL, _LATIN, _ACCENTED, _OTHER_LETTERS))
    letters = han + kana + hangul + latin + accented + others
    if not letters:
        return "other"
    if (han + kana + hangul) / letters >= CJK_SHARE:
        if hangul > han + kana:
            return "ko"
        return "ja" if kana and kana >= 0.1 * (han + kana) else "zh"
    # English has almost no accented letters; French, German or Spanish have a few percent.
    return "en" if latin / letters >= 0.5 and accented <= 0.02 * latin else "other"


def message_rows(conversation: Conversation, counters: Sequence[str | TokenCounter],
                 references: Sequence[str | TokenCounter]) -> list[EstimatorRow]:
    """One row per message x counter x reference: ``estimated`` is ``counter.count_message``,
    ``actual`` ``reference.count_message``."""
    estimators = [get_counter(c) for c in counters]
    refs = [get_counter(r) for r in references]
    rows = []
    for m in conversation.messages:
        kind, lang, chars = describe(m)
        for ref in refs:
            actual = ref.count_message(m)
            rows += [EstimatorRow(conversation.id, m.id, m.role, kind, lang, chars, est.name, ref.name,
                                  est.count_message(m), actual) for est in estimators]
    return rows


def conversation_rows(conversation: Conversation, counters: Sequence[str | TokenCounter],
                      references: Sequence[str | TokenCounter]) -> list[EstimatorConversationRow]:
    """One row per counter x reference for the whole request (`count_messages`, tool definitions included)."""
    estimators = [get_counter(c) for c in counters]
    rows = []
    for ref in (get_counter(r) for r in references):
        actual = ref.count_messages(conversation.messages, conversation.tools)
        rows += [EstimatorConversationRow(conversation.id, est.name, ref.name,
                                          est.count_messages(conversation.messages, conversation.tools), actual)
                 for est in estimators]
    return rows


def error_table(df: pd.DataFrame, by: str | Sequence[str] = ("counter",)) -> pd.DataFrame:
    """Estimator error statistics per group of rows.

    Returns:
        One row per group with n, mean_signed_error_pct (mean of (est - act) / act x 100:
        positive overcounts), mape_pct, p95_abs_error_pct and underestimate_share (share of rows
        with est < act, the ones that overflow a real window). Rows with actual 0 are ignored.
    """
    keys = [by] if isinstance(by, str) else list(by)
    df = df[df["actual"] > 0]
    err = (df["estimated"] - df["actual"]) / df["actual"] * 100
    frame = df[keys].assign(err=err, abs_err=err.abs(), under=(df["estimated"] < df["actual"]).astype(float))
    grouped = frame.groupby(keys, sort=False)
    table = pd.DataFrame({
        "n": grouped.size(),
        "mean_signed_error_pct": grouped["err"].mean(),
        "mape_pct": grouped["abs_err"].mean(),
        "p95_abs_error_pct": grouped["abs_err"].quantile(0.95),
        "underestimate_share": grouped["under"].mean(),
    })
    return table.reset_index()


def describe(message: Message) -> tuple[str, str, int]:
    """A message's content kind, language and length in characters (tool-call names and
    arguments included; a message without text is judged by its arguments); cached per message."""
    return caches.kept(_DESCRIBED, message, _DESCRIBED_ENTRIES, _description)


# A log's messages are described once for their own rows and again inside every provider-call span.
_DESCRIBED: dict[Message, tuple[str, str, int]] = caches.per_conversation({})
_DESCRIBED_ENTRIES = 100_000


def _description(message: Message) -> tuple[str, str, int]:
    text = message.text or "\n".join(c.arguments for c in message.tool_calls)
    chars = sum(len(p) for p in message.parts) + sum(len(c.name) + len(c.arguments) for c in message.tool_calls)
    return content_kind(text, message.role), language(text), chars


def dominant(weighted: Iterable[tuple[str, int]], default: str = "other") -> str:
    """The label carrying the most weight among ``(label, weight)`` pairs (first seen on ties)."""
    weight: Counter[str] = Counter()
    for label, chars in weighted:
        weight[label] += chars
    return weight.most_common(1)[0][0] if weight else default


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
        return True
    except ValueError:
        lines = [line for line in text.splitlines()[:200] if line.strip()]
        return len(lines) >= 3 and sum(bool(_JSON_LINE.match(line)) for line in lines) >= 0.8 * len(lines)


def _code_share(text: str, lines: list[str]) -> float:
    """Share of the text that is code: fenced blocks by characters, else code-shaped lines."""
    if len(_FENCE.findall(text)) >= 2:
        return sum(len(block) for block in _FENCED.findall(text)) / max(len(text), 1)
    return sum(_is_code_line(line) for line in lines) / len(lines)


def _is_code_line(line: str) -> bool:
    end = line.rstrip()
    return (end.endswith(_CODE_ENDINGS) or (end.endswith(_CALL_ENDINGS) and bool(_CALL.search(end)))
            or (end.endswith(":") and bool(_BLOCK_OPENER.match(line))) or bool(_CODE_START.match(line)))


def _cjk_share(text: str) -> float:
    if text.isascii():
        return 0.0
    text = text[:_SAMPLE_CHARS]
    cjk = _count(_HAN, text) + _count(_KANA, text) + _count(_HANGUL, text)
    return cjk / (cjk + _count(_LATIN, text)) if cjk else 0.0


def _count(pattern: re.Pattern[str], text: str) -> int:
    return pattern.subn("", text)[1]
