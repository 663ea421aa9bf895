"""The one definition of a specific string, its kinds, and the instruction detector."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxlab.messages import Message
from ctxlab.metrics.instructions import find_instructions, instructions_of
from ctxlab.metrics.specific import MIN_LENGTH, kind_of, specific_strings


def test_specific_strings_are_paths_identifiers_numbers_and_flags_not_prose():
    text = ("Edit src/app.py: set max_retries in ReviewContextBuilder, run pytest --dry-run on 2026-11-23 "
            "(commit d5dde00d). See README and the 1.23 release; continue. =====")
    assert specific_strings(text) == ["src/app.py", "max_retries", "ReviewContextBuilder", "--dry-run",
                                      "2026-11-23", "d5dde00d"]


@pytest.mark.parametrize(("string", "kind"), [
    ("src/app.py", "path"), ("config.yaml", "path"), ("https://example.com/a", "path"),
    ("max_retries", "identifier"), ("ReviewContextBuilder", "identifier"), ("os.path.join", "identifier"),
    (":noreply", "identifier"), ("2026-11-23", "number"), ("v1.2.3", "number"), ("1500ms", "number"),
    ("d5dde00d", "number"), ("--dry-run", "other"), ("user@host.com", "other"), ("key=12345", "other"),
])
def test_kinds(string, kind):
    assert kind_of(string) == kind


@given(st.text(alphabet=st.sampled_from("ab Z9_./:-=@# \n中"), max_size=80))
def test_every_specific_string_is_a_long_enough_run_of_the_text(text):
    for s in specific_strings(text):
        assert s in text and len(s) >= MIN_LENGTH and re.fullmatch(r"[A-Za-z0-9_./:@#=-]+", s)
        assert not s.endswith((".", ":", "="))


def test_instructions_in_english():
    text = ("Fix the login bug. You must keep the public API. Don't touch migrations!\n- always run the linter\n"
            "It only takes a minute? ok\n```\nnever = 1  # code is not an instruction\n```")
    assert find_instructions(text) == ["You must keep the public API.", "Don't touch migrations!",
                                       "always run the linter", "It only takes a minute?"]


def test_instructions_in_chinese_simplified_and_traditional():
    text = "帮我看一下这个请求为什么失败。不要修改数据库。請保持向後相容！必须先跑测试"
    assert find_instructions(text) == ["不要修改数据库", "請保持向後相容", "必须先跑测试"]


def test_harness_text_in_user_messages_is_not_an_instruction():
    text = ("<system-reminder>\nPostToolUse hook: please remove access to @max_result_lines\n</system-reminder>"
            "\nMake sure the tests pass.")
    assert find_instructions(text) == ["Make sure the tests pass."]


def test_instructions_come_from_user_messages_once():
    messages = [Message("user", "Never push to main.", id="a"), Message("assistant", "I will never push.", id="b"),
                Message("tool", "never", id="c"), Message("user", "Never push to main.", id="d")]
    assert instructions_of(messages) == [(0, "Never push to main.")]
