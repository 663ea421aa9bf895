"""A recorded call beside its prediction, and a session of them: the verdicts and totals that
``ctxlab cost`` prints (`ctxlab.cost.logs` makes them from agent logs)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from ctxlab.cost.aliases import Alias
from ctxlab.cost.calls import CallCost, total

READ_TOLERANCE_SHARE = 0.02
READ_TOLERANCE_TOKENS = 64
ESTIMATED = "estimated"  # the verdict of a call whose counts are the agent's estimate, not the provider's


class CallCheck(NamedTuple):
    """One recorded call beside its prediction.

    Attributes:
        index: position in ``messages`` of the call's first output message.
        model: the model the call ran on.
        gap_s: seconds since the previous call of the same model (None if unknown or first).
        recorded, predicted: the call billed as the provider recorded it and as predicted.
        estimated: why the log's counts are not the provider's (the call's ``estimated``: Aider's
            own rounded estimates), None when they are. Such a call is priced from those counts
            but never checked: its cache split is not the provider's to compare with.
    """

    index: int  # type: ignore[assignment]  # a field named index shadows tuple.index, on purpose
    model: str
    gap_s: float | None
    recorded: CallCost
    predicted: CallCost
    estimated: str | None = None

    @property
    def checked(self) -> bool:
        """Whether the recorded counts are the provider's, so the cache read can be checked."""
        return self.estimated is None

    @property
    def read_error(self) -> int:
        """Predicted minus recorded cache read tokens."""
        return self.predicted.cache_read_tokens - self.recorded.cache_read_tokens

    @property
    def matches(self) -> bool:
        """The predicted cache read is within 2% of the prompt plus 64 tokens of the recorded one."""
        return abs(self.read_error) <= READ_TOLERANCE_SHARE * self.recorded.prompt_tokens + READ_TOLERANCE_TOKENS

    @property
    def verdict(self) -> str:
        """``match``; ``unexplained miss`` (the provider read less than predicted: early eviction, or
        a change the log does not show); ``unexpected hit`` (it read more: a cache another session
        or an unseen call wrote); ``estimated`` (counts not the provider's: not checked)."""
        if not self.checked:
            return ESTIMATED
        if self.matches:
            return "match"
        return "unexplained miss" if self.read_error > 0 else "unexpected hit"


class SessionCheck(NamedTuple):
    """Every recorded call of one session beside its prediction, priced by one model (`alias`: the
    price-map entry that priced it, when litellm's map lacks the model under its own name)."""

    session: str
    model: str
    calls: tuple[CallCheck, ...]
    alias: Alias | None = None

    @property
    def recorded(self) -> CallCost:
        return total(c.recorded for c in self.calls)

    @property
    def predicted(self) -> CallCost:
        return total(c.predicted for c in self.calls)

    @property
    def checked(self) -> tuple[CallCheck, ...]:
        """The calls whose counts are the provider's (the estimated ones left out)."""
        return tuple(c for c in self.calls if c.checked)

    @property
    def cache_read_match_rate(self) -> float | None:
        """Share of checked calls whose predicted cache read matches the recorded one (None: none)."""
        checked = self.checked
        return sum(c.matches for c in checked) / len(checked) if checked else None

    def count(self, verdict: str) -> int:
        return sum(c.verdict == verdict for c in self.calls)

    def to_json(self) -> dict[str, Any]:
        """The JSON form of ``ctxlab cost --json`` (mismatching calls listed, worst first)."""
        worst = sorted((c for c in self.checked if not c.matches), key=lambda c: -abs(c.read_error))
        return {"session": self.session, "model": self.model,
                "priced_as": None if self.alias is None else self.alias.entry, "calls": len(self.calls),
                "recorded": _tokens_json(self.recorded), "predicted": _tokens_json(self.predicted),
                "estimated_calls": self.count(ESTIMATED), "cache_read_match_rate": self.cache_read_match_rate,
                "unexplained_misses": self.count("unexplained miss"), "unexpected_hits": self.count("unexpected hit"),
                "mismatches": [_call_json(c) for c in worst]}


def combined(checks: Iterable[SessionCheck], session: str = "all sessions") -> SessionCheck:
    """All calls of several sessions as one (for overall totals and match rate)."""
    checks = list(checks)
    models = sorted({c.model for c in checks})
    return SessionCheck(session, ", ".join(models), tuple(call for check in checks for call in check.calls))


def _tokens_json(cost: CallCost) -> dict[str, Any]:
    return {"input_tokens": cost.input_tokens, "cache_read_tokens": cost.cache_read_tokens,
            "cache_write_tokens": cost.cache_write_tokens, "output_tokens": cost.output_tokens,
            "cost_usd": round(cost.cost_usd, 6)}


def _call_json(check: CallCheck) -> dict[str, Any]:
    return {"index": check.index, "model": check.model, "prompt_tokens": check.recorded.prompt_tokens,
            "recorded_cache_read": check.recorded.cache_read_tokens,
            "predicted_cache_read": check.predicted.cache_read_tokens,
            "gap_s": None if check.gap_s is None else round(check.gap_s, 1), "verdict": check.verdict}
