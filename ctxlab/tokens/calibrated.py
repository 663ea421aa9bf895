"""The `calibrated` estimator: a linear model of character-class and shape features, fitted by
ctxlab against a reference tokenizer.

Tokenizers merge common letter runs into one token, split digit runs into groups, spend about one
token per CJK character and merge indentation; counting characters per class plus a few run
counts captures most of that at a fraction of a tokenizer's cost. The weights are fitted by
bounded (non-negative) least squares on relative error with scipy (rows weighted by 1/actual), so
short messages count as much as long ones, together with a per-message and a per-tool-call
overhead. Fits on observations that may disagree with the model (provider deltas of real logs)
use a robust loss and report the observations they treated as outliers.

Fitting against what a provider billed needs agent logs, a higher layer:
`ctxlab.metrics.calibration.fit_provider_calibration`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from scipy.optimize import least_squares, lsq_linear

from ctxlab.errors import CtxlabError, UnknownNameError
from ctxlab.messages import Conversation, Message
from ctxlab.tokens.base import CachedCounter

CALIBRATIONS = Path(__file__).with_name("calibrations")
# A robust fit counts log-ratio errors up to ROBUST_SCALE (about 10%) quadratically and larger
# ones about linearly (scipy's soft_l1), so a few observations the model cannot explain do not
# drag the weights; observations still off by more than OUTLIER_ERROR after the fit are reported.
ROBUST_SCALE = 0.1
OUTLIER_ERROR = 0.5
# A robust fit is pulled weakly towards the shipped o200k_base calibration (PRIOR_PULL per 100%
# deviation of a weight, against errors of about ROBUST_SCALE per observation), so a feature the
# logs barely exercise (a few Han characters in an English session) keeps a sensible weight
# instead of whatever explains one delta.
PRIOR_PULL = 0.02

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


class Outlier(NamedTuple):
    """An observation a fit could not explain: which one, what the fit estimated, what it was."""

    span: str
    estimate: float
    actual: float


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
        outliers: observations the fit could not explain (off by more than `OUTLIER_ERROR`).
        heldout_mape: MAPE on observations held out of the fit (k-fold by time), when measured.
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
    outliers: tuple[Outlier, ...] = ()
    heldout_mape: float | None = None

    def save(self, path: str | Path) -> None:
        """Write the calibration as small, readable JSON."""
        data = {"reference": self.reference, "fitted_on": self.fitted_on, "n_train": self.n_train,
                "train_mape": round(self.train_mape, 3), "per_message": round(self.per_message, 4),
                "per_tool_call": round(self.per_tool_call, 4), "reply_priming": self.reply_priming,
                "tool_schema_scale": round(self.tool_schema_scale, 4),
                "weights": {k: round(float(v), 5) for k, v in self.weights.items()}}
        if self.heldout_mape is not None:
            data["heldout_mape"] = round(self.heldout_mape, 3)
        if self.outliers:
            data["outliers"] = [o._asdict() for o in self.outliers]
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
            outliers = tuple(Outlier(str(o["span"]), float(o["estimate"]), float(o["actual"]))
                             for o in data.get("outliers") or ())
            weights = {k: float(data["weights"].get(k, 0.0)) for k in FEATURES}
            return cls(**{**data, "weights": weights, "outliers": outliers})
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
    """Fit the estimator against a reference tokenizer.

    Args:
        items: texts (counted as user messages), messages, or conversations (their tool
            definitions fit the tool-schema factor).
        reference: a counter name, normally an exact tokenizer. A provider reference
            (``provider:<model>``) needs agent logs: `ctxlab.metrics.calibration.fit_provider_calibration`.
        fitted_on: a description of the data, stored with the calibration.

    Raises:
        CtxlabError: no messages to fit on, or a provider reference.
    """
    from ctxlab.tokens import get_counter

    if str(reference).startswith("provider:"):
        raise CtxlabError(f"{reference}: fitting on provider deltas needs agent logs; use "
                          "ctxlab.metrics.calibration.fit_provider_calibration (or `ctxlab calibrate`)")
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


def fit_observations(rows: Sequence[Sequence[float]] | np.ndarray, actual: Sequence[float] | np.ndarray, reference: str,
                     reply_priming: int, fitted_on: str = "", *, labels: Sequence[str] | None = None,
                     robust: bool = False) -> Calibration:
    """Fit weights and overheads to observations (`span_features` rows and their real counts).

    Bounded least squares on relative error (weights >= 0; `solve_relative`); with `robust`, a
    robust loss on the log ratio, and the observations still off by more than `OUTLIER_ERROR`
    are reported as outliers (named by `labels`). `train_mape` is per observation, over all.
    """
    x, y = np.asarray(rows, dtype=float), np.asarray(actual, dtype=float)
    solution = solve_relative(x, y, robust=robust)
    weights = dict(zip(FEATURES, (float(v) for v in solution[:-2]), strict=False))
    estimated = x @ solution
    errors = np.abs(np.round(estimated) - y) / y
    names = list(labels) if labels is not None else [str(i) for i in range(len(y))]
    worst = [i for i in np.argsort(-errors) if errors[i] > OUTLIER_ERROR] if robust else []
    outliers = tuple(Outlier(names[i], round(float(estimated[i]), 1), float(y[i])) for i in worst)
    return Calibration(weights, float(solution[-2]), float(solution[-1]), reply_priming, reference, len(y),
                       float(np.mean(errors) * 100), fitted_on=fitted_on, outliers=outliers)


def solve_relative(x: np.ndarray, y: np.ndarray, *, robust: bool = False) -> np.ndarray:
    """Non-negative weights `w` minimising the relative errors of ``x @ w`` against `y`.

    Plain: squared ``(x @ w - y) / y`` (`scipy.optimize.lsq_linear`, bounded). Robust: from there,
    `scipy.optimize.least_squares` with the soft_l1 loss (scale `ROBUST_SCALE`) on the log ratio
    ``log(x @ w / y)``, the relative error made symmetric: an observation 60x below its estimate
    (a tool call the agent never resent) costs like one 60x above, about log(60), instead of
    outweighing every other observation.
    """
    a = x / y[:, None]
    start = lsq_linear(a, np.ones(len(y)), bounds=(0, np.inf), method="bvls").x
    if not robust:
        return start
    floor = 1e-9 * float(y.min())

    def log_ratio(w: np.ndarray) -> np.ndarray:
        return np.log(np.maximum(x @ w, floor) / y)

    def jacobian(w: np.ndarray) -> np.ndarray:
        return x / np.maximum(x @ w, floor)[:, None]

    prior = _prior()
    pull = PRIOR_PULL / (np.abs(prior) + 0.05)

    def residuals(w: np.ndarray) -> np.ndarray:
        return np.concatenate([log_ratio(w), pull * (w - prior)])

    def jacobian_all(w: np.ndarray) -> np.ndarray:
        return np.vstack([jacobian(w), np.diag(pull)])

    fit = least_squares(residuals, np.maximum(start, 1e-6), jac=jacobian_all, bounds=(0, np.inf), loss="soft_l1",
                        f_scale=ROBUST_SCALE, x_scale="jac")
    return np.clip(fit.x, 0, None)


def _prior() -> np.ndarray:
    """The shipped o200k_base calibration as a weight vector (features, per message, per call)."""
    shipped = Calibration.load(CALIBRATIONS / "o200k_base.json")
    return np.array([*(shipped.weights[f] for f in FEATURES), shipped.per_message, shipped.per_tool_call])


def span_features(messages: Sequence[Message], texts: Sequence[str] = ()) -> list[float]:
    """One observation's features: the messages' summed `message_features` plus those of extra
    `texts` (thinking a prompt carries), then the number of messages and of tool calls (the
    per-message and per-tool-call terms)."""
    total = [0.0] * (len(FEATURES) + 2)
    rows = [[*message_features(m), 1, len(m.tool_calls)] for m in messages]
    rows += [[*text_features(t), 0, 0] for t in texts]
    for row in rows:
        total = [a + b for a, b in zip(total, row, strict=False)]
    return total


def message_features(message: Message) -> list[int]:
    """Summed feature counts of every text in a message (content, name, tool-call names, arguments)."""
    total = [0] * len(FEATURES)
    for text in _message_texts(message):
        total = [a + b for a, b in zip(total, text_features(text), strict=False)]
    return total


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
