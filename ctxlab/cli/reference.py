"""Markdown generated from the code, so the docs cannot drift from it: the CLI reference and the
parameter tables of strategies. `make docs` writes them into docs/ with cog; `make lint` checks
that the committed docs match (``cog --check``)."""

from __future__ import annotations

import inspect
import re
from typing import Any

import typer.main

from ctxlab.cli.app import app


def cli_reference() -> str:
    """Every command (sub-commands included) with its help and a table of its options."""
    root = typer.main.get_command(app)
    return "\n".join(_command_md(f"ctxlab {name}", cmd) for name, cmd in _commands(root))


# Typer vendors its own click, so commands and parameters are told apart by what they have.
def _commands(group: Any, prefix: str = "") -> list[tuple[str, Any]]:
    out = []
    for name in sorted(group.commands):
        command = group.commands[name]
        if hasattr(command, "commands"):
            out += _commands(command, f"{prefix}{name} ")
        elif not command.hidden:
            out.append((prefix + name, command))
    return out


def _is_argument(param: Any) -> bool:
    return param.param_type_name == "argument"


def _command_md(title: str, command: Any) -> str:
    arguments = " ".join(p.name.upper() + ("..." if p.nargs == -1 else "")
                         for p in command.params if _is_argument(p))
    lines = [f"### `{title}{' ' + arguments if arguments else ''}`", "", _clean(command.help or ""), ""]
    rows = [_param_row(p) for p in command.params]
    if rows:
        lines += ["| option | default | help |", "|---|---|---|", *rows, ""]
    return "\n".join(lines)


def _param_row(param: Any) -> str:
    name = f"`{param.name.upper()}`" if _is_argument(param) else ", ".join(f"`{o}`" for o in param.opts)
    if getattr(param, "is_flag", False):
        default = ""
    else:
        default = "" if param.default in (None, (), []) else f"`{_default(param.default)}`"
    return f"| {name} | {default} | {_cell(getattr(param, 'help', None) or '')} |"


def _default(value: Any) -> str:
    return " ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)


def strategy_table(name: str) -> str:
    """A strategy's parameters, defaults and meanings (from its docstring's Attributes section)."""
    from ctxlab.strategies import STRATEGIES

    meanings = docstring_attributes(inspect.getdoc(STRATEGIES.get(name)) or "")
    rows = ["| parameter | default | meaning |", "|---|---|---|"]
    for key, default in STRATEGIES.parameters(name).items():
        rows.append(f"| `{key}` | `{_default_repr(default)}` | {_cell(meanings.get(key, ''))} |")
    return "\n".join(rows)


def docstring_attributes(doc: str) -> dict[str, str]:
    """``name: text`` entries of a Google-style ``Attributes:`` section (``a, b: text`` names both)."""
    section = re.search(r"^Attributes:\n((?:[ \t]+.*\n?|\n)*)", doc, re.MULTILINE)
    out: dict[str, str] = {}
    current: list[str] = []
    for line in (section.group(1) if section else "").splitlines():
        entry = re.match(r"^ {4}([\w, ]+):\s*(.*)$", line)
        if entry:
            current = [n.strip() for n in entry.group(1).split(",")]
            for n in current:
                out[n] = entry.group(2).strip()
        elif line.strip() and current:
            for n in current:
                out[n] += " " + line.strip()
    return out


def _default_repr(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "(" + ", ".join(_default_repr(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return "None" if value is None else str(value)


def _clean(text: str) -> str:
    return "\n".join(line.strip() for line in text.strip().splitlines())


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")
