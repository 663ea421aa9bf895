"""The tool calls of a user-scale history session (`history.py`) and what each tool answers.

The tools are Claude Code's (Bash, Read, Edit, Grep, Glob, Write, TodoWrite) with its argument
names, so an action quotes what earlier outputs showed the agent: an edit's ``old_string`` is a line
of the file as last read, a read names a path a listing or a grep printed, a shell command names
the test file. Files keep their current content, so reading a file again after no edit answers the
same text (a re-read), and after an edit answers the edited one.
"""

from __future__ import annotations

import json
import random
from typing import Any, NamedTuple

from .biglogs import LOG_GENERATORS
from .failures import failure
from .outputs import git_output, grep_output, lint_clean, list_dir_output, write_result
from .projects import PROJECTS
from .runner import passing_run
from .sources import number_lines, render_source
from .util import bounded_lognormal, hexid, pick, rint

# Shares of the tool calls by tool, close to the long real Claude Code and pi sessions
# (Bash 45-60%, Edit 20-25%, Read 15-20%, Grep/Glob 5-10%, Write 3-6%).
TOOL_MIX = (("Bash", 0.44), ("Read", 0.18), ("Edit", 0.21), ("Grep", 0.06), ("Glob", 0.05), ("Write", 0.04),
            ("TodoWrite", 0.02))
_MODULES = ("handlers", "models", "utils", "client", "config", "errors", "cache", "schema", "queue", "auth",
            "metrics", "export", "importer", "jobs", "router", "storage", "validators", "webhooks")
_EXT = {"python": "py", "go": "go", "typescript": "ts", "javascript": "js", "rust": "rs", "yaml": "yaml"}


class Action(NamedTuple):
    """One tool call: the tool, its arguments and what the tool answered."""

    name: str
    args: dict[str, Any]
    output: str


