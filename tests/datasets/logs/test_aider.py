"""Aider chat histories: hand-written histories in the form aider/io.py writes, one test per rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxlab.datasets import load_conversations
from ctxlab.datasets.logs.aider import ADDED_FILES, ESTIMATED, NO_DELTA
from ctxlab.datasets.logs.deltas import delta_spans
from ctxlab.errors import InvalidInputError

START = """
# aider chat started at 2025-07-15 14:53:34

> Aider v0.85.1  
> Main model: gpt-4o with diff edit format  
> Repo-map: using 4096 tokens, auto refresh  
"""  # noqa: W291 (Aider ends its lines with two spaces)

STORY = START + """
#### fix add() in calc.py  
#### it rounds  

Here is the fix:

```python
#### not an input: inside a fence  
> not Aider's output  
```

> Tokens: 3.2k sent, 66 received. Cost: $0.0086 message, $0.0086 session.  
> calc.py  
> Add file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y  

Thanks, now I can edit calc.py.

> Tokens: 12k sent, 1,234 received. Cost: $0.03 message, $0.04 session.  
> Applied edit to calc.py  

#### /run pytest  
> Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: n  

#### thanks  

<thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>
The user is happy.
</thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>

You're welcome.

> Tokens: 12k sent, 5 cache write, 2.0k cache hit, 9 received.  
> Cost: $0.01 message, $0.05 session.  
"""  # noqa: W291


def write(tmp_path: Path, text: str, name: str = "calc.aider.chat.history.md") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def load(tmp_path: Path, text: str) -> list:
    return list(load_conversations(str(write(tmp_path, text))))


def test_a_session_is_its_inputs_and_replies_with_the_tokens_lines_as_calls(tmp_path):
    conv, = load(tmp_path, STORY)
    assert conv.id == "calc.aider.chat.history:2025-07-15 14:53:34" and conv.meta["format"] == "aider"
    assert [(m.role, m.text.splitlines()[0]) for m in conv.messages] == [
        ("user", "fix add() in calc.py"), ("assistant", "Here is the fix:"),
        ("user", "I added these files to the chat: calc.py"), ("assistant", "Thanks, now I can edit calc.py."),
        ("user", "thanks"), ("assistant", "You're welcome.")]
    assert conv.messages[0].text == "fix add() in calc.py\nit rounds"
    assert "#### not an input: inside a fence  \n> not Aider's output  " in conv.messages[1].text
    assert conv.messages[2].text == ADDED_FILES.format("calc.py")
    calls = [(c["index"], c["prompt_tokens"], c["cache_read_tokens"], c["cache_write_tokens"], c["output_tokens"])
             for c in conv.meta["provider_calls"]]
    assert calls == [(1, 3200, 0, 0, 66), (3, 12000, 0, 0, 1234), (5, 12000, 2000, 5, 9)]
    assert {c["model"] for c in conv.meta["provider_calls"]} == {"gpt-4o"} and conv.meta["version"] == "0.85.1"
    assert conv.meta["usage_total"] == {"prompt_tokens": 27200, "output_tokens": 1309, "api_calls": 3,
                                        "cost_usd": 0.05}
    assert conv.meta["thinking"] == [{"message_id": conv.messages[5].id, "text": "The user is happy."}]
    assert conv.meta["skipped"]["command /run"] == 1


def test_its_counts_are_never_deltas(tmp_path):
    conv, = load(tmp_path, STORY)
    assert [s.skipped for s in delta_spans(conv)] == [NO_DELTA, NO_DELTA]
    assert all(c["no_delta"] == NO_DELTA and c["estimated"] == ESTIMATED for c in conv.meta["provider_calls"])


def test_sessions_split_and_empty_ones_are_counted(tmp_path):
    text = "\n# aider chat started at 2025-07-15 11:00:00\n\n> Aider v0.85.1  \n" + STORY + STORY.replace(
        "2025-07-15 14:53:34", "2025-07-16 09:00:00") + "\n# aider chat started at 2025-07-17 08:00:00\n"
    first, second = load(tmp_path, text)
    assert first.meta["skipped"]["empty session before this one"] == 1
    assert second.meta["skipped"]["empty session after this one"] == 1
    assert second.meta["started"] == "2025-07-16 09:00:00"


def test_commands_echoes_and_blank_inputs_are_not_messages(tmp_path):
    text = START + """
#### /code add a test  

#### add a test  

#### Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: all  

#### <blank>  

#### /clear  

Done.

> Tokens: 900 sent, 2 received.  
"""  # noqa: W291
    conv, = load(tmp_path, text)
    assert [m.role for m in conv.messages] == ["user", "assistant"] and conv.messages[0].text == "add a test"
    assert conv.meta["skipped"]["command /code"] == conv.meta["skipped"]["command /clear"] == 1
    assert conv.meta["skipped"]["an answer to Aider's question, echoed as input"] == 1
    assert conv.meta["skipped"]["empty input"] == 1
    assert "/clear emptied Aider's chat history" in conv.meta["repairs"][0]


def test_messages_aider_sent_itself(tmp_path):
    text = START + """
#### rename Foo  

Here is the edit.

> Tokens: 1.0k sent, 20 received.  
> The LLM did not conform to the edit format.  
> https://aider.chat/docs/troubleshooting/edit-errors.html  
> # 1 SEARCH/REPLACE block failed to match!

## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in foo.py

Just reply with fixed versions of the block above that failed to match.  

Here is the fixed block.

> Tokens: 1.2k sent, 20 received.  
> Applied edit to foo.py  
> # Fix any errors below, if possible.  
>  
> ## Running: flake8 foo.py  
> foo.py:1:1: F401 unused import  
> Attempt to fix lint errors? (Y)es/(N)o [Yes]: y  

Removed the import.

> Tokens: 1.4k sent, 10 received.  
> Run shell command? (Y)es/(N)o [Yes]: y  

The tests pass now.
"""  # noqa: W291
    conv, = load(tmp_path, text)
    texts = [m.text for m in conv.messages]
    assert texts[2] == ("# 1 SEARCH/REPLACE block failed to match!\n\n## SearchReplaceNoExactMatch: This SEARCH "
                        "block failed to exactly match lines in foo.py\n\nJust reply with fixed versions of the block "
                        "above that failed to match.")
    assert texts[4] == "# Fix any errors below, if possible.\n\n## Running: flake8 foo.py\nfoo.py:1:1: F401 unused import"
    assert [m.role for m in conv.messages] == ["user", "assistant", "user", "assistant", "user", "assistant",
                                               "assistant"]
    assert len(conv.meta["provider_calls"]) == 3  # the last reply has no Tokens line
    assert "answers a message Aider sent itself" in conv.meta["repairs"][-1]


def test_reasoning_as_aider_removes_it(tmp_path):
    text = START + """
#### hi  

<think>greet</think>
Hello.

#### again  

partial</think>
Hello again.

#### once more  

<think>never closed
"""  # noqa: W291
    conv, = load(tmp_path, text)
    assert [m.text for m in conv.messages if m.role == "assistant"] == ["Hello.", "Hello again.",
                                                                         "<think>never closed"]
    assert [t["text"] for t in conv.meta["thinking"]] == ["greet", "partial"]


def test_a_file_whose_trailing_spaces_were_stripped_goes_by_line_starts(tmp_path):
    text = "\n".join(line.rstrip() for line in STORY.splitlines()) + "\n"
    conv, = load(tmp_path, text)
    assert [m.role for m in conv.messages] == ["user", "assistant", "user", "assistant", "user", "assistant"]
    assert len(conv.meta["provider_calls"]) == 3


def test_the_may_2023_format(tmp_path):
    text = """
# Aider chat started at 2023-05-12 15:21:04

_Aider doesn't work well with gpt-3.5-turbo_  
_Added app.py to the chat_  

---
#### make a flask app  

Ok, here are the changes.

_Applied edit to app.py_  
"""  # noqa: W291
    conv, = load(tmp_path, text)
    assert [(m.role, m.text) for m in conv.messages] == [("user", "make a flask app"),
                                                        ("assistant", "Ok, here are the changes.")]
    assert conv.meta["skipped"] == {"Aider output line": 3, "text before the session's first input": 1}


def test_markdown_that_is_not_a_history(tmp_path):
    write(tmp_path, "# Notes\n\nNothing here.\n", "README.md")
    with pytest.raises(InvalidInputError, match=r"README.md: not an Aider chat history"):
        list(load_conversations(str(tmp_path / "README.md")))
    write(tmp_path, STORY, ".aider.chat.history.md")  # Aider's own, hidden name
    assert [c.id for c in load_conversations(str(tmp_path))] == [".aider.chat.history:2025-07-15 14:53:34"]
    path = write(tmp_path, "\n# aider chat started at 2025-01-01 00:00:00\n\n> Aider v0.85.1  \n", "empty.md")
    with pytest.raises(InvalidInputError, match="1 session.s., none with a message to the model"):
        list(load_conversations(str(path)))


def test_an_aider_message_of_several_lines_stays_one_line_of_output(tmp_path):
    """confirm_ask pads a subject of several lines and writes it with ``> `` on the first only."""
    text = START + """
#### make the folders  

Run these.

> Tokens: 900 sent, 9 received.  
> mkdir -p dist/dags           
touch dist/dags/index.js  
> Run shell commands? (Y)es/(N)o/(D)on't ask again [Yes]: y  

#### thanks  
"""  # noqa: W291
    conv, = load(tmp_path, text)
    assert [m.text for m in conv.messages] == ["make the folders", "Run these.", "thanks"]
    assert conv.meta["skipped"]["Aider output line"] == 4  # the three header lines and the command
    assert "repairs" not in conv.meta


def test_aider_0_14_questions_without_options(tmp_path):
    text = """
# aider chat started at 2023-10-01 23:06:04

> Aider v0.14.1  
> Add .aider* to .gitignore (recommended)? y  
> Model: gpt-4  

#### add inventory items  

Please add `Game.java` to the chat.

> Game.java  
> Add these files to the chat? y  

Great, here is the change.
"""  # noqa: W291
    conv, = load(tmp_path, text)
    assert [m.text for m in conv.messages][2] == ADDED_FILES.format("Game.java")
    assert conv.meta["skipped"] == {"Aider output line": 3, "Aider question and answer": 2}
    assert conv.meta["provider_calls"] == [] and "usage_total" in conv.meta
