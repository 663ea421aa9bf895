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
    rows = [_param_row(p) for p in command.params if not getattr(p, "hidden", False)]  # e.g. replay's --budget
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


def strategy_table(name: str, source_label: str = "source") -> str:
    """A strategy's parameters as a markdown table: defaults from the code, what the source system
    calls them (`source_names`), and their meaning (the docstring's Attributes section).

    A preset (a subclass that only changes defaults) lists the parameters it changes, and those its
    source names (a knob the user sets, left at the policy model's default).
    """
    from ctxlab.strategies import STRATEGIES

    cls = STRATEGIES.get(name)
    every = STRATEGIES.parameters(name)
    params = preset_changes(cls) or every
    meanings = docstring_attributes(inspect.getdoc(cls) or "")
    rows = [(group, names) for group, names in cls.source_names if all(p in every for p in _split(group))]
    grouped = {p for group, _ in rows for p in _split(group)}
    rows += [(p, "") for p in params if p not in grouped]
    cells = [[", ".join(f"`{k}`" for k in _split(group)), ", ".join(f"`{_default_repr(every[k])}`" for k in _split(group)),
              _cell(names), _cell(" ".join(dict.fromkeys(meanings.get(k, "") for k in _split(group))))]
             for group, names in rows]
    header = ["parameter", "default", source_label, "meaning"]
    shown = [i for i in range(4) if i < 2 or any(row[i] for row in cells)]  # no empty columns
    return "\n".join(["| " + " | ".join(header[i] for i in shown) + " |", "|" + "---|" * len(shown),
                      *("| " + " | ".join(row[i] for i in shown) + " |" for row in cells)])


def agent_index() -> str:
    """Every registered preset of an agent (a strategy with a public source) as a markdown table: what
    it does, the one source it follows and the knobs its users set (``ctxlab tune`` searches them)."""
    from ctxlab.strategies import STRATEGIES

    rows = ["| preset | what it does | source | knobs |", "|---|---|---|---|"]
    for name in STRATEGIES.names():
        cls = STRATEGIES.get(name)
        source = getattr(cls, "source", None)
        if source is None:
            continue
        tuning = cls.tuning
        knobs = ", ".join(f"`{k.name}`" for k in tuning.knobs) if tuning else (cls.untunable and "none a user sets")
        rows.append(f"| `{name}` | {_cell(getattr(cls, 'about', ''))} | {_cell(str(source))} | {knobs or '-'} |")
    return "\n".join(rows) + "\n"


def preset_tables(names: list[str], source_label: str = "source") -> str:
    """`strategy_table` of several presets, each under its name."""
    return "\n\n".join(f"`{name}`:\n\n{strategy_table(name, source_label)}" for name in names)


def preset_changes(cls: type) -> dict[str, Any]:
    """The defaults a preset class changes from the strategy it derives from ({} for a strategy
    that is not a preset of another)."""
    import dataclasses

    base = cls.__mro__[1]
    if getattr(cls, "source", None) is None or not dataclasses.is_dataclass(base):
        return {}
    inherited = {f.name: f.default for f in dataclasses.fields(base)}
    return {f.name: f.default for f in dataclasses.fields(cls)
            if f.init and inherited.get(f.name, dataclasses.MISSING) != f.default}


def _split(group: str) -> list[str]:
    return [p.strip() for p in group.split(",")]


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
        return '"' + value.replace("\n", "\\n") + '"'
    if isinstance(value, tuple):
        return "(" + ", ".join(_default_repr(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return "None" if value is None else str(value)


def _clean(text: str) -> str:
    return "\n".join(line.strip() for line in text.strip().splitlines())


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")
