"""A coding-agent session under construction and its core phases.

A session states a goal, explores the code (parallel reads and searches), runs
failing tests, decides, edits, and wraps up with passing tests. The order of the
phases, the mid-session ones (interjections, docs, huge outputs) and the record
builder live in ``agent_flow``.
"""

from __future__ import annotations

import random
from typing import Any

from . import outputs
from .failures import failure
from .phrases import GOAL_OUTRO, SYSTEM_ENV, SYSTEM_INTRO, SYSTEM_RULES, P
from .projects import PROJECTS, make_slots
from .runner import passing_run
from .session import Call, Note, Session
from .sources import number_lines, patch_for, render_source, small_edit
from .tasks_backend import TASKS_BACKEND
from .tasks_ops import TASKS_OPS
from .tasks_tooling import TASKS_TOOLING
from .tools import pick_tools
from .util import fill, pick, pick_lang, rint, strip_markers

TASKS = {**TASKS_BACKEND, **TASKS_OPS, **TASKS_TOOLING}
# Which file each task's main patch lands in.
PATCH_TARGET = {"cache": "path_repo", "retry": "path_svc", "ratelimit": "path_main", "pagination": "path_main",
                "lint": "path_svc", "oom": "path_main", "schema": "path_main", "oomk8s": "path_main",
                "gateway": "path_svc", "esm": "path_main", "jsonflag": "path_main", "nilpanic": "path_cfg",
                "typefix": "path_main", "xss": "path_main", "borrow": "path_main", "lexperf": "path_svc",
                "recovery": "path_main"}
_PATHS = ("path_main", "path_svc", "path_repo", "path_test", "path_cfg")
GIANT = 50_000  # a "giant" tool output is strictly longer than this


