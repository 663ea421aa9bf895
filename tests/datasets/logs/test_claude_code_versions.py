"""Claude Code 1.0.x files, hand-written: TodoWrite as the model got it, a resumed session in the same
file, and subagents written inline as ``isSidechain`` entries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxlab.datasets import load_conversations
from ctxlab.datasets.logs import claude_code
from ctxlab.datasets.logs.claude_context import rendered_input
from ctxlab.datasets.logs.common import Line, LogError, LogSource
from tests.datasets.logs.helpers import load_one

USAGE = {"input_tokens": 3, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 100, "output_tokens": 9}
TODOS = [{"content": "檢查 go.mod", "status": "completed", "activeForm": "檢查 go.mod"},
         {"content": "刪除 TODO.md", "status": "in_progress", "activeForm": "刪除 TODO.md"}]


def line(kind: str, uuid: str, parent: str | None, content, session: str = "s1", **extra) -> dict:
    message = {"role": kind, "content": content}
    if kind == "assistant":
        message.update(id=f"msg_{uuid}", model="claude-sonnet-4-20250514", usage=USAGE)
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": session, "isSidechain": False,
            "version": "1.0.95", "message": message, **extra}


def call(uuid: str, parent: str, call_id: str, name: str, args: dict, **extra) -> dict:
    return line("assistant", uuid, parent, [{"type": "tool_use", "id": call_id, "name": name, "input": args}], **extra)


def result(uuid: str, parent: str, call_id: str, text: str, **extra) -> dict:
    return line("user", uuid, parent, [{"type": "tool_result", "tool_use_id": call_id, "content": text}], **extra)


def side(kind: str, uuid: str, parent: str | None, content) -> dict:
    return {**line(kind, uuid, parent, content), "isSidechain": True}


TASKS = [{"type": "tool_use", "id": f"task{n}", "name": "Task",
          "input": {"description": f"part {n}", "prompt": f"Do part {n}.", "subagent_type": "general-purpose"}}
         for n in (1, 2)]


def write(path: Path, entries: list[dict]) -> Path:
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries))
    return path


def test_the_todo_list_is_resent_after_the_results_and_arrays_are_counted_escaped(tmp_path):
    """After TodoWrite, Claude Code before 1.0.98 sent the new list again (a system-reminder after all
    the results of that response), and a list whose items are all completed is cleared; 1.0.98 does
    not. An array parameter counts with its non-ASCII escaped, a string parameter as written."""
    done = [{**t, "status": "completed"} for t in TODOS]
    entries = [line("user", "u1", None, "整理版本"),
               line("assistant", "a1", "u1", [{"type": "tool_use", "id": "t1", "name": "TodoWrite", "input": {"todos": TODOS}},
                                              {"type": "tool_use", "id": "t2", "name": "Write",
                                               "input": {"file_path": "說明.md", "content": "繁體中文"}}]),
               result("r1", "a1", "t1", "Todos have been modified successfully.",
                      toolUseResult={"oldTodos": [], "newTodos": TODOS}),
               result("r2", "r1", "t2", "File created successfully"),
               call("a2", "r2", "t3", "TodoWrite", {"todos": done}),
               result("r3", "a2", "t3", "Todos have been modified successfully.",
                      toolUseResult={"oldTodos": TODOS, "newTodos": done}),
               line("assistant", "a3", "r3", [{"type": "text", "text": "完成"}])]
    conv = load_one(write(tmp_path / "todo.jsonl", entries))
    assert [(m.role, m.id) for m in conv.messages] == [
        ("user", "u1"), ("assistant", "msg_a1"), ("tool", "t1"), ("tool", "t2"), ("user", f"todo@{tmp_path}/todo.jsonl:3"),
        ("assistant", "msg_a2"), ("tool", "t3"), ("user", f"todo@{tmp_path}/todo.jsonl:6"), ("assistant", "msg_a3")]
    listed, cleared = conv.messages[4].text, conv.messages[7].text
    assert listed.startswith("<system-reminder>\n") and json.dumps(TODOS, ensure_ascii=False, separators=(",", ":")) in listed
    assert cleared == "<system-reminder>\nThe todo list is empty: every item is completed.\n</system-reminder>"
    todo, write_call = conv.messages[1].tool_calls
    assert "\\u6aa2\\u67e5" in todo.arguments and json.loads(todo.arguments) == {"todos": TODOS}
    assert write_call.arguments == '{"file_path":"說明.md","content":"繁體中文"}'
    assert conv.meta["repairs"] == ["added the todo list Claude Code <1.0.98 sends after each TodoWrite, 2 time(s) (a "
                                    "system-reminder in ctxlab's wording, the list from toolUseResult; lines 3, 6)"]
    later = load_one(write(tmp_path / "later.jsonl", [{**e, "version": "1.0.98"} for e in entries]))
    assert not any(m.id.startswith("todo@") for m in later.messages) and "repairs" not in later.meta


def test_rendered_input_escapes_only_the_non_string_parameters():
    assert rendered_input({"a": "é", "b": ["é"], "c": {"d": "é"}, "n": 1}) == '{"a":"é","b":["\\u00e9"],"c":{"d":"\\u00e9"},"n":1}'
    assert rendered_input(None) == "{}" and rendered_input(["é"]) == '["é"]'


def test_a_session_resumed_in_the_same_file_starts_with_the_history_it_resumed(tmp_path):
    """Claude Code 1.0.x: the resumed session's first line repeats the line it resumed from (same
    uuid, new sessionId, parent in the first session). A line of no session (a title) goes with the
    session of the line before it."""
    first = [line("user", "u1", None, "fix it"), call("a1", "u1", "t1", "Bash", {"command": "ls"}),
             result("r1", "a1", "t1", "calc.py")]
    resumed = [{"type": "summary", "summary": "Fix it", "leafUuid": "r1"},
               result("r1", "a1", "t1", "calc.py", session="s2"),
               line("assistant", "a2", "r1", [{"type": "text", "text": "Done."}], session="s2"),
               line("user", "u2", "a2", "thanks", session="s2")]
    one, two = load_conversations(str(write(tmp_path / "two.jsonl", first + resumed)))
    assert (one.id, two.id) == ("s1", "s2") and (one.meta["entries"], two.meta["entries"]) == (4, 3)
    assert [m.id for m in two.messages] == ["u1", "msg_a1", "t1", "msg_a2", "u2"]
    assert [c["index"] for c in two.meta["provider_calls"]] == [3]  # the history's call stays with s1
    assert two.meta["resumed_from"] == "s1" and one.meta["title"] == "Fix it"
    assert two.meta["repairs"][0].startswith(f"{tmp_path}/two.jsonl:5: session s2 resumes session s1; its "
                                             "conversation starts with that session's 2 entries")


def test_inline_sidechains_are_one_conversation_per_task_linked_to_its_call(tmp_path):
    """Claude Code 1.0.x wrote each Task's subagent inline: sidechain lines chained by parentUuid to
    a root holding the Task's prompt (the two subagents here interleave)."""
    entries = [line("user", "u1", None, "do both parts"), line("assistant", "a1", "u1", TASKS),
               side("user", "x1", None, "Do part 1."), side("user", "y1", None, "Do part 2."),
               side("assistant", "x2", "x1", [{"type": "text", "text": "Part 1 done."}]),
               side("assistant", "y2", "y1", [{"type": "text", "text": "Part 2 done."}]),
               result("r1", "a1", "task1", "Part 1 done."), result("r2", "r1", "task2", "Part 2 done.")]
    main, *subagents = load_conversations(str(write(tmp_path / "side.jsonl", entries)))
    assert [c.id for c in subagents] == ["s1:task1", "s1:task2"]
    assert [[m.text for m in c.messages] for c in subagents] == [["Do part 1.", "Part 1 done."],
                                                                 ["Do part 2.", "Part 2 done."]]
    assert main.meta["subagents"] == [{"conversation": "s1:task1", "tool_call_id": "task1"},
                                      {"conversation": "s1:task2", "tool_call_id": "task2"}]
    assert subagents[1].meta["parent"] == {"conversation": "s1", "tool_call_id": "task2"}
    assert len(main.meta["provider_calls"]) == 1 and all(len(c.meta["provider_calls"]) == 1 for c in subagents)
    assert main.meta["entries"] + sum(c.meta["entries"] for c in subagents) == len(entries)


