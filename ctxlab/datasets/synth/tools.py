"""OpenAI tool definitions offered to the synthetic coding agent.

Every property carries a ``type`` and a ``description`` because the downstream
token counter prices tool definitions from exactly those fields.
"""

from __future__ import annotations

import json
import random
from typing import Any


def _prop(kind: str, description: str, enum: list[str] | None = None) -> dict[str, Any]:
    prop: dict[str, Any] = {"type": kind, "description": description}
    if enum:
        prop["enum"] = enum
    return prop


def _tool(name: str, description: str, props: dict[str, dict[str, Any]], required: list[str]) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": props, "required": required},
        },
    }


TOOL_DEFS: dict[str, dict] = {
    "read_file": _tool(
        "read_file",
        "Read a file from the workspace. Returns the file content; long files may be read in slices.",
        {
            "path": _prop("string", "Path relative to the repository root."),
            "start_line": _prop("integer", "First line to return (1-based). Defaults to 1."),
            "end_line": _prop("integer", "Last line to return, inclusive. Defaults to the end of the file."),
        },
        ["path"],
    ),
    "write_file": _tool(
        "write_file",
        "Create or overwrite a file with the given content. Parent directories are created.",
        {
            "path": _prop("string", "Path relative to the repository root."),
            "content": _prop("string", "The complete new content of the file."),
        },
        ["path", "content"],
    ),
    "edit_file": _tool(
        "edit_file",
        "Replace an exact snippet in a file. old_string must match exactly once unless replace_all is set.",
        {
            "path": _prop("string", "Path relative to the repository root."),
            "old_string": _prop("string", "Exact text to replace, including indentation."),
            "new_string": _prop("string", "Replacement text."),
            "replace_all": _prop("boolean", "Replace every occurrence instead of requiring a unique match."),
        },
        ["path", "old_string", "new_string"],
    ),
    "run_shell": _tool(
        "run_shell",
        "Run a shell command in the repository root and return stdout, stderr and the exit code.",
        {
            "command": _prop("string", "The command line to execute with bash."),
            "timeout_s": _prop("integer", "Kill the command after this many seconds. Defaults to 600."),
            "cwd": _prop("string", "Working directory relative to the repository root."),
        },
        ["command"],
    ),
    "grep": _tool(
        "grep",
        "Search file contents with a regular expression (ripgrep syntax).",
        {
            "pattern": _prop("string", "Regular expression to search for."),
            "path": _prop("string", "File or directory to search in. Defaults to the repository root."),
            "glob": _prop("string", "Only search files matching this glob, e.g. '*.py'."),
            "output_mode": _prop(
                "string",
                "What to return for each match.",
                ["content", "files_with_matches", "count"],
            ),
        },
        ["pattern"],
    ),
    "list_dir": _tool(
        "list_dir",
        "List the entries of a directory, optionally recursively.",
        {
            "path": _prop("string", "Directory relative to the repository root."),
            "depth": _prop("integer", "How many levels to descend. Defaults to 1."),
        },
        ["path"],
    ),
    "web_fetch": _tool(
        "web_fetch",
        "Fetch a URL over HTTP(S) and return the response body as text.",
        {
            "url": _prop("string", "Absolute http(s) URL."),
            "method": _prop("string", "HTTP method.", ["GET", "POST", "HEAD"]),
            "max_chars": _prop("integer", "Truncate the body after this many characters."),
        },
        ["url"],
    ),
    "search_docs": _tool(
        "search_docs",
        "Search the project's internal documentation and ADRs by keywords.",
        {
            "query": _prop("string", "Keywords to search for."),
            "limit": _prop("integer", "Maximum number of hits to return."),
        },
        ["query"],
    ),
}

# Always offered: an agent that cannot read, edit or run anything is not a coding agent.
_CORE = ("read_file", "edit_file", "run_shell")
_OPTIONAL = ("write_file", "grep", "list_dir", "web_fetch", "search_docs")


def pick_tools(rng: random.Random) -> list[str]:
    """Choose the 5-8 tool names a session offers, in a session-specific order.

    Returns:
        Tool names; the session only ever calls tools from this list.
    """
    extra = rng.sample(_OPTIONAL, rng.randint(2, len(_OPTIONAL)))
    names = list(_CORE) + extra
    # Keep read/edit/run first (agent harnesses usually list them first) but
    # shuffle the optional tail so definitions do not all look alike.
    tail = names[3:]
    rng.shuffle(tail)
    return names[:3] + tail


# Serialised once: json.loads builds a fresh copy much faster than copy.deepcopy.
_TOOL_JSON = {name: json.dumps(spec) for name, spec in TOOL_DEFS.items()}


def tool_definitions(names: list[str]) -> list[dict]:
    """Return fresh copies of the OpenAI definitions of ``names`` (callers may mutate)."""
    return [json.loads(_TOOL_JSON[name]) for name in names]
