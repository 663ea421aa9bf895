"""A line of a log that cannot be used is skipped on its own, counted and named ``file:line: reason``
(``meta.bad_lines``, ``meta.repairs``); a log with nothing usable left stops a strict load with a
one-line reason and is one recorded skip otherwise; what a valid log cannot hold is repaired and
written to ``meta.repairs``; unknown entries are counted, never fatal."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from ctxlab.datasets import load_conversations
from ctxlab.errors import InvalidInputError
from tests.datasets.logs.helpers import FIXTURES, REAL, load_one, load_session, shape

CLAUDE = FIXTURES / "claude_code" / "session.jsonl"
CODEX = FIXTURES / "codex" / "rollout-2025-10-29T11-00-00-0199aaaa-1111-7000-8000-000000000001.jsonl"
PI = FIXTURES / "pi" / "2025-10-29T12-00-00-000Z_7c2e9a40.jsonl"
TRAJ = FIXTURES / "swe_agent" / "calc__calc-1.traj"


def edited(source: Path, target: Path, line: int, text: str | None, end: str = "\n") -> Path:
    """A copy of a JSONL log with its 1-based `line` replaced by `text` (None: removed)."""
    lines = source.read_text().splitlines()
    lines[line - 1:line] = [] if text is None else [text]
    target.write_text("\n".join(lines) + end)
    return target


def entry_line(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


@pytest.mark.parametrize(("source", "needle", "text", "reason"), [
    (CLAUDE, '"uuid": "a-5"', '{"type": "assistant", "uuid": "a-5", "sessionId": "s"', "malformed JSON"),
    (CLAUDE, '"uuid": "a-5"', '[1, 2]', "entry is list, not an object"),
    (CLAUDE, '"uuid": "a-5"', '{"type": "assistant", "uuid": "a-5", "sessionId": "s"}', "assistant entry has no 'message'"),
    (CLAUDE, '"uuid": "u-4"', '{"type": "user", "uuid": "u-4", "sessionId": "s", "message": {"role": "user", '
                              '"content": [{"type": "tool_result", "content": "x"}]}}', "tool_result block has no 'tool_use_id'"),
    (CLAUDE, '"uuid": "u-6"', '{"type": "user", "uuid": "u-6", "sessionId": "s", "message": {"content": 7}}',
     "'content' is int, not a string or a list"),
    (CODEX, '"call_id": "call_C", "output"', '{"timestamp": "t", "type": "response_item", "payload": '
                                            '{"type": "custom_tool_call_output", "output": "x"}}', "custom_tool_call_output has no call_id"),
    (CODEX, '"type": "turn_context"', '{"timestamp": "t", "type": "turn_context", "payload": "gpt-5"}',
     "turn_context payload is str, not an object"),
    (PI, '"id": "a0000005"', '{"type": "message", "id": "a0000005", "parentId": "a0000004", "message": '
                             '{"role": "toolResult", "content": []}}', "toolResult message has no toolCallId"),
    (PI, '"id": "a0000004"', '{"type": "message", "id": "a0000004", "parentId": "a0000003"}',
     "message entry has no 'message' object"),
])
def test_a_bad_entry_is_skipped_counted_and_named_and_the_rest_loads(tmp_path, source, needle, text, reason):
    line = entry_line(source, needle)
    path = edited(source, tmp_path / source.name, line, text)
    conv, clean = load_session(path), load_session(source)
    bad, = conv.meta["bad_lines"]
    assert bad["where"] == f"{path}:{line}" and bad["reason"].startswith(reason)
    assert conv.meta["skipped"]["bad line"] == 1
    assert any(r.startswith(f"{path}:{line}: skipped this line: {reason}") for r in conv.meta["repairs"])
    assert 0 < len(conv.messages) <= len(clean.messages) + 1  # +1: a call whose result was the bad line is answered


def test_a_log_with_nothing_usable_left_is_refused_in_one_line(tmp_path):
    lines = PI.read_text().splitlines()
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join(lines[:1] + ["{not json"] * (len(lines) - 1)) + "\n")
    with pytest.raises(InvalidInputError) as caught:
        list(load_conversations(str(path)))
    assert (caught.value.where, caught.value.reason) == (str(path), (
        f"no conversation messages left after skipping {len(lines) - 1} bad line(s), the first at line 2: "
        "malformed JSON: Expecting property name enclosed in double quotes (column 2)"))
    assert "\n" not in str(caught.value)


def test_a_folder_loads_every_log_and_the_good_lines_of_a_broken_one(tmp_path):
    shutil.copytree(FIXTURES / "mixed", tmp_path / "mixed")
    bad = tmp_path / "mixed" / "claude_code.jsonl"
    line = entry_line(bad, '"uuid": "a-5"')
    edited(bad, bad, line, "{not json")
    skips: list[tuple[str, str]] = []
    convs = list(load_conversations(str(tmp_path / "mixed"), strict=False, on_skip=lambda w, r: skips.append((w, r))))
    assert [c.id for c in convs] == ["chat-1", "chat-2", "5b1f0c7e-2d4a-4e8b-9c3f-1a2b3c4d5e6f",
                                     "5b1f0c7e-2d4a-4e8b-9c3f-1a2b3c4d5e6f:9e8d7c6b", "0199aaaa-1111-7000-8000-000000000001",
                                     "oh-session-1", "7c2e9a40-5d1b-4f6e-8a3c-2b1d0e9f8a7b", "swe_agent"]
    assert skips == [] and [b["where"] for b in convs[2].meta["bad_lines"]] == [f"{bad}:{line}"]


def test_a_cut_off_last_line_is_dropped_and_noted(tmp_path):
    lines = CODEX.read_text().splitlines()
    path = tmp_path / "cut.jsonl"
    path.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:25])  # killed mid-write: no newline at the end
    conv = load_one(path)
    assert conv.meta["repairs"] == [f"{path}:{len(lines)}: dropped the cut-off last line "
                                    "(malformed JSON: Unterminated string starting at (column 15))"]
    assert len(conv.messages) == 14


def test_a_bad_last_line_that_ends_with_a_newline_is_a_bad_line_not_a_cut_off_one(tmp_path):
    lines = CODEX.read_text().splitlines()
    path = tmp_path / "bad_end.jsonl"
    path.write_text("\n".join(lines[:-1] + ["{oops"]) + "\n")
    conv = load_one(path)
    assert [b["where"] for b in conv.meta["bad_lines"]] == [f"{path}:{len(lines)}"]
    assert not any("cut-off" in r for r in conv.meta["repairs"])


def test_invalid_utf8_in_a_log_names_the_line_and_skips_it(tmp_path):
    path = tmp_path / "latin1.jsonl"
    data = CLAUDE.read_bytes().split(b"\n")
    data[2] = data[2].replace(b"please", b"pl\xe9ase")
    path.write_bytes(b"\n".join(data))
    conv = load_session(path)
    assert conv.meta["bad_lines"] == [{"where": f"{path}:3", "reason": "invalid UTF-8 (byte 0xe9 at column 323)", "at": 0}]
    assert [m.id for m in conv.messages] == [m.id for m in load_session(CLAUDE).messages][1:]  # u-1 was that line


def test_a_header_only_session_has_no_conversation(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text(PI.read_text().splitlines()[0] + "\n")
    with pytest.raises(InvalidInputError) as caught:
        list(load_conversations(str(path)))
    assert (caught.value.where, caught.value.reason) == (str(path), "no conversation messages found (is this a pi log?)")


@pytest.mark.parametrize(("change", "reason"), [
    (lambda t: t["history"][2].update(role="robot"), "history[2] is not a chat message with a role in"),
    (lambda t: t["history"][2]["tool_calls"][0].pop("id"), "history[2] has a tool call without id or function"),
    (lambda t: t.update(history=[], trajectory=[]), "neither 'history' nor 'trajectory' is a non-empty list"),
])
def test_a_bad_trajectory_names_the_file_and_what_is_wrong(tmp_path, change, reason):
    traj = json.loads(TRAJ.read_text())
    change(traj)
    path = tmp_path / "bad.traj"
    path.write_text(json.dumps(traj))
    with pytest.raises(InvalidInputError) as caught:
        list(load_conversations(str(path)))
    assert caught.value.where == f"{path}:1" and caught.value.reason.startswith(reason)


def test_a_broken_event_file_is_skipped_and_named(tmp_path):
    """An OpenHands event file is one event, like a line of a JSONL log: a broken one is skipped on
    its own. Here it held the second of two parallel calls, which the model response of the first
    action also records: nothing is lost."""
    session = tmp_path / "s"
    shutil.copytree(FIXTURES / "openhands" / "oh-session-1", session)
    clean = load_one(session)
    (session / "events" / "5.json").write_text('{"id": 5, "action": "run", ')
    conv = load_one(tmp_path)
    bad, = conv.meta["bad_lines"]
    assert bad["where"] == f"{tmp_path}/s/events/5.json:1" and bad["reason"].startswith("truncated JSON")
    assert [m.to_openai(include_id=True) for m in conv.messages] == [m.to_openai(include_id=True) for m in clean.messages]


def test_an_orphan_result_is_dropped_and_recorded(tmp_path):
    line = entry_line(CODEX, '"call_id": "call_D", "output"')
    orphan = '{"timestamp": "t", "type": "response_item", "payload": {"type": "function_call_output", ' \
             '"call_id": "call_Z", "output": "from nowhere"}}'
    lines = CODEX.read_text().splitlines()
    path = tmp_path / "orphan.jsonl"
    path.write_text("\n".join(lines[:line] + [orphan] + lines[line:]) + "\n")
    conv = load_one(path)
    assert shape(conv) == shape(load_one(CODEX))
    assert conv.meta["repairs"] == ["dropped tool result 'call_Z': no unanswered call before it"]


def test_unknown_entry_types_are_counted_not_fatal(tmp_path):
    lines = CLAUDE.read_text().splitlines()
    extra = [json.dumps({"type": "queue-operation", "operation": "enqueue", "sessionId": "x"}),
             json.dumps({"type": "attachment", "uuid": "z", "sessionId": "x", "parentUuid": None})]
    path = tmp_path / "future.jsonl"
    path.write_text("\n".join(lines[:3] + extra + lines[3:]) + "\n")
    conv = load_session(path)
    assert conv.meta["skipped"] == {"file-history-snapshot": 1, "queue-operation:enqueue": 1, "attachment": 1,
                                    "system:turn_duration": 1}
    assert shape(conv) == shape(load_session(CLAUDE))


def test_a_broken_sample_of_an_inspect_eval_log_is_that_samples_reason_and_the_rest_load(tmp_path):
    """The same rule where a log is several documents: an ``.eval`` zip member that does not decode is
    one sample's located reason; the samples after it still load (before, the file stopped there)."""
    source = REAL / "inspect" / "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"
    path = tmp_path / source.name
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(path, "w") as copy:
        for name in original.namelist():
            data = original.read(name)
            copy.writestr(name, data[:len(data) // 2] if name == "samples/3_epoch_1.json" else data)
    skips: list[tuple[str, str]] = []
    convs = list(load_conversations(str(path), strict=False, on_skip=lambda w, r: skips.append((w, r))))
    assert sorted(c.meta["sample_id"] for c in convs) == [1, 2, 4, 5, 6, 7, 8, 9, 10]
    assert [(w, r.split(" (")[0]) for w, r in skips] == [(f"{path}:samples/3_epoch_1.json", "malformed JSON")]


def test_an_aider_history_with_a_line_that_is_not_utf8_is_refused_at_that_line(tmp_path):
    """Aider histories are text, not entries: the skipped-line rule is for logs of entries; such a line
    still refuses the history, named with its line and reason."""
    lines = (REAL / "aider" / "afi-core.aider.chat.history.md").read_bytes().split(b"\n")
    lines[30] += b"\xe9\xff"
    path = tmp_path / ".aider.chat.history.md"
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(InvalidInputError) as caught:
        list(load_conversations(str(path)))
    assert (caught.value.where, caught.value.reason) == (f"{path}:31", "invalid UTF-8 (byte 0xe9 at column 21)")
