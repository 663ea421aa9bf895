"""The errors ctxlab raises on purpose: each names what was wrong and where."""

from __future__ import annotations


class CtxlabError(Exception):
    """Base of every error ctxlab raises deliberately; the CLI prints it as one line."""


class InvalidInputError(CtxlabError, ValueError):
    """A conversation record is malformed.

    Attributes:
        where: ``file:line`` (or another locator) of the bad record.
        reason: what is wrong with it, in a few words.
    """

    def __init__(self, reason: str, where: str | None = None):
        self.reason = reason
        self.where = where
        super().__init__(f"{where}: {reason}" if where else reason)


class UnknownNameError(CtxlabError, KeyError):
    """An unknown strategy, counter, summarizer or parameter name; lists the valid ones."""

    def __init__(self, kind: str, name: str, valid: list[str] | tuple[str, ...]):
        self.kind, self.name, self.valid = kind, name, sorted(valid)
        super().__init__(f"unknown {kind} {name!r}; valid: {', '.join(self.valid) or '(none)'}")

    def __str__(self) -> str:  # KeyError would quote the message
        return self.args[0]
