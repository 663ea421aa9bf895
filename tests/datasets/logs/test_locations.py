"""Each agent's default session folder, its environment override, and the newest sessions found,
on a temporary home folder holding hand-made files in every layout."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxlab.datasets import load_conversations
from ctxlab.datasets.logs import FORMATS
from ctxlab.datasets.logs.locations import AGENTS, Session, find_sessions, first_user_line, one_line, search
from ctxlab.errors import UnknownNameError
from tests.datasets.logs.locations_home import OVERRIDES, T0, make_home, put


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, dict[str, list[Path]]]:
    for name in OVERRIDES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    sessions = make_home(tmp_path / "home", tmp_path / "work")
    return tmp_path / "home", tmp_path / "work", sessions


@pytest.mark.parametrize("agent", AGENTS)
def test_each_agent_s_sessions_are_found_newest_first_and_nothing_else(home, agent):
    _, work, expected = home
    found = find_sessions(agent, under=work)
    assert [s.path for s in found] == expected[agent]
    assert all(s.agent == agent and s.size == s.path.stat().st_size for s in found)
    assert [s.modified for s in found] == sorted((s.modified for s in found), reverse=True)


def test_the_newest_n_and_the_home_folder_argument(home, monkeypatch):
    home_dir, _, expected = home
    monkeypatch.setenv("HOME", "/nonexistent")
    assert [s.path for s in find_sessions("codex", home=home_dir, newest=1)] == expected["codex"][:1]
    assert len(find_sessions("codex", home=home_dir, newest=0)) == 2  # 0: all


def test_compressed_codex_rollouts_are_counted_in_a_note(home):
    found = search("codex")
    assert found.searched == home[0] / ".codex"
    assert found.note.startswith("1 compressed rollout(s) (.jsonl.zst) not listed")


def test_the_agents_environment_overrides(home, tmp_path, monkeypatch):
    _, _, expected = home
    elsewhere = tmp_path / "elsewhere"
    for agent, variable, layout in [("claude_code", "CLAUDE_CONFIG_DIR", "projects/p/s.jsonl"),
                                    ("codex", "CODEX_HOME", "sessions/2025/01/01/rollout-x.jsonl"),
                                    ("pi", "PI_CODING_AGENT_DIR", "sessions/--p--/s.jsonl"),
                                    ("gemini_cli", "GEMINI_CLI_HOME", ".gemini/tmp/p/chats/session-x.json")]:
        session = put(elsewhere / agent / layout, 20, text="{}\n")
        monkeypatch.setenv(variable, str(elsewhere / agent))
        assert [s.path for s in find_sessions(agent)] == [session], agent
    monkeypatch.setenv("PI_CODING_AGENT_DIR", "~/pi-agent")  # pi expands a leading ~ itself
    assert search("pi").searched == home[0] / "pi-agent"
    named = put(tmp_path / "notes" / "chat.md", 30, text="# aider chat started at 2025-11-01\n")
    monkeypatch.setenv("AIDER_CHAT_HISTORY_FILE", str(named))
    assert {s.path for s in find_sessions("aider", under=home[1])} == {named, *expected["aider"]}


def test_an_unknown_agent_names_the_known_ones():
    with pytest.raises(UnknownNameError, match="unknown agent 'cursor'; valid: aider, claude_code, codex"):
        find_sessions("cursor")


def test_a_session_loads_through_its_source(home):
    claude = find_sessions("claude_code")[0]
    assert claude.source == f"claude_code:{claude.path}"
    conversation, _subagent = load_conversations(claude.source)  # the fixture writes its subagent inline
    assert conversation.meta["format"] == "claude_code"
    aider = find_sessions("aider", under=home[1])[0]
    assert aider.source == (f"aider:{aider.path}" if "aider" in FORMATS else str(aider.path))


def test_the_first_user_line_is_one_printable_line_or_why_not(home, tmp_path):
    claude = find_sessions("claude_code")[0]
    conversation, _subagent = load_conversations(claude.source)  # the fixture writes its subagent inline
    first = next(m.text for m in conversation.messages if m.role == "user")
    assert first_user_line(claude, 1000) == one_line(first) and len(first_user_line(claude, 20)) == 20
    broken = put(tmp_path / "broken.jsonl", 0, text='{"type": "session", "id": "x"}\nnot json\n{}\n')
    assert first_user_line(Session("pi", broken, 1, T0)).startswith("(not readable: ")


def test_one_line_flattens_and_cuts_untrusted_text():
    assert one_line("a\n\tb \x1b[31mred\x1b[0m \u202eevil\x07", 100) == "a b [31mred [0m evil"
    assert one_line("x" * 10, 5) == "xxxx…" and one_line("", 5) == ""