def test_convert_reads_a_file_of_one_conversation_and_names_a_file_of_several(tmp_path):
    path = write(tmp_path / "one.jsonl", [line("user", "u1", None, "hi"), line("assistant", "a1", "u1", "hello")])
    source = LogSource(path, str(path), [])
    values = [json.loads(text) for text in path.read_text().splitlines()]
    assert claude_code.convert([Line(f"{path}:{n}", v) for n, v in enumerate(values, 1)], source)["id"] == "s1"
    side = {**line("user", "x1", None, "Do part 1."), "isSidechain": True}
    lines = [Line(f"{path}:1", line("user", "u1", None, "hi")), Line(f"{path}:2", side)]
    with pytest.raises(LogError, match="holds 2 conversations"):
        claude_code.convert(lines, source)


def broken(path: Path, entries: list[dict], bad: dict[int, str]) -> Path:
    """`entries` written to `path`, the 0-based lines in `bad` replaced by the given raw text."""
    path.write_text("".join((bad[n] if n in bad else json.dumps(e, ensure_ascii=False)) + "\n"
                            for n, e in enumerate(entries)))
    return path


def test_a_resumed_session_keeps_its_history_through_a_skipped_line(tmp_path):
    """The resumed session's history is the parentUuid chain back to the root; a skipped line on it
    would cut the chain (and the resume with it). The entries that hung off the line hang off its own
    parent when the line shows it (a field of the wrong type), else off the entry before it."""
    first = [line("user", "u1", None, "fix it"), call("a1", "u1", "t1", "Bash", {"command": "ls"}),
             result("r1", "a1", "t1", "calc.py"), line("assistant", "a2", "r1", [{"type": "text", "text": "Found it."}])]
    resumed = [line("assistant", "a2", "r1", [{"type": "text", "text": "Found it."}], session="s2"),
               line("user", "u2", "a2", "now fix it", session="s2")]
    entries = first + resumed
    wrong = {**entries[2], "message": "the result"}  # r1, its parent a1 readable
    for bad, how in ((json.dumps(wrong), "its own parent, a1"), ("\x00garbage", "the entry before it on its branch, a1")):
        path = broken(tmp_path / f"{len(how)}.jsonl", entries, {2: bad})
        one, two = load_conversations(str(path))
        assert two.meta["resumed_from"] == "s1"
        assert [m.id for m in two.messages] == ["u1", "msg_a1", "t1:no-result", "msg_a2", "u2"]
        assert [m.id for m in one.messages] == ["u1", "msg_a1", "t1:no-result", "msg_a2"]
        assert [b["where"] for b in one.meta["bad_lines"]] == [f"{path}:3"] and "bad_lines" not in two.meta
        assert any(r.endswith(f"re-attached what hung off it (lines 4, 5) to {how}") for r in one.meta["repairs"])
    cut_chain = write(tmp_path / "deleted.jsonl", entries[:2] + entries[3:])  # without the repair: no resume
    assert "resumed_from" not in list(load_conversations(str(cut_chain)))[1].meta


