"""Estimator error metrics: content kinds, languages, per-message rows and the error table."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ctxlab import caches
from ctxlab.messages import Conversation, Message, ToolCall
from ctxlab.metrics.estimator import (
    _description,
    content_kind,
    conversation_rows,
    describe,
    error_table,
    language,
    message_rows,
)
from ctxlab.store.schema import EstimatorRow
from ctxlab.tokens import get_counter

TOOLS = ({"type": "function", "function": {"name": "read_file", "description": "Read a file.", "parameters": {
    "type": "object", "properties": {"path": {"type": "string", "description": "The path."}}}}},)
CONVERSATION = Conversation("conv", (
    Message(role="system", content="You are a careful coding agent.", id="s"),
    Message(role="user", content="上下文压缩需要保留关键信息，并且丢弃冗余的工具输出。", id="u"),
    Message(role="assistant", id="a", tool_calls=(ToolCall("c1", "read_file", '{"path": "app.py"}'),)),
    Message(role="tool", content="def main():\n    return run(sys.argv)\n", id="t", tool_call_id="c1"),
    Message(role="assistant", content="The entry point calls run() with the arguments.", id="a2"),
), TOOLS)


@pytest.mark.parametrize(("text", "role", "kind"), [
    ('{"status": "ok", "items": [1, 2]}', "tool", "json"),
    ('[{"id": 1}, {"id": 2}]', "assistant", "json"),
    ('{\n  "name": "ctxlab",\n  "version": "0.1.0",\n  "deps": [\n    "numpy",\n', "tool", "json"),
    ("def f(x):\n    y = x * 2\n    return y\n", "assistant", "code"),
    ("Here you go:\n```python\nimport os\nprint(os.listdir('.'))\nfor name in names:\n    print(name)\n```",
     "assistant", "code"),
    ("const x = 1;\nfunction f() {\n  return x;\n}", "tool", "code"),
    ("上下文压缩需要保留关键信息，并且丢弃冗余的工具输出。", "user", "cjk"),
    ("请检查 `src/app.py` 里的 main 函数为什么返回空值。", "user", "cjk"),
    ("PASSED tests/test_app.py::test_ok\nFAILED tests/test_app.py::test_bad - AssertionError\n1 failed, 1 passed",
     "tool", "tool_output"),
    ("total 8\ndrwxr-xr-x 2 dev dev 4096 .\n-rw-r--r-- 1 dev dev 12 README.md", "tool", "tool_output"),
    ("Here is the plan:", "assistant", "prose"),
    ("Sure (see below). The function returns early when the list is empty.", "assistant", "prose"),
    ("For example:\n1. Open the file.\n2. Fix the bug.", "assistant", "prose"),
    ("The run finished without errors.", "tool", "tool_output"),
])
def test_content_kind(text, role, kind):
    assert content_kind(text, role) == kind


@pytest.mark.parametrize(("text", "lang"), [
    ("The quick brown fox jumps over the lazy dog.", "en"),
    ("上下文压缩需要保留关键信息。", "zh"),
    ("コンテキストの圧縮では、重要な情報を残します。", "ja"),
    ("文脈を圧縮する", "ja"),
    ("안녕하세요, 반갑습니다.", "ko"),
    ("Привет, как дела?", "other"),
    ("Ça a été très réussi, où êtes-vous déjà à présent ?", "other"),
    ("12345 + 678", "other"),
    ("Please translate: 你好世界，今天天气很好", "zh"),
])
def test_language(text, lang):
    assert language(text) == lang


def test_message_rows_one_per_message_counter_reference():
    counters, references = ["chars4", "calibrated"], ["o200k_base", "cl100k_base"]
    rows = message_rows(CONVERSATION, counters, references)
    assert len(rows) == len(CONVERSATION.messages) * len(counters) * len(references)
    assert all(type(r) is EstimatorRow for r in rows)
    by_key = {(r.message_id, r.counter, r.reference): r for r in rows}
    user = by_key[("u", "chars4", "o200k_base")]
    assert (user.content_kind, user.language, user.chars) == ("cjk", "zh", 26)
    assert user.estimated == get_counter("chars4").count_message(CONVERSATION.messages[1])
    assert user.actual == get_counter("o200k_base").count_message(CONVERSATION.messages[1])
    call = by_key[("a", "chars4", "o200k_base")]
    assert call.content_kind == "json" and call.chars == len("read_file") + len('{"path": "app.py"}')
    assert by_key[("t", "chars4", "cl100k_base")].content_kind == "code"


def test_conversation_rows_count_the_tool_definitions():
    per_message = message_rows(CONVERSATION, ["chars4"], ["o200k_base"])
    [whole] = conversation_rows(CONVERSATION, ["chars4"], ["o200k_base"])
    assert (whole.conversation_id, whole.counter, whole.reference) == ("conv", "chars4", "o200k_base")
    assert whole.estimated == sum(r.estimated for r in per_message)  # chars4 ignores tools
    reference = get_counter("o200k_base")
    assert whole.actual == reference.count_messages(CONVERSATION.messages, CONVERSATION.tools)
    assert whole.actual > sum(r.actual for r in per_message) + 3  # the schema is counted


def test_error_table_statistics():
    df = pd.DataFrame({
        "counter": ["a", "a", "a", "a", "b", "b", "b"],
        "content_kind": ["prose", "prose", "cjk", "cjk", "prose", "cjk", "cjk"],
        "estimated": [110, 90, 50, 100, 100, 80, 5],
        "actual": [100, 100, 100, 100, 100, 100, 0],
    })
    table = error_table(df).set_index("counter")
    a = table.loc["a"]
    assert a.n == 4
    assert a.mean_signed_error_pct == pytest.approx((10 - 10 - 50 + 0) / 4)
    assert a.mape_pct == pytest.approx((10 + 10 + 50 + 0) / 4)
    assert a.underestimate_share == pytest.approx(0.5)
    assert a.p95_abs_error_pct == pytest.approx(pd.Series([10, 10, 50, 0]).quantile(0.95))
    assert table.loc["b"].n == 2  # the row with actual 0 has no relative error
    by_kind = error_table(df, ("counter", "content_kind")).set_index(["counter", "content_kind"])
    assert by_kind.loc[("a", "cjk")].mape_pct == pytest.approx(25)
    assert list(error_table(df, "content_kind")["content_kind"]) == ["prose", "cjk"]


def test_error_table_on_real_rows_shows_chars4_undercounting_cjk():
    conversation = Conversation("zh", tuple(
        Message(role="user" if i % 2 else "assistant", content="上下文压缩需要保留关键信息，并且丢弃冗余的工具输出。" * (i + 1),
                id=f"m{i}") for i in range(6)))
    df = pd.DataFrame(message_rows(conversation, ["chars4", "calibrated"], ["o200k_base"]))
    table = error_table(df[df["content_kind"] == "cjk"]).set_index("counter")
    assert table.loc["chars4"].mean_signed_error_pct < -50 and table.loc["chars4"].underestimate_share == 1
    assert table.loc["calibrated"].mape_pct < 15


def test_rows_are_json_serialisable():
    json.dumps([r._asdict() for r in message_rows(CONVERSATION, ["chars3"], ["o200k_base"])])


def test_describe_is_kept_per_message_and_equals_a_fresh_description() -> None:
    caches.forget()
    first = [describe(m) for m in CONVERSATION.messages]
    assert [describe(m) for m in CONVERSATION.messages] == first == [_description(m) for m in CONVERSATION.messages]
    assert first[1][:2] == ("cjk", "zh") and first[3][0] == "code"
    same_id_other_text = Message(role="tool", content="plain listing", id="t", tool_call_id="c1")
    assert describe(same_id_other_text) == _description(same_id_other_text) != first[3]  # keyed by the message, not its id
