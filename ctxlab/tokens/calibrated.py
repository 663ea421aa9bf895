"""The `calibrated` estimator: a linear model of character-class and shape features, fitted by
ctxlab against a reference tokenizer.

Tokenizers merge common letter runs into one token, split digit runs into groups, spend about one
token per CJK character and merge indentation; counting characters per class plus a few run
counts captures most of that at a fraction of a tokenizer's cost. The weights are fitted by
non-negative least squares on relative error (rows weighted by 1/actual), so short messages count
as much as long ones, together with a per-message and a per-tool-call overhead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ctxlab.errors import CtxlabError, UnknownNameError
from ctxlab.messages import Conversation, Message
from ctxlab.tokens.base import CachedCounter

CALIBRATIONS = Path(__file__).with_name("calibrations")

# Features, in the order of the weights. Character classes partition the text ("other" is the
# remainder: Cyrillic, emoji, non-ASCII spaces and symbols...); shape features count runs that
# tokenizers merge or split (letter, digit and punctuation runs, indentation, camelCase...).
FEATURES = ("latin", "han", "kana", "hangul", "cjk_punct", "digit", "space", "punct", "other",
            "word_runs", "digit_runs", "newlines", "space_runs", "punct_runs", "camel", "upper", "astral")
# Non-ASCII classes are counted with regular expressions, only on texts that have such characters.
_NON_ASCII = {
    "latin": re.compile(r"[\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f]"),
    "han": re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"),
    "kana": re.compile(r"[\u3040-\u30ff\u31f0-\u31ff]"),
    "hangul": re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]"),
    "cjk_punct": re.compile(r"[\u3000-\u303f\uff00-\uffef]"),
    "astral": re.compile(r"[\U00010000-\U0010ffff]"),
}


def _table(**groups: bytes) -> bytes:
    """A `bytes.translate` table mapping the bytes of each group to its one-letter code, others to x."""
    table = bytearray(b"x" * 256)
    for code, members in groups.items():
        for byte in members:
            table[byte] = ord(code)
    return bytes(table)


_LOWER, _UPPER = bytes(range(97, 123)), bytes(range(65, 91))
_DIGITS, _BLANKS = b"0123456789", b" \t"
_PUNCT = bytes(b for b in range(33, 127) if not chr(b).isalnum())
# ASCII features are counted on the UTF-8 bytes, one C-speed translate per kind of run: about
# 20x faster than regular expressions, and faster than the tokenizer it estimates.
_CLASS = _table(l=_LOWER, U=_UPPER, d=_DIGITS, s=_BLANKS + b"\r\x0b\x0c", n=b"\n", p=_PUNCT)
_LETTER, _DIGIT = _table(L=_LOWER + _UPPER), _table(D=_DIGITS)
_BLANK, _PUNCTS, _CASE = _table(S=_BLANKS), _table(P=_PUNCT), _table(l=_LOWER, U=_UPPER)


def text_features(text: str) -> list[int]:
    """The feature counts of a text, in `FEATURES` order."""
    data = b"\0" + text.encode("utf-8", "surrogatepass")  # a leading non-member makes every run "x" + member
    classes = data.translate(_CLASS)
    upper = classes.count(b"U")
    f = dict(latin=classes.count(b"l") + upper, digit=classes.count(b"d"),
             space=classes.count(b"s") + classes.count(b"n"), punct=classes.count(b"p"),
             word_runs=data.translate(_LETTER).count(b"xL"), digit_runs=data.translate(_DIGIT).count(b"xD"),
             newlines=classes.count(b"n"), space_runs=data.translate(_BLANK).count(b"xSS"),
             punct_runs=data.translate(_PUNCTS).count(b"xP"), camel=data.translate(_CASE).count(b"lU"),
             upper=upper)
    if not text.isascii():
        for name, pattern in _NON_ASCII.items():
            f[name] = f.get(name, 0) + pattern.subn("", text)[1]
    f["other"] = len(text) - sum(f.get(n, 0) for n in FEATURES[:8])
    return [f.get(name, 0) for name in FEATURES]


@dataclass(frozen=True)
class Calibration:
    """A fitted estimator: feature weights and overheads, and how well it fitted.

    Attributes:
        weights: tokens per unit of each feature.
        per_message: tokens added to every message (role, separators).
        per_tool_call: tokens added per tool call, on top of its name and arguments.
        reply_priming: tokens added once per request.
        reference: the tokenizer it was fitted against.
        n_train: messages it was fitted on.
        train_mape: per-message mean absolute percentage error on the training messages.
        tool_schema_scale: factor on the text estimate of the tool definitions' JSON.
        fitted_on: what the training data was.
    """

    weights: Mapping[str, float]
    per_message: float
    per_tool_call: float
    reply_priming: int
    reference: str
    n_train: int
    train_mape: float
    tool_schema_scale: float = 1.0
    fitted_on: str = ""

    def save(self, path: str | Path) -> None:
        """Write the calibration as small, readable JSON."""
        data = {"reference": self.reference, "fitted_on": self.fitted_on, "n_train": self.n_train,
                "train_mape": round(self.train_mape, 3), "per_message": round(self.per_message, 4),
                "per_tool_call": round(self.per_tool_call, 4), "reply_priming": self.reply_priming,
                "tool_schema_scale": round(self.tool_schema_scale, 4),
                "weights": {k: round(float(v), 5) for k, v in self.weights.items()}}
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        """Read a calibration written by `save`.

        Raises:
            CtxlabError: unreadable or malformed file, or unknown features.
        """
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            unknown = set(data["weights"]) - set(FEATURES)
            if unknown:
                raise ValueError(f"unknown features {sorted(unknown)}")
            return cls(**{**data, "weights": {k: float(data["weights"].get(k, 0.0)) for k in FEATURES}})
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CtxlabError(f"{path}: not a ctxlab calibration ({exc})") from exc


class CalibratedCounter(CachedCounter):
    """Estimates tokens with a fitted `Calibration`; fast, no tokenizer needed at count time."""

    def __init__(self, calibration: Calibration, name: str = "calibrated"):
        super().__init__()
        self.calibration = calibration
        self.name = name
        self._weights = [float(calibration.weights.get(f, 0.0)) for f in FEATURES]

    def estimate(self, text: str) -> float:
        """The unrounded token estimate of a text."""
        return sum(w * x for w, x in zip(self._weights, text_features(text), strict=False) if x) if text else 0.0

    def _count_text(self, text: str) -> int:
        return max(1, round(self.estimate(text)))

    def _count_message(self, message: Message) -> int:
        c = self.calibration
        total = c.per_message + c.per_tool_call * len(message.tool_calls)
        return round(total + sum(self.estimate(t) for t in _message_texts(message)))

    def _count_tools(self, tools: Sequence[Mapping[str, Any]]) -> int:
        text = json.dumps(list(tools), separators=(",", ":"), ensure_ascii=False)
        return round(self.calibration.tool_schema_scale * self.estimate(text))

    def overhead(self, tools: Sequence[Mapping[str, Any]] | None = None) -> int:
        return self.calibration.reply_priming + self.count_tools(tools)


def fit_calibration(items: Iterable[str | Message | Conversation], reference: str = "o200k_base",
                    *, fitted_on: str = "") -> Calibration:
    """Fit the estimator against a reference tokenizer, or against what a provider billed.

    Args:
        items: texts (counted as user messages), messages, or conversations (their tool
            definitions fit the tool-schema factor). A provider reference needs conversations
            with ``meta.provider_calls`` (agent logs).
        reference: a counter name, normally an exact tokenizer; or ``provider:<model>`` (or
            ``provider:*``, every model pooled) to fit on provider deltas
            (`ctxlab.metrics.provider`): each delta is one observation whose features are summed
            over its messages, with one per-message term per message and one per-tool-call term
            per call. The system prompt, tool schemas and reply priming cancel in a delta, so a
            provider calibration has no reply priming and no tool-schema factor.
        fitted_on: a description of the data, stored with the calibration.

    Raises:
        CtxlabError: no messages (or no usable provider deltas) to fit on.
    """
    from ctxlab.tokens import get_counter

    if str(reference).startswith("provider:"):
        from ctxlab.metrics.provider import usable_deltas

        deltas = usable_deltas(_conversations(items), reference)
        rows = [span_features(c.messages[d.start:d.end]) for c, d in deltas]
        return fit_observations(rows, [d.actual for _, d in deltas], reference, 0, fitted_on)
    ref = get_counter(reference)
    rows, actual, tool_sets = [], [], []
    for item in items:
        messages, tools = _unpack(item)
        for message in messages:
            rows.append(span_features([message]))
            actual.append(ref.count_message(message))
        if tools:
            tool_sets.append(tools)
    if not rows:
        raise CtxlabError("nothing to calibrate on: no messages in the training data")
    draft = fit_observations(rows, actual, ref.name, ref.overhead(None), fitted_on)
    return _with_tool_scale(draft, tool_sets, ref)


def fit_observations(rows: Sequence[Sequence[float]], actual: Sequence[float], reference: str,
                     reply_priming: int, fitted_on: str = "") -> Calibration:
    """Fit weights and overheads to observations (`span_features` rows and their real counts)
    by non-negative least squares on relative error; `train_mape` is per observation."""
    x, y = np.asarray(rows, dtype=float), np.asarray(actual, dtype=float)
    solution = nnls(x / y[:, None], np.ones(len(y)))
    weights = dict(zip(FEATURES, (float(v) for v in solution[:-2]), strict=False))
    estimated = np.round(x @ solution)
    return Calibration(weights, float(solution[-2]), float(solution[-1]), reply_priming, reference,
                       len(y), float(np.mean(np.abs(estimated - y) / y) * 100), fitted_on=fitted_on)


def span_features(messages: Sequence[Message]) -> list[float]:
    """One observation's features: the messages' summed `message_features`, then the number of
    messages and of tool calls (the per-message and per-tool-call terms)."""
    total = [0.0] * (len(FEATURES) + 2)
    for message in messages:
        row = [*message_features(message), 1, len(message.tool_calls)]
        total = [a + b for a, b in zip(total, row, strict=False)]
    return total


def message_features(message: Message) -> list[int]:
    """Summed feature counts of every text in a message (content, name, tool-call names, arguments)."""
    total = [0] * len(FEATURES)
    for text in _message_texts(message):
        total = [a + b for a, b in zip(total, text_features(text), strict=False)]
    return total


def nnls(a: np.ndarray, b: np.ndarray, tol: float = 1e-10) -> np.ndarray:
    """Non-negative least squares (Lawson-Hanson) on the normal equations: min |ax - b|, x >= 0."""
    ata, atb = a.T @ a, a.T @ b
    n = a.shape[1]
    active, x = np.zeros(n, dtype=bool), np.zeros(n)
    for _ in range(3 * n):
        gradient = atb - ata @ x
        if active.all() or (gradient[~active] <= tol).all():
            break
        active[int(np.argmax(np.where(active, -np.inf, gradient)))] = True
        while True:
            z = np.zeros(n)
            if active.any():
                z[active] = np.linalg.lstsq(ata[np.ix_(active, active)], atb[active], rcond=None)[0]
            if (z[active] > tol).all():
                break
            # Step back towards x until the first weight hits zero, then free it (the active set
            # shrinks every time, so this loop ends).
            negative = active & (z <= tol)
            alpha = np.min(x[negative] / np.maximum(x[negative] - z[negative], 1e-300))
            x = x + alpha * (z - x)
            active &= x > tol
        x = z
    return x


def load_calibrated(name_or_path: str | Path = "o200k_base") -> CalibratedCounter:
    """The calibrated counter for a shipped reference name (``o200k_base``, ``cl100k_base``) or a
    calibration JSON file.

    Raises:
        UnknownNameError: neither a shipped calibration nor an existing file.
        CtxlabError: the file is not a calibration.
    """
    text = str(name_or_path)
    shipped = CALIBRATIONS / f"{text}.json"
    if shipped.is_file():
        return CalibratedCounter(Calibration.load(shipped), "calibrated" if text == "o200k_base" else f"calibrated:{text}")
    if Path(text).is_file():
        return CalibratedCounter(Calibration.load(text), f"calibrated:{text}")
    raise UnknownNameError("calibration", text, [*shipped_calibrations(), "<path to a calibration .json>"])


def shipped_calibrations() -> list[str]:
    """Reference names that have a calibration shipped with ctxlab."""
    return sorted(p.stem for p in CALIBRATIONS.glob("*.json"))


def _message_texts(message: Message) -> list[str]:
    texts = list(message.parts)
    if message.name:
        texts.append(message.name)
    for call in message.tool_calls:
        texts += (call.name, call.arguments)
    return texts


def _conversations(items: Iterable[Any]) -> list[Conversation]:
    return [item for item in items if isinstance(item, Conversation)]


def _unpack(item: str | Message | Conversation) -> tuple[Sequence[Message], Sequence[Mapping[str, Any]]]:
    if isinstance(item, Conversation):
        return item.messages, item.tools
    if isinstance(item, Message):
        return (item,), ()
    if isinstance(item, str):
        return ((Message(role="user", content=item),) if item else ()), ()
    raise TypeError(f"cannot calibrate on {type(item).__name__}")


def _with_tool_scale(calibration: Calibration, tool_sets: list[Sequence[Mapping[str, Any]]],
                     ref: Any) -> Calibration:
    """Fit the factor between the text estimate of tool JSON and the reference's schema count."""
    if not tool_sets:
        return calibration
    counter = CalibratedCounter(calibration)
    estimated = np.array([counter.count_tools(t) for t in tool_sets], dtype=float)
    actual = np.array([ref.overhead(t) - ref.overhead(None) for t in tool_sets], dtype=float)
    keep = (estimated > 0) & (actual > 0)
    if not keep.any():
        return calibration
    # The scale minimising the summed squared relative error of scale * estimated vs actual.
    q = estimated[keep] / actual[keep]
    scale = float(np.sum(q) / np.sum(q**2))
    return replace(calibration, tool_schema_scale=scale)