def test_a_skipped_sidechain_line_leaves_its_subagent_whole(tmp_path):
    """Interleaved inline subagents: the entry after a sidechain line that does not decode is
    re-attached to the entry before that line on the same branch (the sidechain), not to the main
    conversation's result logged just before it; it stays in its subagent's conversation."""
    entries = [line("user", "u1", None, "do both parts"), line("assistant", "a1", "u1", TASKS),
               side("user", "x1", None, "Do part 1."), side("user", "y1", None, "Do part 2."),
               side("assistant", "x2", "x1", [{"type": "text", "text": "Part 1 done."}]),
               side("assistant", "y2", "y1", [{"type": "text", "text": "Part 2 half done."}]),
               result("r1", "a1", "task1", "Part 1 done."),
               side("user", "y3", "y2", "go on"), side("assistant", "y4", "y3", [{"type": "text", "text": "Part 2 done."}]),
               result("r2", "r1", "task2", "Part 2 done.")]
    path = broken(tmp_path / "side.jsonl", entries, {7: "{\"type\": \"user\", \"uuid\": \"y3\", \"isSide"})
    main, *subagents = load_conversations(str(path))
    assert [c.id for c in subagents] == ["s1:task1", "s1:task2"]
    assert [m.text for m in subagents[1].messages] == ["Do part 2.", "Part 2 half done.", "Part 2 done."]
    assert main.meta["bad_lines"][0]["where"] == f"{path}:8"  # a line that does not decode: the main session's
    assert main.meta["entries"] + sum(c.meta["entries"] for c in subagents) == len(entries)
