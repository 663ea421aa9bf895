"""The typer application and the one place CLI errors become clean one-line messages."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import typer

from ctxlab.errors import CtxlabError

app = typer.Typer(
    name="ctxlab",
    help="Replay conversations through context-compression strategies and measure what they keep.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # help texts are plain: '[default: x]' must not be read as markup
)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print `message` as one error line on stderr; raise the returned Exit."""
    typer.secho(f"error: {message}", fg=typer.colors.RED, err=True)
    return typer.Exit(code)


def command(*args: Any, on: typer.Typer | None = None, **kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a command (on `app`, or on the sub-app `on`) whose ctxlab errors and Ctrl-C end in
    one line, never a traceback."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def run(*a: Any, **kw: Any) -> Any:
            try:
                return fn(*a, **kw)
            except CtxlabError as exc:
                raise fail(str(exc)) from None
            except KeyboardInterrupt:
                raise fail("interrupted", code=130) from None

        return (on or app).command(*args, **kwargs)(run)

    return decorate


def main() -> None:
    """Console entry point."""
    app()