class Workspace:
    """The files of one session's repository and what the agent has seen of them."""

    def __init__(self, rng: random.Random, project: str, slots: dict[str, str]) -> None:
        self.rng, self.project, self.slots = rng, project, slots
        code = PROJECTS[project]["code"]
        paths = [slots[k] for k in ("path_main", "path_svc", "path_repo", "path_test", "path_cfg")]
        base = slots.get("dir") or paths[0].rsplit("/", 1)[0]
        extra = rng.sample(_MODULES, rint(rng, 4, 14))
        paths += [f"{base}/{name}.{_EXT[code]}" for name in extra]
        self.files: dict[str, str] = {}
        for path in dict.fromkeys(paths):
            size = bounded_lognormal(rng, 8_000, 0.9, 400, 60_000)
            self.files[path] = render_source(rng, project, slots, size, path)
        self.read: list[str] = []
        self.edited: list[str] = []

    def act(self, tool: str) -> Action:
        """Make a call of `tool` (an edit before any read reads first)."""
        if tool == "Edit" and not self.read:
            tool = "Read"
        return getattr(self, f"_{tool.lower()}")()

    def _read(self) -> Action:
        unread = [p for p in self.files if p not in self.read]
        # A quarter of the reads go back to a file already read (real sessions re-read often).
        path = pick(self.rng, unread) if unread and self.rng.random() < 0.75 else pick(self.rng, list(self.files))
        self.read.append(path)
        return Action("Read", {"file_path": path}, number_lines(self.files[path]))

    def _edit(self) -> Action:
        path = pick(self.rng, self.read[-6:])
        lines = self.files[path].split("\n")
        candidates = [i for i, line in enumerate(lines) if len(line.strip()) > 12] or [0]
        at = pick(self.rng, candidates)
        span = min(len(lines) - at, rint(self.rng, 1, 3))
        old = "\n".join(lines[at:at + span])
        new = old.replace(lines[at].strip(), lines[at].strip() + f"  # {hexid(self.rng, 6)}", 1)
        self.files[path] = "\n".join([*lines[:at], new, *lines[at + span:]])
        self.edited.append(path)
        output = f"The file {path} has been updated successfully."
        if self.rng.random() < 0.25:  # Claude Code answers some edits with the edited lines
            snippet = self.files[path].split("\n")[max(0, at - 4):at + span + 4]
            output = (f"The file {path} has been updated. Here's the result of running `cat -n` on a snippet of the "
                      f"edited file:\n{number_lines(chr(10).join(snippet), max(1, at - 3))}")
        return Action("Edit", {"file_path": path, "old_string": old, "new_string": new}, output)

    def _bash(self) -> Action:
        roll, slots = self.rng.random(), self.slots
        code = PROJECTS[self.project]["code"]
        if roll < 0.22:
            size = bounded_lognormal(self.rng, 1_200, 1.0, 200, 20_000)
            if self.rng.random() < 0.5:
                text, _ = passing_run(self.rng, self.project, slots, size)
                return Action("Bash", {"command": slots["test_cmd"]}, text)
            f = failure(self.rng, pick(self.rng, PROJECTS[self.project]["failures"]), code, slots, size)
            return Action("Bash", {"command": f["cmd"]}, f["text"])
        if roll < 0.40:
            cmd, text = git_output(self.rng, slots, self.edited)
            return Action("Bash", {"command": cmd}, text)
        if roll < 0.46:
            return Action("Bash", {"command": "ls -la " + slots.get("dir", ".")},
                          list_dir_output(self.rng, self.project, slots))
        if roll < 0.58:
            return Action("Bash", {"command": slots["lint_cmd"]}, lint_clean(self.project, slots, slots["lint_cmd"]))
        if roll < 0.65:
            # The long tail: a verbose build, install or log dump (real sessions: up to 30-80k characters).
            size = bounded_lognormal(self.rng, 6_000, 1.0, 1_000, 90_000)
            cmd, _ = pick(self.rng, list(LOG_GENERATORS.items()))
            made = LOG_GENERATORS[cmd](self.rng, dict(slots), size)
            return Action("Bash", made[1], made[2])
        if roll < 0.75:  # commands that print little or nothing
            return Action("Bash", {"command": f"mkdir -p {self.slots.get('dir', 'src')}/{pick(self.rng, _MODULES)}"},
                          "(no output)" if self.rng.random() < 0.5 else "")
        path = pick(self.rng, list(self.files))
        line = pick(self.rng, self.files[path].split("\n")[:40]) or path
        return Action("Bash", {"command": f"grep -n {json.dumps(line.strip()[:30])} {path}"},
                      f"{rint(self.rng, 1, 400)}:{line}\n")

    def _grep(self) -> Action:
        pattern = self.slots[pick(self.rng, ("Repo", "fn", "Type", "Entity"))]
        return Action("Grep", {"pattern": pattern, "output_mode": "content"},
                      grep_output(self.rng, self.project, self.slots, pattern))

    def _glob(self) -> Action:
        ext = next(iter(self.files)).rsplit(".", 1)[-1]
        matches = sorted(p for p in self.files if p.endswith(ext))
        return Action("Glob", {"pattern": f"**/*.{ext}"}, "\n".join(matches))

    def _write(self) -> Action:
        path = f"{next(iter(self.files)).rsplit('/', 1)[0]}/{pick(self.rng, _MODULES)}_{hexid(self.rng, 3)}.py"
        content = render_source(self.rng, self.project, self.slots, bounded_lognormal(self.rng, 2_500, 0.7, 300,
                                                                                       12_000), path)
        self.files[path] = content
        self.edited.append(path)
        return Action("Write", {"file_path": path, "content": content}, write_result(path, content))

    def _todowrite(self) -> Action:
        todos = [{"content": f"Update {p}", "status": pick(self.rng, ("pending", "in_progress", "completed"))}
                 for p in self.read[-4:] or list(self.files)[:2]]
        return Action("TodoWrite", {"todos": todos},
                      "Todos have been modified successfully. Ensure that you continue to use the todo list to track "
                      "your progress. Please proceed with the current tasks if applicable")


def pick_tool(rng: random.Random) -> str:
    """A tool drawn by `TOOL_MIX`."""
    roll, acc = rng.random(), 0.0
    for name, share in TOOL_MIX:
        acc += share
        if roll < acc:
            return name
    return TOOL_MIX[0][0]
