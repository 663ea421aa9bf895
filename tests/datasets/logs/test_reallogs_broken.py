"""Fuzzed copies of the real logs in ``../shared/reallogs`` (built in tmp_path, the originals never
touched): one line of a Claude Code or pi log cut in the middle, replaced by garbage bytes, or given a
field of the wrong type. Each import keeps every other entry: against the clean import, the same
messages in the same order with the same ids, except those the bad line held (and the synthetic
result of a call whose result it held); tool pairs stay intact; the line is counted, named as
``file:line`` in ``meta.bad_lines`` and ``meta.repairs``, and by ``ctxlab logs check``. A missing
folder is a failure, never a skip."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ctxlab.analysis.log_files import check_files
from ctxlab.datasets import load_conversations
from ctxlab.datasets.logs.deltas import BAD_LINE, delta_spans
from ctxlab.messages import Conversation, Message
from tests.datasets.logs.helpers import REAL

CLAUDE = [f"claude_code/{name}.jsonl" for name in ("4d5611e5-241a-462a-8d15-5122611a9569", "short", "subagent",
                                                   "fa812bfe-b295-4cca-9c2f-fdf01028cb46", "claude_code",
                                                   "1af7fc5e-8455-4414-9ccd-011d40f70b2a")]
PI = "pi/session.jsonl"
GARBAGE = b"\x00\x9f\xfe binary \xff\xc3( garbage {\"type\": "
Entry = dict[str, Any]


def blocks(entry: Entry) -> list[Any]:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def has(kind: str) -> Callable[[Entry], bool]:
    """A Claude entry holding a block of `kind` (pi: a message of that role)."""
    return lambda e: any(isinstance(b, dict) and b.get("type") == kind for b in blocks(e)) or \
        (isinstance(e.get("message"), dict) and e["message"].get("role") == kind)


def typed(kind: str) -> Callable[[Entry], bool]:
    return lambda e: e.get("type") == kind or (isinstance(e.get("message"), dict) and e["message"].get("role") == kind)


def cut(line: bytes, entry: Entry) -> bytes:
    return line[:len(line) // 2]


def garbage(line: bytes, entry: Entry) -> bytes:
    return GARBAGE


def set_field(*path: str, value: Any) -> Callable[[bytes, Entry], bytes]:
    def change(line: bytes, entry: Entry) -> bytes:
        target = entry
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        return json.dumps(entry, ensure_ascii=False).encode()
    return change


# (case, which line: the one nearest the middle of the file that matches, how it is broken)
CLAUDE_CASES = {
    "cut in the middle": (has("tool_use"), cut),
    "garbage bytes": (has("tool_result"), garbage),
    "message a string": (typed("assistant"), set_field("message", value="not a message")),
    "content a number": (typed("user"), set_field("message", "content", value=42)),
    "parentUuid an int": (lambda e: e.get("parentUuid") is not None and typed("user")(e), set_field("parentUuid", value=7)),
}
PI_CASES = {
    "cut in the middle": (has("toolCall"), cut),
    "garbage bytes": (typed("toolResult"), garbage),
    "message.content an object": (typed("user"), set_field("message", "content", value={"text": "an object"})),
    "toolResult content an object": (typed("toolResult"), set_field("message", "content", value={"type": "text"})),
    "message a string": (typed("assistant"), set_field("message", value="not a message")),
}


@pytest.fixture(scope="module")
def real() -> Path:
    assert REAL.is_dir(), f"the real agent logs are missing: expected {REAL} (shared/reallogs, or CTXLAB_REALLOGS)"
    return REAL


def imported(path: Path) -> dict[str, Conversation]:
    return {c.id: c for c in load_conversations(str(path))}


def fuzzed(real: Path, tmp_path: Path, name: str, choose: Callable[[Entry], bool],
           break_line: Callable[[bytes, Entry], bytes]) -> tuple[dict[str, Conversation], Path, int, bytes]:
    """The import of a copy of the log (with its session folder: subagents, compaction agent), then
    the copy with its chosen line broken: the clean import (ids that name the file, ``todo@file:line``,
    name the copy), the path, the 1-based line number and the original line."""
    source = real / name
    if source.with_suffix("").is_dir():
        shutil.copytree(source.with_suffix(""), tmp_path / source.stem)
    path = shutil.copy(source, tmp_path / source.name)
    clean = imported(path)
    lines = source.read_bytes().split(b"\n")
    entries = [_entry(line) for line in lines]
    candidates = [n for n, e in enumerate(entries) if isinstance(e, dict) and choose(e) and 0 < n < len(lines) - 2]
    assert candidates, f"no line of {name} fits the case"
    n = min(candidates, key=lambda i: abs(i - len(lines) / 2))
    original = lines[n]
    lines[n] = break_line(original, json.loads(original))
    path.write_bytes(b"\n".join(lines))
    return clean, path, n + 1, original


def _entry(line: bytes) -> Entry:
    """A line's entry (pi's early session has one line holding two entries: not a candidate)."""
    try:
        value = json.loads(line) if line.strip() else {}
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def key(m: Message) -> tuple:
    """A message without its positional id (``m<n>`` shifts when one goes; log ids do not)."""
    stable = None if re.fullmatch(r"m\d+(~\d+)?", m.id) else m.id
    return (m.role, stable, m.text, tuple((c.id, c.name, c.arguments) for c in m.tool_calls), m.tool_call_id)


def atoms(original: bytes) -> set[str]:
    """The texts and ids the original line held (what a message it contributed to shows)."""
    found: set[str] = set()

    def walk(value: Any, name: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, name)
        elif isinstance(value, str) and value.strip() and name in ("text", "id", "tool_use_id", "toolCallId", "content"):
            found.add(value.strip()[:200])
    walk(json.loads(original).get("message"))
    return found


def held(m: Message, line_atoms: set[str], where: str) -> bool:
    """Whether the line contributed to `m`: its text or ids show the line's, or its id names the line
    (the todo list Claude Code resent after a TodoWrite result, ``todo@file:line``)."""
    shown = [m.text, m.tool_call_id or "", *(c.id for c in m.tool_calls)]
    return m.id.endswith(f"@{where}") or any(atom in text for atom in line_atoms for text in shown if text)


def assert_keeps_every_other_entry(before: Conversation, after: Conversation, line_atoms: set[str], where: str) -> None:
    lost = Counter(map(key, before.messages)) - Counter(map(key, after.messages))
    new = Counter(map(key, after.messages)) - Counter(map(key, before.messages))
    by_key = {key(m): m for m in [*before.messages, *after.messages]}
    assert all(held(by_key[k], line_atoms, where) for k in lost), [k[:3] for k in lost
                                                                    if not held(by_key[k], line_atoms, where)]
    lost_ids = {k[1] for k in lost}
    for k in new:  # a message the line was part of, or a synthetic result for a call whose result it held
        m = by_key[k]
        assert k[1] in lost_ids or (m.role == "tool" and m.tool_call_id in line_atoms), k[:3]
    kept = [key(m) for m in before.messages if key(m) not in lost]
    assert [key(m) for m in after.messages if key(m) not in new] == kept  # same order, same ids
    calls = [c.id for m in after.messages for c in m.tool_calls]
    assert sorted(calls) == sorted(m.tool_call_id for m in after.messages if m.role == "tool")  # pairs intact


def assert_named(convs: dict[str, Conversation], path: Path, number: int) -> None:
    where = f"{path}:{number}"
    bad = [b for c in convs.values() for b in c.meta.get("bad_lines", ())]
    assert [b["where"] for b in bad] == [where]
    assert sum(c.meta.get("skipped", {}).get("bad line", 0) for c in convs.values()) == 1
    assert sum(r.startswith(f"{where}: skipped this line: ") for c in convs.values() for r in c.meta["repairs"]) == 1
    checked, = check_files([str(path)], counter="chars4")
    assert [line.split(": ", 1)[0] for line in checked.bad_lines] == [where] and not checked.refused


@pytest.mark.parametrize("case", CLAUDE_CASES)
@pytest.mark.parametrize("name", CLAUDE)
def test_a_broken_claude_code_line_loses_only_what_it_held(real, tmp_path, name, case):
    before, path, number, original = fuzzed(real, tmp_path, name, *CLAUDE_CASES[case])
    after = imported(path)
    assert sorted(after) == sorted(before)
    for conv_id, conv in after.items():
        assert_keeps_every_other_entry(before[conv_id], conv, atoms(original), f"{path}:{number}")
    lines = len(path.read_bytes().splitlines())
    assert sum(c.meta["entries"] for c in after.values()) == lines  # the bad line is still one conversation's
    assert_named(after, path, number)


@pytest.mark.parametrize("case", PI_CASES)
def test_a_broken_pi_line_loses_only_what_it_held(real, tmp_path, case):
    clean, path, number, original = fuzzed(real, tmp_path, PI, *PI_CASES[case])
    (before,), after = clean.values(), list(load_conversations(str(path)))
    assert len(after) == 1 and after[0].id == before.id
    assert_keeps_every_other_entry(before, after[0], atoms(original), f"{path}:{number}")
    assert len(after[0].messages) >= len(before.messages) - 2  # at most the message and an orphaned result
    assert_named({after[0].id: after[0]}, path, number)


def test_the_deltas_around_a_skipped_line_are_set_aside(real, tmp_path):
    """A skipped assistant line took its call and reply with it: the pair across it would count
    messages the import no longer has, so it is set aside with the reason, and so is the pair that
    starts at the reply right after the line (in a Claude Code log the line may have been an entry
    of that reply); the others stay usable."""
    clean, path, number, _ = fuzzed(real, tmp_path, PI, *PI_CASES["cut in the middle"])
    before, = clean.values()
    after, = load_conversations(str(path))
    at = after.meta["bad_lines"][0]["at"]
    spans = delta_spans(after)
    aside = [s for s in spans if s.skipped == BAD_LINE]
    assert aside and all(s.start <= at <= s.end for s in aside)
    usable_before = sum(s.skipped is None for s in delta_spans(before))
    assert usable_before - 3 <= sum(s.skipped is None for s in spans) < usable_before
