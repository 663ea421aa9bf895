"""A user's whole agent history at scale: hundreds of long sessions shaped like real agent logs.

People who run coding agents keep hundreds of sessions (``~/.claude``, ``~/.codex``, ``~/.pi``),
50k-150k provider calls in all. `generate_history` writes such a history: ``sessions`` records
sharing ``calls`` provider calls (a seeded log-normal split, rescaled to the exact total), each one
session as ctxlab imports a real log: the full message history (no system prompt or tool schemas,
which the logs leave out), ``meta.provider_calls`` with per-call usage, and the agent's own
automatic compactions in ``meta.compactions`` (the history stays whole; the compaction is where the
agent replaced its prompt with a summary). Its shape follows the long real sessions in
``../shared/reallogs`` (`ctxlab.datasets.synth.history_shape` measures both): tasks given by the
user, tool calls mostly Bash, Edit and Read, small outputs with a long tail of logs, files read
again, an edit quoting a line of the file as last read.

Recorded usage is an estimate, not a tokenizer's count: the prompt of a call is the part the log
leaves out (`BASE_TOKENS`, the size of the first prompts in the real Claude Code logs) plus the
characters since the last compaction over `CHARS_PER_TOKEN`. The agent compacts when that passes
`COMPACT_AT`, as Claude Code does at a 200k window.
"""

from __future__ import annotations

import json
import math
import random

from .history_tools import Action, Workspace, pick_tool
from .projects import PROJECT_KEYS, make_slots
from .util import bounded_lognormal, call_id, pick, record_rng, rint

BASE_TOKENS = (13_500, 28_000)  # first prompts of the real Claude Code sessions: 13,525-28,162 tokens
CHARS_PER_TOKEN = 3.0  # 4d5611e5: about 430k characters made 144k of its 170k prompt tokens
COMPACT_AT = 167_000  # Claude Code's automatic compaction (preTokens 167,117 and 170,251 in the real logs)
MODELS = ("claude-opus-4-6", "claude-sonnet-4-5")
_LEADS = ("Let me look at {path}.", "Now the tests.", "Checking {path} first.", "Running the linter.",
          "The failure points at {path}; fixing it.", "Let me check the callers.", "Good, that passes.",
          "I'll update {path} next.", "Let me see what else uses this.")
_ASKS = ("The {entities} endpoint returns stale data after an update. Find out why and fix it, with a test.",
         "Add pagination to the {entities} listing ({path}); keep the old query parameters working.",
         "Our CI fails on `{cmd}` since this morning. Please investigate and fix the root cause, not the test.",
         "Refactor {path} so the {Repo} is injected instead of imported; no behaviour change.",
         "Review {path} for error handling: every external call needs a timeout and a clear error.",
         "Bump {lib} from {v_old} to {v_new} and fix whatever breaks.")


def session_calls(sessions: int, calls: int, seed: int) -> list[int]:
    """The provider calls of each session: a seeded log-normal split (median about half the mean,
    a long tail, as real histories hold many short sessions and some very long ones), rescaled so
    they add up to `calls` exactly (at least 3 each)."""
    rng = random.Random(f"ctxlab-synth/{seed}/history-sizes")
    weights = [math.exp(rng.gauss(0.0, 0.9)) for _ in range(sessions)]
    total = sum(weights)
    out = [max(3, round(calls * w / total)) for w in weights]
    for i in sorted(range(sessions), key=lambda k: -weights[k]):  # the rounding goes to the longest
        if sum(out) == calls:
            break
        out[i] = max(3, out[i] + (1 if sum(out) < calls else -1))
    return out


