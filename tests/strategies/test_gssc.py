"""`gssc` against seed 002 (Go GSSC pipeline): available tokens, scores, selection, the three
structurers, section truncation (halve then delete, [Context] first) and the retrieval gatherer."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxlab.errors import CtxlabError, UnknownNameError
from ctxlab.messages import Message, validate_messages
from ctxlab.strategies import Request, get_strategy, strategy_params
from ctxlab.strategies.mechanics import pinned
from ctxlab.strategies.seeds.gssc import GATHERERS, GatherInput, Packet, bm25, words
from ctxlab.strategies.seeds.gssc.compress import (
    TRUNCATED,
    compress,
    compress_sections,
    simple_compress,
    truncate_section,
)
from ctxlab.strategies.seeds.gssc.packets import EVIDENCE, HISTORY, INSTRUCTIONS, TASK, TASK_STATE
from ctxlab.strategies.seeds.gssc.select import Clock, Weights, mmr_order, recency, relevance, score, select
from ctxlab.strategies.seeds.gssc.strategy import DEFAULT_GATHERERS, GSSC, RESULT_ID, available_tokens
from ctxlab.strategies.seeds.gssc.structure import DEFAULT_OUTPUT, custom, minimal, render_sections, sectioned
from ctxlab.tokens import get_counter
from tests.builders import Convo, agent_session, prose
from tests.strategies.conftest import budgets, conversations

CHARS4 = get_counter("chars4")
ORDER = ("[Context]", "[Evidence]", "[State]", "[Output]", "[Task]", "[Role & Policies]")


def gssc(messages, budget: int, counter: str = "chars4", name: str = "gssc", **params):
    return get_strategy(name, **params).compress(messages, budget, counter=counter)


def lines(n: int, tag: str) -> str:
    return "".join(f"{tag} line {i}: {'x' * 30}\n" for i in range(n))


def pool_conversation(query: str = "What was our postgres pool size?") -> tuple[Message, ...]:
    """An early fact, twenty rounds about something else (no word in common with the default
    query), then a question about the fact."""
    c = Convo().system("You are a helpful assistant.").user("Our postgres connection pool size is 42.")
    c.assistant("Noted.")
    for i in range(20):
        c.user(prose(120, i)).assistant(prose(160, i + 3))
    return c.user(query).build()


# ---- config --------------------------------------------------------------------------------------

def test_seed_defaults() -> None:
    params = strategy_params("gssc")
    assert {k: params[k] for k in ("reserve_ratio", "min_relevance", "relevance_weight", "recency_weight",
                                   "recency_tau", "max_history_messages", "enable_compression", "enable_mmr")} == {
        "reserve_ratio": 0.15, "min_relevance": 0.3, "relevance_weight": 0.7, "recency_weight": 0.3,
        "recency_tau": 3600.0, "max_history_messages": 10, "enable_compression": True, "enable_mmr": False}
    assert params["structurer"] == "sectioned" and params["gatherers"] == DEFAULT_GATHERERS


def test_available_tokens_is_8000_times_0_85() -> None:
    assert available_tokens(8000, 0.15) == 6800


def test_build_fits_the_available_tokens() -> None:
    messages = agent_session(30, output_chars=3000)
    text = GSSC().build(messages, 8000, counter="cl100k_base")
    assert text.startswith("[Role & Policies]\nYou are a careful coding assistant.")
    assert get_counter("cl100k_base").count(text) <= 6800


def test_seed_counter_is_tiktoken_with_bytes4_as_its_fallback() -> None:
    """Issue 16, item 6. Seed 002's TokenCounter table: ``TiktokenCounter`` 使用 tiktoken-go 库 (精确)
    and ``EstimatedCounter`` 字符估算（1 token ≈ 4 字符）, "作为降级方案" (the fallback). The seed's
    counter is tiktoken (no encoding named; the upstream code's comment says cl100k_base); its
    fallback is the `bytes4` counter, ``int(float64(len(text)) / 4)`` over UTF-8 bytes."""
    assert GSSC.seed_counter == "cl100k_base" and get_counter(GSSC.seed_counter).exact
    assert get_counter("bytes4").count("你好世界") == 12 // 4 and not get_counter("bytes4").exact


def test_bad_parameters_are_named() -> None:
    with pytest.raises(UnknownNameError, match="fancy"):
        get_strategy("gssc", structurer="fancy")
    with pytest.raises(UnknownNameError, match="nope"):
        get_strategy("gssc", gatherers=("instructions", "task", "nope"))
    with pytest.raises(CtxlabError, match="'instructions' and 'task'"):
        get_strategy("gssc", gatherers=("history",))


# ---- select --------------------------------------------------------------------------------------

def test_relevance_is_the_seeds_overlap_ratio() -> None:
    assert relevance("dog", "cat dog") == 0.5
    assert relevance("the the dog", "the cat") == 1.0  # content repeats count, as in the seed's code
    assert relevance("cat cat cat", "cat dog") == 1.0  # capped at 1
    assert relevance("anything", "") == 0.0


def test_words_split_cjk_into_characters() -> None:
    assert words("Hello, 世界! read_file v2") == ("hello", "世", "界", "read", "file", "v2")


def test_recency_decays_from_timestamps_else_positions() -> None:
    clock = Clock(now=10_000.0, position=100, positions={"old": 40, "new": 100})
    assert recency(Packet("x", timestamp=10_000.0 - 3600), clock, 3600) == pytest.approx(math.exp(-1))
    assert recency(Packet("x", metadata={"source_ids": ("old",)}), Clock(None, 100, clock.positions),
                   3600) == pytest.approx(math.exp(-1))  # 60 messages back at 60 s each
    assert recency(Packet("x", metadata={"source_ids": ("new",)}), Clock(None, 100, clock.positions), 3600) == 1.0
    assert recency(Packet("x"), clock, 3600) == 0.5  # the seed's score for an undated packet


def test_composite_is_0_7_relevance_plus_0_3_recency() -> None:
    clock = Clock(now=7200.0, position=0, positions={})
    (p,) = score([Packet("x", EVIDENCE, timestamp=3600.0, relevance=0.5)], "q", clock, Weights(), CHARS4.count)
    assert p.relevance == 0.5 and p.recency == pytest.approx(math.exp(-1))
    assert p.composite == pytest.approx(0.7 * 0.5 + 0.3 * math.exp(-1)) and p.token_count == 1


def test_p0_packets_are_always_selected() -> None:
    packets = [Packet("i" * 400, INSTRUCTIONS, token_count=100), Packet("t", TASK, token_count=100),
               Packet("h", HISTORY, token_count=1, relevance=1.0)]
    assert [p.type for p in select(packets, 10, min_relevance=0.3)] == [INSTRUCTIONS, TASK]


def test_min_relevance_filters_other_packets_but_not_task_state() -> None:
    packets = [Packet("low", EVIDENCE, token_count=1, relevance=0.29),
               Packet("ok", EVIDENCE, token_count=1, relevance=0.3),
               Packet("state", TASK_STATE, token_count=1, relevance=0.0),
               Packet("history", HISTORY, token_count=1, relevance=0.1)]
    assert [p.content for p in select(packets, 100, min_relevance=0.3)] == ["state", "ok"]
    kept = select(packets, 100, min_relevance=0.3, filter_history=False)
    assert [p.content for p in kept] == ["state", "ok", "history"]


def test_selection_is_by_priority_then_composite_and_skips_what_does_not_fit() -> None:
    packets = [Packet("h", HISTORY, token_count=5, relevance=1, composite=0.9),
               Packet("e1", EVIDENCE, token_count=8, relevance=1, composite=0.4),
               Packet("e2", EVIDENCE, token_count=3, relevance=1, composite=0.8)]
    assert [p.content for p in select(packets, 9, min_relevance=0.3)] == ["e2", "h"]


def test_mmr_prefers_a_diverse_packet_over_a_near_duplicate() -> None:
    a = Packet("alpha beta gamma", EVIDENCE, composite=0.9)
    dup = Packet("alpha beta gamma delta", EVIDENCE, composite=0.85)
    other = Packet("epsilon zeta", EVIDENCE, composite=0.6)
    assert [p.content for p in mmr_order([a, dup, other], 0.5)] == [a.content, other.content, dup.content]
    assert mmr_order([a, dup, other], 1.0) == [a, dup, other]


# ---- structure -----------------------------------------------------------------------------------

PACKETS = [Packet("Be brief.", INSTRUCTIONS), Packet("Why?", TASK, composite=1.0),
           Packet("Blocked on review", TASK_STATE, composite=0.5),
           Packet("[user] fact", EVIDENCE, source="retrieval", relevance=0.5, composite=0.6),
           Packet("[user] hi\n[assistant] hello\n", HISTORY, composite=0.9)]


def test_sectioned_structurer_uses_the_seeds_template() -> None:
    text = render_sections(sectioned(PACKETS, "Why?"))
    assert text == ("[Role & Policies]\nBe brief.\n\n[Task]\n用户问题：Why?\n\n[State]\n关键进展与未决问题：\n"
                    "Blocked on review\n\n\n[Evidence]\n事实与引用：\n\n[来源: retrieval]\n[user] fact\n\n\n"
                    "[Context]\n对话历史与背景：\n[user] hi\n[assistant] hello\n\n\n[Output]\n" + DEFAULT_OUTPUT)


def test_minimal_structurer_has_no_headers_and_orders_by_priority() -> None:
    assert minimal(PACKETS, "Why?") == "Be brief.\n\nWhy?\n\nBlocked on review\n\n[user] fact\n\n[user] hi\n[assistant] hello\n"
    assert minimal([], "Why?") == "Why?"


def test_custom_structurer_fills_placeholders() -> None:
    template = "{{instructions}}|{{task}}|{{state}}|{{task_state}}|{{evidence}}|{{history}}|{{custom}}|{{nope}}"
    assert custom(PACKETS, "Why?", template) == ("Be brief.|Why?|Blocked on review|Blocked on review|[user] fact|"
                                                 "[user] hi\n[assistant] hello\n||{{nope}}")
    assert custom(PACKETS, "Why?", "{{output}}", "Answer in one line.") == "Answer in one line."
    assert custom(PACKETS, "Why?", "") == minimal(PACKETS, "Why?")


def test_each_structurer_runs_through_the_strategy() -> None:
    messages = pool_conversation()
    minimal_out = gssc(messages, 3000, name="gssc_retrieval", structurer="minimal").messages[0].text
    assert minimal_out.startswith("You are a helpful assistant.\n\nWhat was our postgres pool size?\n\n[user] Our")
    template = "{{instructions}}\nQ: {{task}}\n{{evidence}}"
    custom_out = gssc(messages, 3000, name="gssc_retrieval", structurer="custom", template=template).messages[0].text
    assert custom_out == ("You are a helpful assistant.\nQ: What was our postgres pool size?\n"
                          "[user] Our postgres connection pool size is 42.")
    with pytest.raises(CtxlabError, match="instructions"):
        get_strategy("gssc", structurer="custom", template="Q: {{task}}")


# ---- compress ------------------------------------------------------------------------------------

def big_sections() -> list[tuple[str, str]]:
    history = "".join(f"[user] hist line {i}: {'x' * 30}\n" for i in range(40))
    packets = [Packet("Be brief.", INSTRUCTIONS), Packet("Why?", TASK),
               Packet(lines(10, "state"), TASK_STATE), Packet(lines(20, "fact"), EVIDENCE, relevance=1),
               Packet(history, HISTORY)]
    return sectioned(packets, "Why?")


def test_context_is_halved_first_keeping_its_newest_messages() -> None:
    """Issue 16, item 5. Seed 002, TruncateCompressor: "先尝试部分截断（保留50%）" (first try a partial
    cut keeping 50%), [Context] first. The seed does not say which half; ctxlab keeps the newest
    messages of the history, those nearest the query (the seed's upstream code kept the oldest)."""
    sections = big_sections()
    text = render_sections(sections)
    context_tokens = CHARS4.count(dict(sections)["[Context]"].strip())
    done = compress(text, CHARS4.count(text) - context_tokens // 3, CHARS4.count, sections)
    assert done.cuts == (("[Context]", "halved"),)
    assert "hist line 39" in done.text and "hist line 25" in done.text and "hist line 10:" not in done.text
    assert f"[Context]\n对话历史与背景：\n{TRUNCATED}\n[user] hist line 2" in done.text
    assert done.text.endswith(f"hist line 39: {'x' * 30}\n\n[Output]\n" + DEFAULT_OUTPUT)
    assert done.text.startswith("[Role & Policies]\nBe brief.\n\n[Task]")  # template order kept


def test_other_sections_are_halved_keeping_their_leading_lines() -> None:
    """[Evidence] is ordered by relevance, [State] and the rest by the template: their first lines
    matter most, so they keep the leading half (as the seed's upstream truncateSection does)."""
    done = compress_sections(big_sections(), 300, CHARS4.count)
    assert ("[Evidence]", "halved") in done.cuts and "fact line 0:" in done.text and "fact line 19" not in done.text


def test_sections_are_halved_then_deleted_in_priority_order() -> None:
    done = compress_sections(big_sections(), 0, CHARS4.count)
    assert done.cuts == (("[Context]", "halved"), ("[Context]", "deleted"), ("[Evidence]", "halved"),
                         ("[Evidence]", "deleted"), ("[State]", "halved"), ("[State]", "deleted"),
                         ("[Output]", "halved"), ("[Output]", "deleted"), ("[Task]", "deleted"),
                         ("[Role & Policies]", "deleted"))
    assert done.text == ""


def test_compression_stops_as_soon_as_it_fits() -> None:
    sections = big_sections()
    without_context = render_sections([s for s in sections if s[0] != "[Context]"])
    done = compress_sections(sections, CHARS4.count(without_context) + 5, CHARS4.count)
    assert [h for h, _ in done.cuts] == ["[Context]", "[Context]"] and "[Evidence]" in done.text


def test_headerless_text_keeps_leading_lines() -> None:
    done = simple_compress("a" * 40 + "\n" + "b" * 40 + "\n" + "c" * 40, 22, CHARS4.count)
    assert done.text == "a" * 40 + "\n" + "b" * 40


def test_custom_templates_with_headers_are_cut_by_section_and_keep_their_preamble() -> None:
    text = f"Intro\n[Task]\nWhy?\n[Context]\n{lines(40, 'hist')}"
    done = compress(text, 100, CHARS4.count)
    assert done.text.startswith("Intro\n\n[Task]\nWhy?") and done.cuts[0] == ("[Context]", "halved")


# ---- gather and the strategy ---------------------------------------------------------------------

def test_bm25_scores_matching_documents_only() -> None:
    scores = bm25([("pool", "size", "42"), ("cats", "purr"), ("pool", "party", "pool")], {"pool", "size"})
    assert scores[0] > scores[2] > 0 and scores[1] == 0


def test_retrieval_is_off_in_gssc_and_on_in_gssc_retrieval() -> None:
    """Issue 16, item 5. Seed 002's gatherers are Instructions, Task, History, Memory and RAG (the
    last two need an external store); its upstream NewGSSCBuilder defaults to instructions, task and
    history. BM25 retrieval over older messages is ctxlab's, so only the named variant has it."""
    assert strategy_params("gssc")["gatherers"] == ("instructions", "task", "history")
    assert strategy_params("gssc_retrieval")["gatherers"] == ("instructions", "task", "history", "retrieval")
    assert {k: v for k, v in strategy_params("gssc_retrieval").items() if k != "gatherers"} == {
        k: v for k, v in strategy_params("gssc").items() if k != "gatherers"}
    assert "[Evidence]" not in gssc(pool_conversation(), 4000, filter_history=False).messages[0].text


def test_retrieval_gatherer_finds_an_old_relevant_message() -> None:
    messages = pool_conversation()
    r = gssc(messages, 4000, name="gssc_retrieval")
    context = r.messages[0]
    assert "[Evidence]\n事实与引用：\n\n[来源: retrieval]\n[user] Our postgres connection pool size is 42." in context.text
    assert "m1" in r.kept_ids and "m1" in context.source_ids and "m2" in r.dropped_ids


def test_history_is_filtered_by_min_relevance_like_the_seed() -> None:
    """Seed 002, DefaultSelector: "2. P0 包（instructions, task）始终包含 3. 按 MinRelevance 过滤其他包"
    (P0 packets always; the other packets are filtered by MinRelevance), relevance being the query's
    keyword overlap. This is explicit, so a query sharing no word with the history loses it in
    `gssc`; the event says so (`filtered`), and `filter_history=false` (ctxlab's) exempts it."""
    messages = pool_conversation()  # the query shares no word with the last ten messages
    payload = gssc(messages, 4000).events[0].payload
    assert payload["selected"] == {"instructions": 1, "task": 1} and payload["filtered"] == {"history": 1}
    assert payload["history_messages"] == {"kept": 0, "window": 10}
    kept = gssc(messages, 4000, filter_history=False).events[0].payload
    assert kept["selected"] == {"history": 1, "instructions": 1, "task": 1} and kept["filtered"] == {}
    retrieved = gssc(messages, 4000, name="gssc_retrieval").events[0].payload["selected"]
    assert retrieved == {"evidence": 1, "instructions": 1, "task": 1}


def no_shared_word_session(outputs: int = 6) -> tuple[Message, ...]:
    """An agent session whose newest request shares no word with anything before it, with tool
    outputs too large for the history window to fit an 8k budget whole (the issue's pi session)."""
    c = Convo().system("You are a coding agent.").user("Fix the flaky login test in tests/test_auth.py.")
    for i in range(outputs):
        c.tools(("read_file", lines(250, f"out{i}")), text=f"Reading part {i}.").assistant(f"Part {i} read.")
    return c.user("Continue.").build()


def test_a_history_too_large_to_fit_keeps_its_newest_messages() -> None:
    """Issue 16, item 5 (the history cliff). Seed 002 selects "在 Token 预算内选择" (within the
    budget: ``if usedTokens + packet.TokenCount <= availableTokens``) and says nothing of a history
    larger than the budget; the upstream code's single history packet was then skipped whole, so
    [Context] came out empty. ctxlab keeps the window's messages that fit, newest first, skipping
    one that does not fit as Select skips a packet."""
    messages = no_shared_word_session()
    window = [m.id for m in messages[-11:-1]]
    r = gssc(messages, 8000, filter_history=False)
    payload = r.events[0].payload
    assert payload["selected"] == {"history": 1, "instructions": 1, "task": 1}
    kept = payload["history_messages"]["kept"]
    assert 0 < kept < 10 and payload["history_messages"]["window"] == 10
    assert window[-7:] == [i for i in window if i in r.kept_ids][-7:]  # the newest, whole
    skipped = [m for m in messages if m.id in window and m.id not in r.kept_ids]
    assert skipped and all(m.role == "tool" for m in skipped)  # only outputs too large to fit
    assert r.fits and r.tokens_after > 4000  # not the pinned messages alone
    # With the seed's MinRelevance filter (explicit), "Continue." shares no word with the history.
    assert gssc(messages, 8000).events[0].payload["filtered"] == {"history": 1}


def test_compress_returns_the_context_then_the_newest_user_message() -> None:
    messages = pool_conversation("What was the postgres pool size in the context budget?")
    r = gssc(messages, 4000)
    context, query = r.messages
    assert (context.role, context.id, context.mark) == ("system", RESULT_ID, "marker")
    assert query == messages[-1] and r.fits and r.tokens_after <= available_tokens(4000, 0.15)
    validate_messages(r.messages)
    window = [m.id for m in messages[-11:-1]]
    assert set(window) <= set(r.kept_ids) and set(window) <= set(context.source_ids)
    assert set(r.kept_ids) | set(r.dropped_ids) == {m.id for m in messages} and r.truncated_ids == ()


def test_agent_history_renders_tool_calls_and_results() -> None:
    messages = Convo().system().user("Read it.").tools(("read_file", "contents of a.py")).user("And?").build()
    text = gssc(messages, 2000, filter_history=False).messages[0].text
    assert '[assistant] [tool calls: read_file({"arg": 0})]\n[tool] contents of a.py\n' in text


def test_a_cut_context_marks_messages_truncated() -> None:
    """When not even the newest message of [Context] fits half the section, its leading lines stay
    (under the marker) and the message counts as truncated."""
    messages = Convo().system().user("Start.").assistant("Reading the file output now.") \
        .tools(("read_file", lines(60, "out"))).user("Now what is in the file output?").build()
    cut = None
    for budget in range(500, 1200, 5):
        r = gssc(messages, budget, filter_history=False)
        if r.events[0].payload["cuts"]:
            cut = r
            break
    assert cut is not None and cut.events[0].payload["cuts"][0] == ["[Context]", "halved"]
    assert TRUNCATED in cut.messages[0].text and "m4" in cut.truncated_ids and cut.fits
    assert "out line 0:" in cut.messages[0].text and "out line 59" not in cut.messages[0].text


def test_plugged_in_gatherers() -> None:
    @GATHERERS.register("test_notes")
    def notes(inp: GatherInput) -> list[Packet]:
        return [Packet(f"Blocked on review of {len(inp.history)} messages", TASK_STATE, source="note")]

    def rag(inp: GatherInput) -> list[Packet]:
        return [Packet("Doc: pool size defaults to 10.", EVIDENCE, source="docs", relevance=0.9)]

    strategy = get_strategy("gssc", gatherers=(*DEFAULT_GATHERERS, "test_notes", rag))
    text = strategy.compress(pool_conversation(), 4000, counter="chars4").messages[0].text
    assert "[State]\n关键进展与未决问题：\nBlocked on review of 42 messages" in text
    assert "[来源: docs]\nDoc: pool size defaults to 10." in text
    assert strategy.spec.to_json().count("test_notes") == 1 and "rag" in strategy.spec.to_json()


def test_a_system_prompt_that_does_not_fit_the_context_falls_back_to_the_pinned_messages() -> None:
    messages = Convo().system("x" * 8000).user("Hi.").assistant("Hello.").user("Bye?").build()
    r = gssc(messages, 2100)  # available 1785 < the 2000-token prompt, the pinned pair fits 2100
    assert r.messages == (messages[0], messages[-1]) and r.fits
    assert r.events[0].payload["fallback"] == "pinned"


def test_timestamps_drive_recency() -> None:
    messages = (Message("system", "S", id="s"), Message("user", "pool size", id="old", timestamp=0.0),
                Message("user", "pool size", id="new", timestamp=7000.0),
                Message("user", "pool size?", id="q", timestamp=7200.0))
    built = get_strategy("gssc_retrieval", max_history_messages=1).pipeline(Request(messages, 2000, CHARS4), 1000)
    (evidence,) = [p for p in built.selected if p.type == EVIDENCE]
    assert evidence.source_ids == ("old",) and evidence.recency == pytest.approx(math.exp(-2))
    assert "old" in gssc(messages, 2000, name="gssc_retrieval", max_history_messages=1).kept_ids


def test_deterministic_and_rebuildable_from_its_spec() -> None:
    messages = pool_conversation()
    strategy = get_strategy("gssc", enable_mmr=True, structurer="minimal")
    first = strategy.compress(messages, 1500, counter="chars4")
    again = strategy.spec.build().compress(messages, 1500, counter="chars4")
    assert first.messages == again.messages and first.events == again.events


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_fits_the_available_tokens_whenever_the_pinned_messages_fit_the_budget(data: st.DataObject) -> None:
    messages = data.draw(conversations())
    budget = data.draw(budgets(CHARS4.count_messages(messages)))
    r = gssc(messages, budget)
    pinned_cost = sum(CHARS4.count_message(messages[i]) for i in pinned(messages))
    assert r.fits or pinned_cost > budget
    if r.events[0].payload["fallback"] is None:
        assert r.tokens_after <= available_tokens(budget, 0.15)
        assert not any(m.role == "tool" for m in r.messages)


def leading_lines_within(section: str, target: int, count) -> str:
    """truncate_section as the seed states it: the header, then lines while the total is under the
    target and the next line fits, then the marker when lines were left out."""
    lines = section.split("\n")
    if len(lines) <= 2:
        return section
    kept, used = [lines[0]], count(lines[0])
    for line in lines[1:]:
        if used >= target or used + count(line) > target:
            break
        kept.append(line)
        used += count(line)
    return "\n".join(kept + ([TRUNCATED] if len(kept) < len(lines) else []))


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.sampled_from(["", "x", "[Task] fix the bug", "a b c d e f", "路径 /src/app.py:12"]),
                      max_size=12), target=st.integers(-1, 40))
def test_truncate_section_keeps_the_leading_lines_within_the_target(lines: list[str], target: int) -> None:
    section = "\n".join(["[Role & Policies]", *lines])
    for count in (get_counter("o200k_base").count, len):
        assert truncate_section(section, target, count) == leading_lines_within(section, target, count)