class AgentSession(Session):
    """One coding-agent conversation under construction (see module docstring)."""

    def __init__(self, rng: random.Random, project: str, lang: str, target_msgs: int, target_chars: int) -> None:
        super().__init__(rng)
        self.project, self.lang = project, lang
        self.slots = make_slots(rng, project)
        self.tools = pick_tools(rng)
        self.target_msgs, self.target_chars = target_msgs, target_chars
        self.assistant_cjk = lang != "en" and rng.random() < 0.7
        self.numbered = rng.random() < 0.35
        self.ulang = "en" if lang == "en" else ("zh" if lang == "mixed" else lang)
        self.task_key = ""
        self.task: dict = {}
        self.tslots: dict = {}
        self.decisions: list[str] = []
        self.edited: list[str] = []
        self.read: list[str] = []
        self.used_reqs: list[int] = []
        self.failures_seen: list[str] = []
        self.files: dict[str, str] = {}  # path -> current content, so re-reads and edits agree
        self.flags: dict[str, Any] = {}  # booleans, and counters such as "interjections"
        self.giant_chars = 0
        self.last_passed = ""
        self.last_pass: Note | None = None

    # -- helpers -----------------------------------------------------------
    def user_lang(self) -> str:
        if self.lang == "mixed":
            self.ulang = pick(self.rng, ("zh", "ja"))
        return self.ulang

    def alang(self) -> str:
        return self.ulang if self.assistant_cjk else "en"

    def phrase(self, key: str, lang: str | None = None) -> str:
        return pick_lang(self.rng, P[key], lang or self.alang())

    def out_size(self, lo: float = 0.6, hi: float = 1.6) -> int:
        """Size for the next ordinary tool output, spreading the remaining character budget."""
        # Giant outputs come on top of the session's budget, so they are not counted here.
        left = max(0, self.target_chars - (self.chars - self.giant_chars))
        outputs_left = max(1.0, (self.target_msgs - len(self)) * 0.32)
        base = min(14_000, max(350, left / outputs_left))
        return int(base * self.rng.uniform(lo, hi))

    def tool_or_shell(self, name: str, args: dict, shell: str, output: str) -> Call:
        """Use ``name`` if the session offers it, else the equivalent shell command."""
        return Call(name, args, output) if name in self.tools else Call("run_shell", {"command": shell}, output)

    def read_call(self, path: str, size: int) -> Call:
        """Read a file; the content is rendered once per session and re-reads show a slice of it."""
        if path not in self.files:
            self.files[path] = render_source(self.rng, self.project, self.slots, size, path)
        content = self.files[path]
        args: dict = {"path": path}
        if path in self.read:
            # Re-reads usually look at a slice around the code being changed.
            lines = content.split("\n")
            start = rint(self.rng, 1, max(1, len(lines) // 2))
            end = min(len(lines), start + rint(self.rng, 20, 80))
            args.update(start_line=start, end_line=end)
            content = "\n".join(lines[start - 1:end]) + "\n"
            text = number_lines(content, start) if self.numbered else content
        else:
            text = number_lines(content) if self.numbered else content
        self.read.append(path)
        return Call("read_file", args, text)

    # -- phases ------------------------------------------------------------
    def system(self) -> None:
        spec = PROJECTS[self.project]
        rules = self.rng.sample(SYSTEM_RULES, rint(self.rng, 6, len(SYSTEM_RULES)))
        conventions = "Project conventions:\n" + "\n".join(f"- {c}" for c in spec["conventions"])
        parts = [pick(self.rng, SYSTEM_INTRO), *rules, conventions, pick(self.rng, SYSTEM_ENV)]
        self.say("system", [(p, dict(self.slots, day=rint(self.rng, 1, 9))) for p in parts], sep="\n\n")

    def goal(self, key: str, first: bool) -> None:
        self.task_key, self.task = key, TASKS[key]
        self.tslots = dict(self.slots, **{k: str(pick(self.rng, v)) for k, v in self.task["numbers"].items()})
        self.flags = {}
        lang = self.user_lang()
        goal_t = pick_lang(self.rng, self.task["goal"], lang)
        pieces: list[tuple[str, Any]] = ([(self.phrase("user_next", lang), {})] if not first else []) + [(goal_t, self.tslots)]
        chosen = [c for c in self.task["constraints"] if self.rng.random() < 0.8] or list(self.task["constraints"][:1])
        outro = GOAL_OUTRO[lang]
        body = "\n".join("- " + c[lang] for c in chosen)
        pieces += [(outro[0] + "\n" + body, self.tslots), (pick(self.rng, outro[1:]), self.slots)]
        self.say("user", pieces, note=("goal", fill(self.task["goal_sum"], self.tslots)), sep="\n\n")
        # Re-file the constraint and command facts under their own summary lines.
        goal_note = self.notes[-1]
        for c in chosen:
            self._move(goal_note, "constraints", fill(c["sum"], self.tslots), c[lang])
        self._move(goal_note, "constraints", f"run `{self.slots['test_cmd']}` before finishing", self.slots["test_cmd"])

    def _move(self, note, section: str, text: str, source: str) -> None:
        facts = [f for f in note.facts if f in strip_markers(fill(source, self.tslots))]
        note.facts = [f for f in note.facts if f not in facts]
        self.add_note(section, text, facts)

    def explore(self) -> None:
        """Read two files in parallel, often alongside a search or a listing."""
        known = [self.slots[k] for k in _PATHS]
        unread = [p for p in known if p not in self.read]
        if self.project == "react-frontend" and "index.html" not in self.read and self.rng.random() < 0.5:
            unread.insert(0, "index.html")
        paths = unread[:2]
        paths += self.rng.sample([p for p in known if p not in paths], 2 - len(paths))
        calls = [self.read_call(p, self.out_size()) for p in paths]
        if self.rng.random() < 0.6:
            pat = pick(self.rng, ("Repo", "fn"))
            calls.append(self.tool_or_shell("grep", {"pattern": self.slots[pat]}, f"rg -n '{self.slots[pat]}'",
                                            outputs.grep_output(self.rng, self.project, self.slots, self.slots[pat])))
        if self.rng.random() < 0.3:
            listing = outputs.list_dir_output(self.rng, self.project, self.slots)
            calls.append(self.tool_or_shell("list_dir", {"path": ".", "depth": 3},
                                            "find . -type f -not -path './.git/*' | sort", listing))
        if "search_docs" in self.tools and self.rng.random() < 0.25:
            calls.append(Call("search_docs", {"query": f"{self.slots['Repo']} design"},
                              outputs.search_docs_output(self.rng, self.slots)))
        # The first look at a task is always narrated; later ones often are not.
        narrate = not self.flags.get("explored") or self.rng.random() < 0.6
        self.flags["explored"] = True
        narr = (self.phrase("explore"), dict(self.slots, p1=paths[0], p2=paths[1])) if narrate else None
        self.call(narr, calls, note=("progress", f"Read {paths[0]} and {paths[1]}."))

    def test(self, fail: bool) -> None:
        """Run the test command; on failure the agent explains the error (and may decide at once)."""
        cmd = self.slots["test_cmd"]
        narrate = self.rng.random() < 0.8
        if not fail:
            narr = (self.phrase("rerun"), dict(self.slots, cmd=cmd)) if narrate else None
            text, passed = passing_run(self.rng, self.project, self.slots, self.out_size(0.2, 0.8))
            self.last_pass = note = self.add_note("progress", f"`{cmd}` passes ({passed}).")
            self.call(narr, [Call("run_shell", {"command": cmd}, text)], note=note)
            self.say("assistant", [(self.phrase("pass"), dict(self.slots, passed=passed, cmd=cmd))], note=note)
            self.last_passed = passed
            self.flags["green"] = True
            return
        key = self.next_failure()
        f = failure(self.rng, key, PROJECTS[self.project]["code"], self.tslots, self.out_size(0.3, 1.2))
        cmd = f["cmd"]
        kind = "run_tests" if cmd == self.slots["test_cmd"] else "probe"
        narr = (self.phrase(kind), dict(self.slots, cmd=cmd)) if narrate else None
        note = self.add_note("progress", f"`{cmd}` failed with {f['code']} in {f['where']}: {f['explain']['en']}")
        self.call(narr, [Call("run_shell", {"command": cmd, "timeout_s": 900}, f["text"])], note=note)
        lang = self.alang()
        slots = dict(self.tslots, ck=f["kind"], code=f["code"], where=f["where"], explain=f["explain"][lang])
        self.say("assistant", [(self.phrase("analysis"), slots)], note=note)
        self.flags["green"] = False
        if not self.flags.get("decided") and self.rng.random() < 0.5:
            self.decide()

    def next_failure(self) -> str:
        """The task's own failure first, then errors this session has not shown yet."""
        if self.task["failure"] and not self.flags.get("failed"):
            key = self.task["failure"]
        else:
            pool = PROJECTS[self.project]["failures"]
            fresh = [k for k in pool if k not in self.failures_seen]
            key = pick(self.rng, fresh or [k for k in pool if k != self.failures_seen[-1]])
        self.flags["failed"] = True
        self.failures_seen.append(key)
        return key

    def decide(self) -> None:
        phrase, why = self.task["decision"]
        decision = fill(phrase, self.tslots)
        lang = self.alang()
        slots = dict(self.tslots, decision=decision, why=fill(why[lang], self.tslots))
        self.say("assistant", [(self.phrase("decision"), slots)],
                 note=("decisions", f"{decision}, because {fill(why['en'], self.tslots)}."))
        self.decisions.append(decision)
        self.flags["decided"] = True

    def edit(self) -> None:
        """Apply the task's patch (or a small follow-up edit), sometimes rewriting the test file too."""
        pair = None if self.flags.get("patched") else patch_for(self.project, self.task, self.tslots)
        if pair:
            path = self.slots[PATCH_TARGET[self.task_key]]
        else:
            path = self.slots[pick(self.rng, ("path_main", "path_svc", "path_test"))]
        old, new = pair or small_edit(self.rng, self.project, self.tslots)
        self.flags["patched"] = True
        if old in self.files.get(path, ""):
            self.files[path] = self.files[path].replace(old, new, 1)
        args = {"path": path, "old_string": old, "new_string": new}
        stale = self.rng.random() < 0.12  # the snippet is stale: the edit misses and the agent re-reads first
        result = (f"Error: old_string not found in {path}. Make sure it matches exactly, including whitespace and "
                  "indentation.") if stale else outputs.edit_result(self.rng, path, new)
        calls = [Call("edit_file", args, result)]
        if "write_file" in self.tools and self.rng.random() < 0.3:
            test_path = self.slots["path_test"]
            content = render_source(self.rng, self.project, self.slots, self.out_size(0.4, 1.0), test_path)
            self.files[test_path] = content
            calls.append(Call("write_file", {"path": test_path, "content": content},
                              outputs.write_result(test_path, content)))
        narr = (self.phrase("edit"), dict(self.slots, path=path)) if self.rng.random() < 0.6 else None
        self.call(narr, calls, note=("progress", f"Edited {path}."))
        if stale:
            self.call(None, [self.read_call(path, self.out_size(0.5, 1.0))])
            self.call(None, [Call("edit_file", args, outputs.edit_result(self.rng, path, new))])
        self.edited.append(path)
        self.flags["dirty"] = True
        self.flags["green"] = False