class HistorySession:
    """One long session under construction (see the module docstring)."""

    def __init__(self, rng: random.Random, calls: int) -> None:
        self.rng, self.calls = rng, calls
        self.project = pick(rng, PROJECT_KEYS)
        self.slots = make_slots(rng, self.project)
        self.work = Workspace(rng, self.project, self.slots)
        self.messages: list[dict] = []
        self.provider: list[dict] = []
        self.compactions: list[dict] = []
        self.base = rint(rng, *BASE_TOKENS)
        self.chars = 0  # characters sent since the last compaction (or the start)
        self.summary_tokens = 0
        self.model = pick(rng, MODELS)

    def build(self) -> list[dict]:
        while len(self.provider) < self.calls:
            self._say("user", self._ask())
            for _ in range(min(self.calls - len(self.provider), bounded_lognormal(self.rng, 18, 0.7, 2, 80))):
                self._call()
        return self.messages

    def _ask(self) -> str:
        slots = dict(self.slots, path=pick(self.rng, list(self.work.files)), cmd=self.slots["test_cmd"])
        text = pick(self.rng, _ASKS).format(**slots)
        if self.rng.random() < 0.2:  # a pasted error or spec makes some user turns long
            text += "\n\n" + "\n".join(pick(self.rng, list(self.work.files.values())).split("\n")[:rint(self.rng, 10, 60)])
        return text

    def _call(self) -> None:
        self._usage()
        if self.rng.random() < 0.08:  # an answer without tools ends a stretch of work
            self._say("assistant", self._wrap_up())
            return
        if self.rng.random() < 0.93:
            actions = [self.work.act(pick_tool(self.rng))]
        else:  # parallel calls look around (an edit needs the read's answer first)
            actions = [self.work.act(pick(self.rng, ("Bash", "Bash", "Read", "Read", "Grep"))) for _ in range(rint(self.rng, 2, 3))]
        lead = "" if self.rng.random() < 0.55 else pick(self.rng, _LEADS).format(path=self._path(actions[0]))
        ids = [call_id(self.rng) for _ in actions]
        calls = [{"id": i, "type": "function", "function": {"name": a.name, "arguments": json.dumps(a.args)}}
                 for i, a in zip(ids, actions, strict=True)]
        self._say("assistant", lead, tool_calls=calls)
        for i, action in zip(ids, actions, strict=True):
            self._say("tool", action.output, tool_call_id=i)

    def _path(self, action: Action) -> str:
        return str(action.args.get("file_path") or self.slots["path_main"])

    def _wrap_up(self) -> str:
        edited = sorted(set(self.work.edited[-6:])) or [self.slots["path_main"]]
        lines = [f"- `{p}`: updated" for p in edited]
        return "Done. Summary of the changes:\n" + "\n".join(lines) + f"\n\n`{self.slots['test_cmd']}` passes."

    def _usage(self) -> None:
        """The call before the next assistant message: its recorded usage, after compacting if due."""
        at = len(self.messages)
        prompt = self.base + self.summary_tokens + int(self.chars / CHARS_PER_TOKEN)
        if prompt > COMPACT_AT:
            summary = self._summary()
            self.compactions.append({"index": at, "at": at, "summary": summary, "tokens_before": prompt,
                                     "trigger": "auto"})
            self.chars, self.summary_tokens = 0, int(len(summary) / CHARS_PER_TOKEN)
            prompt = self.base + self.summary_tokens
        previous = self.provider[-1]["prompt_tokens"] if self.provider and not self._compacted(at) else 0
        self.provider.append({"index": at, "model": self.model, "prompt_tokens": prompt,
                              "output_tokens": rint(self.rng, 8, 400), "input_tokens": 3,
                              "cache_read_tokens": min(previous, prompt), "cache_write_tokens": prompt - min(previous, prompt)})

    def _compacted(self, at: int) -> bool:
        return bool(self.compactions) and self.compactions[-1]["at"] == at

    def _summary(self) -> str:
        """The agent's continuation summary: the requests, the files and their latest lines."""
        asks = [m["content"].split("\n")[0] for m in self.messages if m["role"] == "user"][-6:]
        files = list(dict.fromkeys(self.work.read[::-1]))[:8]
        parts = ["This session is being continued from a previous conversation that ran out of context. The "
                 "conversation is summarized below:", "1. Primary Request and Intent:", *(f"   - {a}" for a in asks),
                 "2. Files and Code Sections:"]
        for path in files:
            parts += [f"   - {path}", *("     " + line for line in self.work.files[path].split("\n")[:25])]
        parts += ["3. Pending Tasks:", f"   - run `{self.slots['test_cmd']}` and `{self.slots['lint_cmd']}`"]
        return "\n".join(parts)

    def _say(self, role: str, content: str, tool_calls: list[dict] | None = None, **extra: str) -> None:
        message: dict = {"role": role, "content": content, **extra}
        if tool_calls:
            message["tool_calls"] = tool_calls
        self.messages.append(message)
        self.chars += len(content) + sum(len(c["function"]["arguments"]) for c in tool_calls or ())

    def record(self, index: int) -> dict:
        """The session as an imported log record."""
        messages = self.build()
        return {"id": f"history-{index + 1:05d}", "messages": messages, "tools": [],
                "meta": {"format": "synthetic_history", "source": "ctxlab generate --kind history",
                         "model": self.model, "cwd": f"/home/user/src/{self.slots['name']}",
                         "provider_calls": self.provider, "compactions": self.compactions}}


def build_history_record(seed: int, index: int, calls: int) -> dict:
    """Session `index` of the history with `calls` provider calls (its own seeded stream)."""
    return HistorySession(record_rng(seed, "history", index), calls).record(index)
