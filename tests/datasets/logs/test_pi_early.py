"""Early pi sessions (pi-mono @ d5dde00d: flat, no entry ids, compactions by ``firstKeptEntryIndex``)
and the line a writer left holding two entries with no newline between them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.datasets.logs.helpers import load_one

HEADER = {"type": "session", "id": "early", "timestamp": "2025-12-17T19:39:21.535Z", "cwd": "/w",
          "provider": "anthropic", "modelId": "claude-opus-4-5", "thinkingLevel": "off"}
USAGE = {"input": 3, "output": 20, "cacheRead": 0, "cacheWrite": 500, "totalTokens": 523}


def message(role: str, text: str, **extra) -> dict:
    return {"type": "message", "timestamp": "2025-12-17T19:40:00.000Z",
            "message": {"role": role, "content": [{"type": "text", "text": text}], **extra}}


def assistant(text: str, prompt: int) -> dict:
    return message("assistant", text, stopReason="stop", model="claude-opus-4-5",
                   usage={**USAGE, "cacheWrite": prompt - 3})


def compaction(first_kept: int, summary: str = "Goal: ship it.") -> dict:
    return {"type": "compaction", "timestamp": "2025-12-17T21:23:29.721Z", "summary": summary,
            "firstKeptEntryIndex": first_kept, "tokensBefore": 4000}


def write(path: Path, lines: list[list[dict]], end: str = "\n") -> Path:
    """One file line per group of entries; a group of two is written back to back, no newline."""
    path.write_text("\n".join("".join(json.dumps(e) for e in group) for group in lines) + end)
    return path


def session(tmp_path: Path, joined_at: int, *tail: list[dict], end: str = "\n") -> Path:
    entries = [HEADER, message("user", "one"), assistant("a1", 500), message("user", "two"),
               assistant("a2", 600), message("user", "three"), assistant("a3", 700)]
    lines = [[e] for e in entries]
    lines[joined_at:joined_at + 2] = [lines[joined_at] + lines[joined_at + 1]]
    return write(tmp_path / "early.jsonl", [*lines, *tail], end)


def test_two_entries_on_one_line_are_split_and_the_repair_recorded(tmp_path):
    path = session(tmp_path, 4)  # line 5 holds the assistant "a2" and the user's "three"
    conv = load_one(path)
    assert [m.text for m in conv.messages] == ["one", "a1", "two", "a2", "three", "a3"]
    assert conv.meta["repairs"] == [
        f"{path}:5: 2 entries written back to back with no newline between them; split into separate entries",
        f"{path}:5: pi's own reader skips this line (it does not parse as one entry), so from a compaction or a "
        "resume on, the model no longer saw its entries"]
    assert [c["index"] for c in conv.meta["provider_calls"]] == [1, 3, 5]
    assert conv.meta["entries"] == 7  # on 6 lines: the header and six messages


def test_first_kept_entry_index_counts_the_lines_pi_could_read(tmp_path):
    """pi read its entries back from the file, skipping a line that does not parse: after the joined
    line 3 ("a1" + "two"), pi's entry 3 is the user's "three" (the file's entry 3 is "two")."""
    conv = load_one(session(tmp_path, 2, [compaction(3)]))
    [record] = conv.meta["compactions"]
    assert conv.messages[record["index"]].text == "three"
    assert (record["at"], record["tokens_before"], record["summary"]) == (6, 4000, "Goal: ship it.")


def test_a_compaction_written_onto_the_last_message_line_is_kept(tmp_path):
    """The same defect at the last line: the final message and the session's second compaction,
    with or without a newline at the end of the file."""
    for end in ("\n", ""):
        lines = [[HEADER], [message("user", "one")], [assistant("a1", 500)], [compaction(1, "first")],
                 [message("user", "two")], [assistant("a2", 600), compaction(4, "second")]]
        conv = load_one(write(tmp_path / f"last{len(end)}.jsonl", lines, end))
        assert [m.text for m in conv.messages] == ["one", "a1", "two", "a2"]
        assert [(c["summary"], c["index"], c["at"]) for c in conv.meta["compactions"]] == [
            ("first", 0, 2), ("second", 2, 4)]
        assert sum("written back to back" in r for r in conv.meta["repairs"]) == 1


def test_a_cut_off_last_line_keeps_the_complete_entry_it_starts_with(tmp_path):
    path = tmp_path / "cut.jsonl"
    text = "".join(json.dumps(e) + "\n" for e in (HEADER, message("user", "one")))
    path.write_text(text + json.dumps(assistant("a1", 500)) + json.dumps(message("user", "tw"))[:30])
    conv = load_one(path)
    assert [m.text for m in conv.messages] == ["one", "a1"]
    assert conv.meta["repairs"][0].startswith(f"{path}:3: dropped the cut-off last line after the 1 complete "
                                              "entries it starts with (malformed JSON: Extra data")
