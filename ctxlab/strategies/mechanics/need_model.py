"""A learned need model: how likely an old tool output holds what the agent will soon need.

A logistic regression over `ctxlab.strategies.mechanics.need.FEATURES`, standardized, stored as
plain JSON (`FORMAT`, `VERSION`): the numbers and what they were fitted on, nothing that runs when
read. People share model files, so loading one reads JSON into a strict schema (pydantic, unknown
keys refused), checks its format, version and feature list against this ctxlab's, and the
``sha256`` of its content that `ctxlab learn` wrote into it, and fails in one line (`CtxlabError`)
otherwise; a model of another version says to fit it again. The digest makes an edited file
evident (a changed coefficient is still valid JSON); it is no signature: whoever edits a file can
write a new digest. Loading never runs code, so the most a forged file can do is rank badly.

    model = NeedModel.load("my-sessions.json")
    scores = model.predict(item_features(messages, counts, items))
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from ctxlab.errors import CtxlabError
from ctxlab.strategies.mechanics.need import FEATURES

FORMAT = "ctxlab.learned-need-model"
VERSION = 2  # 2: the content digest (``sha256``); version 1 files had none
MAX_BYTES = 2_000_000  # a model is a few kilobytes; anything far larger is not one
DEFAULT = Path(__file__).resolve().parents[1] / "models" / "learned.json"


class NeedModel(NamedTuple):
    """Standardization and logistic coefficients per feature, and what the fit recorded (``about``:
    label, horizon, training files, measures; shown, never executed)."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    about: dict[str, Any]

    def predict(self, rows: Sequence[Sequence[float]]) -> list[float]:
        """The probability of need of each feature row."""
        return [_sigmoid(self.intercept + sum(c * (x - m) / s for c, x, m, s in
                                              zip(self.coef, row, self.mean, self.scale, strict=True)))
                for row in rows]

    def to_json(self) -> str:
        """The model file's text, with the digest of its content."""
        body = {"format": FORMAT, "version": VERSION, "features": list(self.features), "mean": list(self.mean),
                "scale": list(self.scale), "coef": list(self.coef), "intercept": self.intercept, "about": self.about}
        return json.dumps({**body, "sha256": digest(body)}, indent=1, sort_keys=True)

    @classmethod
    def load(cls, path: str | Path) -> NeedModel:
        """Read and check a model file (cached by path, size and modification time).

        Raises:
            CtxlabError: a missing, oversized, non-JSON, foreign or tampered file, or one written by
                another version of the model format (one line naming the file and the reason).
        """
        path = Path(path)
        try:
            stat = path.stat()
        except OSError as exc:
            raise CtxlabError(f"{path}: cannot read the model file ({exc.strerror or exc})") from exc
        return _load(str(path), stat.st_size, stat.st_mtime_ns)

    @classmethod
    def default(cls) -> NeedModel:
        """The model shipped with ctxlab (docs/learned.md: what it was fitted on, how to refit it)."""
        return cls.load(DEFAULT)

    @staticmethod
    def default_path() -> Path:
        """Where the shipped model is (package data)."""
        return DEFAULT


def digest(body: dict[str, Any]) -> str:
    """The sha256 of a model file's content without its digest, on its canonical JSON (so only the
    numbers and names count, not the layout)."""
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


@lru_cache(maxsize=16)
def _load(path: str, size: int, mtime: int) -> NeedModel:
    if size > MAX_BYTES:
        raise CtxlabError(f"{path}: not a ctxlab learned model ({size:,} bytes; a model is a few kilobytes)")
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CtxlabError(f"{path}: not a ctxlab learned model (not JSON: {exc})") from exc
    return parse(data, path)


def parse(data: Any, where: str = "model") -> NeedModel:
    """A model from its decoded JSON, checked (see `NeedModel.load`)."""
    from pydantic import BaseModel, ConfigDict, ValidationError

    class File(BaseModel):
        model_config = ConfigDict(extra="forbid", strict=True)
        format: str
        version: int
        features: list[str]
        mean: list[float]
        scale: list[float]
        coef: list[float]
        intercept: float
        about: dict[str, Any] = {}
        sha256: str

    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CtxlabError(f"{where}: not a ctxlab learned model (no \"format\": \"{FORMAT}\")")
    if data.get("version") != VERSION:
        raise CtxlabError(f"{where}: a learned model of version {data.get('version')!r}, this ctxlab reads version "
                          f"{VERSION}: fit it again with `ctxlab learn`")
    try:
        file = File.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise CtxlabError(f"{where}: not a valid learned model ({'.'.join(map(str, first['loc']))}: "
                          f"{first['msg']})") from exc
    if digest({k: v for k, v in data.items() if k != "sha256"}) != file.sha256:
        raise CtxlabError(f"{where}: the model was changed after `ctxlab learn` wrote it (its content does not "
                          "match its sha256): fit it again")
    return _checked(file, where)


def _checked(file: Any, where: str) -> NeedModel:
    if tuple(file.features) != FEATURES:
        raise CtxlabError(f"{where}: the model's features differ from this ctxlab's ({len(file.features)} vs "
                          f"{len(FEATURES)}): fit it again with `ctxlab learn`")
    numbers = [*file.mean, *file.scale, *file.coef, file.intercept]
    if not all(len(v) == len(FEATURES) for v in (file.mean, file.scale, file.coef)) or not all(
            math.isfinite(x) for x in numbers) or min(file.scale) <= 0:
        raise CtxlabError(f"{where}: not a valid learned model (one number per feature, finite, scales above 0)")
    return NeedModel(tuple(file.features), tuple(file.mean), tuple(file.scale), tuple(file.coef),
                     float(file.intercept), dict(file.about))


__all__ = ["DEFAULT", "FORMAT", "VERSION", "NeedModel", "digest", "parse"]
