"""OpenHands event streams: a session folder and a JSON list give the same conversation; actions of one
model response form one assistant message; usage, reasoning, condensation, tools."""

from __future__ import annotations

import json

from ctxlab.datasets import load_conversations
from tests.datasets.logs.helpers import CODE, FIXTURES, TEST, call_summary, load_one, shape

SESSION = FIXTURES / "openhands" / "oh-session-1"
LIST = FIXTURES / "openhands" / "trajectory.json"


def test_events_become_a_chat_with_parallel_calls_in_one_message():
    conv = load_one(SESSION)
    assert conv.id == "oh-session-1"
    assert shape(conv) == [
        ("system", "0", None), ("user", "1", None),
        ("assistant", "chatcmpl-o1", ("toolu_o1", "toolu_o2")), ("tool", "6", "toolu_o1"), ("tool", "7", "toolu_o2"),
        ("assistant", "chatcmpl-o2", ("toolu_o3",)), ("tool", "9", "toolu_o3"),
        ("assistant", "chatcmpl-o3", None),  # finish: never answered, so a plain message
        ("user", "13", None), ("assistant", "14", None),
    ]
    texts = [m.content for m in conv.messages]
    assert texts[2] == "I will read the code and the test."
    assert texts[3:5] == [CODE, TEST] and conv.messages[3].name == "execute_bash"
    assert texts[7] == "Removed the rounding in add(); test_add passes."
    assert json.loads(conv.messages[2].tool_calls[1].arguments) == {"command": "cat test_calc.py"}


def test_tools_usage_reasoning_and_condensation():
    conv = load_one(SESSION)
    assert [t["function"]["name"] for t in conv.tools] == ["execute_bash", "str_replace_editor", "finish"]
    # LiteLLM usage: prompt_tokens includes cache reads and writes; the last reply's usage is in its metrics
    assert call_summary(conv) == [(2, 3100, 10, 0, 3090, 85), (5, 3300, 90, 3090, 120, 140),
                                  (7, 3500, 300, 3200, 0, 40), (9, 3600, 50, 3500, 50, 6)]
    assert conv.meta["model"] == "litellm_proxy/claude-sonnet-4-5"
    assert conv.meta["thinking"] == [{"message_id": "chatcmpl-o1", "text": "Both files matter; read them in parallel."}]
    assert conv.meta["compactions"] == [{"index": 5, "at": 7, "tokens_before": None, "forgotten_events": [4, 7], "summary":
                                         "Read calc.py and test_calc.py: add() rounds its result; the test expects 2.5."}]
    assert conv.meta["skipped"] == {"action:recall": 1, "observation:recall": 1, "observation:agent_state_changed": 1}


def test_a_json_list_and_the_events_folder_load_the_same():
    folder, listed = load_one(SESSION), load_one(LIST)
    assert listed.messages == folder.messages
    assert {k: v for k, v in listed.meta.items() if k != "source"} == \
        {k: v for k, v in folder.meta.items() if k != "source"}
    assert load_one(SESSION / "events").messages == folder.messages  # the events folder itself


def test_event_files_are_read_in_numeric_order(tmp_path):
    events = json.loads(LIST.read_text())
    folder = tmp_path / "s" / "events"
    folder.mkdir(parents=True)
    for event in events:
        (folder / f"{event['id']}.json").write_text(json.dumps(event))
    (tmp_path / "s" / "metadata.json").write_text('{"title": "not a record"}')
    [conv] = load_conversations(str(tmp_path))
    assert conv.id == "s" and [m.id for m in conv.messages][-3:] == ["chatcmpl-o3", "13", "14"]


def test_a_user_command_and_its_output_are_user_messages(tmp_path):
    events = json.loads(LIST.read_text())[:2] + [
        {"id": 2, "source": "user", "action": "run", "args": {"command": "git status"}},
        {"id": 3, "source": "environment", "cause": 2, "observation": "run", "content": "nothing to commit"}]
    path = tmp_path / "user_run.json"
    path.write_text(json.dumps(events))
    assert [(m.role, m.content) for m in load_one(path).messages][2:] == [
        ("user", "User executed the command:\ngit status"), ("user", "nothing to commit")]


def edit_events(extras: dict) -> list[dict]:
    response = {"id": "resp-1", "model": "claude-3-5-sonnet-20241022", "usage": {"prompt_tokens": 900,
                                                                                 "completion_tokens": 40},
                "choices": [{"message": {"content": "Creating it.", "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "str_replace_editor", "arguments": "{}"}}]}}]}
    meta = {"function_name": "str_replace_editor", "tool_call_id": "call_1"}
    return [{"id": 0, "source": "user", "action": "message", "args": {"content": "Create hello.py"}},
            {"id": 1, "source": "agent", "action": "edit", "args": {"path": "/w/hello.py", "command": "create"},
             "tool_call_metadata": {**meta, "model_response": response}},
            {"id": 2, "source": "agent", "observation": "edit", "tool_call_metadata": meta,
             "content": "--- /w/hello.py\n+++ /w/hello.py\n@@ -0,0 +1 @@\n+print(1)",
             "extras": {"path": "/w/hello.py", "impl_source": "oh_aci", **extras}}]


def test_an_oh_aci_edit_is_imported_as_the_model_received_it(tmp_path):
    """Before OpenHands moved it into `content`, an oh_aci edit's text for the model was
    extras.formatted_output_and_error; `content` held a diff for the UI."""
    path = tmp_path / "edit.json"
    path.write_text(json.dumps(edit_events({"formatted_output_and_error": "File created successfully at: /w/hello.py"})))
    conv = load_one(path)
    assert conv.messages[-1].content == "File created successfully at: /w/hello.py"
    assert conv.meta["repairs"] == ["event 2: the model received extras.formatted_output_and_error (oh_aci edit), "
                                    "not the display diff in content"]
    newer = tmp_path / "newer.json"  # newer logs: content is what the model got
    newer.write_text(json.dumps(edit_events({})))
    assert load_one(newer).messages[-1].content.startswith("--- /w/hello.py") and "repairs" not in load_one(newer).meta
