"""What a tool call did, read from its name and arguments: files read or modified, commands run.

Agents name their tools differently (``read_file``, ``Read``, ``view``, ``str_replace_editor``,
``apply_patch``, ``bash``...), so the classification goes by name patterns with a fallback on
argument keys (``path``, ``file_path``...) and on an editor tool's ``command`` argument.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from ctxlab.messages import Message, ToolCall

_SHELL = re.compile(r"shell|bash|terminal|exec|run_command|run_cmd|^sh$|command_line|powershell", re.I)
_MODIFY = re.compile(r"write|edit|patch|replace|create|insert|append|delete|remove|rename|move|mkdir|"
                     r"touch|save|update_file|notebook_edit", re.I)
_READ = re.compile(r"read|view|cat|open|grep|search|find|list|ls|glob|stat|head|tail|diff|outline", re.I)
_PATH_KEYS = ("path", "file_path", "filepath", "file", "filename", "target_file", "notebook_path",
              "source", "destination", "dest", "target", "dir", "directory")
_LIST_KEYS = ("paths", "files", "file_paths")
_COMMAND_KEYS = ("command", "cmd", "script", "commands")
_EDITOR_COMMANDS = {"view": "read", "create": "modify", "str_replace": "modify", "insert": "modify",
                    "undo_edit": "modify", "write": "modify"}
_PATCH_PATH = re.compile(r"(?m)^(?:\+\+\+ b/|--- a/|\*\*\* (?:Update|Add|Delete) File: )(\S+)")


class CallInfo(NamedTuple):
    """A tool call's effect: `kind` is read, modify, command or other."""

    name: str
    kind: str
    paths: tuple[str, ...]
    command: str | None
    args: Mapping[str, Any]


def parse_arguments(arguments: str) -> dict[str, Any]:
    """The call's JSON arguments as a dict ({} when absent or not an object)."""
    try:
        value = json.loads(arguments) if arguments else {}
    except (ValueError, TypeError):
        return {}
    return value if isinstance(value, dict) else {}


def classify(call: ToolCall) -> CallInfo:
    """Classify one tool call (see the module docstring)."""
    args = parse_arguments(call.arguments)
    if _SHELL.search(call.name):
        command = next((args[k] for k in _COMMAND_KEYS if isinstance(args.get(k), str)), None)
        if command is None and isinstance(args.get("commands"), list):
            command = " && ".join(str(c) for c in args["commands"])
        return CallInfo(call.name, "command", (), command, args)
    paths = _paths(args)
    editor = _EDITOR_COMMANDS.get(str(args.get("command", "")))
    if editor is not None:
        kind = editor
    elif _MODIFY.search(call.name):
        kind = "modify"
    elif _READ.search(call.name):
        kind = "read"
    else:
        kind = "read" if paths and not _PATCH_PATH.search(call.arguments) else "other"
    if kind == "modify" and not paths:
        paths = tuple(dict.fromkeys(_PATCH_PATH.findall(_patch_text(args, call.arguments))))
    if not paths:
        kind = "other"  # a search or fetch without a file: its arguments are context, not a file
    return CallInfo(call.name, kind, paths, None, args)


def file_operations(messages: Iterable[Message]) -> tuple[list[str], list[str]]:
    """``(read, modified)`` paths in order of first use; a file both read and modified is modified."""
    read: dict[str, None] = {}
    modified: dict[str, None] = {}
    for message in messages:
        for call in message.tool_calls:
            info = classify(call)
            target = modified if info.kind == "modify" else read if info.kind == "read" else None
            if target is not None:
                target.update(dict.fromkeys(info.paths))
    return [p for p in read if p not in modified], list(modified)


def tool_names(messages: Iterable[Message]) -> dict[str, str]:
    """Tool-call id -> tool name, to label tool results."""
    return {c.id: c.name for m in messages for c in m.tool_calls}


def _paths(args: Mapping[str, Any]) -> tuple[str, ...]:
    found = [args[k] for k in _PATH_KEYS if isinstance(args.get(k), str) and args[k].strip()]
    for key in _LIST_KEYS:
        if isinstance(args.get(key), list):
            found.extend(p for p in args[key] if isinstance(p, str) and p.strip())
    return tuple(dict.fromkeys(p.strip() for p in found))


def _patch_text(args: Mapping[str, Any], raw: str) -> str:
    texts = [v for k, v in args.items() if isinstance(v, str) and k in ("patch", "input", "diff", "content")]
    return "\n".join(texts) or raw
