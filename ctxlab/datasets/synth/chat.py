"""Ordinary multi-turn assistant chats (no tools) in English, Chinese, Japanese and Korean."""

from __future__ import annotations

import random

from .chat_cjk import GENERIC_CJK, SYSTEMS_CJK, TOPICS_JA, TOPICS_KO, TOPICS_ZH
from .chat_en import GENERIC_EN, SYSTEMS_EN, TOPICS_EN
from .chat_slots import HANDLES, chat_slots
from .util import pick, record_rng, render, rint, schedule

# 13/20 English, 4/20 Chinese, 2/20 Japanese, 1/20 Korean (see util.schedule).
CHAT_LANGS = ("en",) * 13 + ("zh",) * 4 + ("ja",) * 2 + ("ko",)
_TOPICS = {"en": TOPICS_EN, "zh": TOPICS_ZH, "ja": TOPICS_JA, "ko": TOPICS_KO}
_SYSTEMS = {"en": SYSTEMS_EN, **SYSTEMS_CJK}
_GENERIC = {"en": GENERIC_EN, **GENERIC_CJK}
# Said by the user when a long chat moves on to another scenario.
_SWITCH = {"en": ("Different question: ", "Something else: ", "Switching topics: "), "zh": ("换个话题：", "另外想问一下："),
           "ja": ("話は変わりますが、", "別件ですが、"), "ko": ("다른 질문인데요, ",)}
MAX_MESSAGES = 40


def _exchanges(rng: random.Random, lang: str, want: int) -> tuple[list[tuple[str, str, dict]], str]:
    """Plan ``want`` (user, assistant, slots) exchanges; returns them and the first topic.

    A chat opens with a scenario's question and answer, walks through its
    follow-ups in random order, and moves to another scenario when it runs out,
    so long chats wander between subjects the way real ones do.
    """
    topics = _TOPICS[lang]
    keys = list(topics)
    rng.shuffle(keys)
    persona = chat_slots(rng)
    plan: list[tuple[str, str, dict]] = []
    for number, key in enumerate(keys):
        scenario = topics[key]
        # Fresh numbers and places per scenario; the user keeps their own name.
        slots = dict(chat_slots(rng), name=persona["name"]) if number else persona
        prefix = pick(rng, _SWITCH[lang]) if number else ""
        plan.append((prefix + pick(rng, scenario["open"]), scenario["answer"], slots))
        pairs = list(scenario["pairs"])
        rng.shuffle(pairs)
        plan.extend((q, a, slots) for q, a in pairs[: rint(rng, 1, len(pairs))])
        if rng.random() < 0.5:
            plan.append((*pick(rng, _GENERIC[lang]), slots))
        if len(plan) >= want:
            break
    return plan[:want], keys[0].split("-")[0]


def _as_parts(text: str) -> list[dict]:
    """Split a user message into OpenAI text parts at paragraph breaks."""
    return [{"type": "text", "text": chunk} for chunk in text.split("\n\n") if chunk]


def build_chat_record(seed: int, index: int) -> dict:
    """Build chat ``index`` of the dataset with ``seed``.

    Returns:
        ``{"id", "messages", "meta"}``; ``meta.facts`` lists names, numbers, places
        and dates stated in the chat, each verbatim in the message given by
        ``meta.facts_detail[i].message_index``.
    """
    rng = record_rng(seed, "chat", index)
    lang = schedule(CHAT_LANGS, index, seed)
    with_system = rng.random() < 0.5
    total = max(2, min(MAX_MESSAGES - with_system, int(rng.triangular(2, MAX_MESSAGES, 6))))
    plan, topic = _exchanges(rng, lang, max(1, total // 2))
    handle = pick(rng, HANDLES) if rng.random() < 0.1 else None
    parts_at = 0 if rng.random() < 0.1 else -1  # which user turn (if any) is sent as content parts

    messages: list[dict] = []
    if with_system:
        messages.append({"role": "system", "content": pick(rng, _SYSTEMS[lang])})
    facts: dict[str, dict] = {}
    for turn, (question, answer, slots) in enumerate(plan):
        for role, template in (("user", question), ("assistant", answer)):
            text, found = render(template, slots)
            message: dict = {"role": role, "content": _as_parts(text) if role == "user" and turn == parts_at else text}
            if role == "user" and handle:
                message["name"] = handle
            messages.append(message)
            for fact, kind in found:
                facts.setdefault(fact, {"fact": fact, "kind": kind, "message_index": len(messages) - 1})
    detail = list(facts.values())
    return {
        "id": f"chat-{index + 1:04d}",
        "messages": messages,
        "meta": {"kind": "chat", "language": lang, "topic": topic, "facts": [d["fact"] for d in detail],
                 "facts_detail": detail},
    }
