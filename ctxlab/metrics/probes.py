"""Probe QA with an LLM judge, in the style of Factory.ai's context-compression evaluation.

Probes ask about what a compression removed. Four kinds, generated deterministically from the
facts of the messages the result does not keep whole (ground truth when the dataset has it,
else auto-extracted facts):

* ``recall``: a sentence that stated a fact, with the fact blanked ("fill in the blank");
* ``artifact``: which files were read or modified (the paths of the removed region);
* ``decision``: what was decided (a decision sentence with its decision blanked);
* ``continuation``: what should happen next (the latest request and next steps).

A model answers each probe from the compressed context (serialized, so any provider takes it)
and a judge model scores the answer 0-5 against the expected facts. Both calls go through the
summarizer's cached, retried client, so a rerun costs nothing. Probes run only when an LLM is
configured (``model=`` or ``CTXLAB_LLM_MODEL``); failures are recorded per probe, never raised.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from ctxlab.messages import Conversation, Message
from ctxlab.metrics.facts import extract_facts, ground_truth
from ctxlab.summarize import prompts
from ctxlab.summarize.cache import CallCache, open_cache
from ctxlab.summarize.client import Endpoint, Retry, complete, configured
from ctxlab.summarize.heuristics import NEXT, sentences
from ctxlab.summarize.serialize import serialize
from ctxlab.summarize.toolcalls import file_operations
from ctxlab.tokens import get_counter

KINDS = ("recall", "artifact", "decision", "continuation")
_BLANK = "____"
_SCORE = re.compile(r"\{.*?\}", re.S)


class Probe(NamedTuple):
    """A question about removed context and the facts a good answer contains."""

    kind: str
    question: str
    expected: tuple[str, ...]


class ProbeResult(NamedTuple):
    """A probe, the model's answer and the judge's 0-5 score (None when a call failed)."""

    kind: str
    question: str
    expected: tuple[str, ...]
    answer: str
    score: float | None
    reason: str
    cost_usd: float | None
    error: str | None


def make_probes(conversation: Conversation, result: Any, *, upto: int | None = None,
                max_probes: int = 8) -> list[Probe]:
    """Probes about the messages of ``conversation.messages[:upto]`` that `result` lost."""
    history = conversation.messages[:upto]
    whole = set(result.input_ids).difference(result.dropped_ids, result.truncated_ids)
    lost = [i for i, m in enumerate(history) if m.id not in whole]
    if not lost:
        return []
    lost_set = set(lost)
    facts = [(f.fact, f.kind, f.message_index) for f in ground_truth(conversation) if f.message_index in lost_set]
    if not facts:
        facts = [(f, "fact", i) for i in lost for f in extract_facts(history[i].text)[:2]]
    probes = _artifact(history, lost, facts) + _continuation(history)
    for fact, kind, index in facts:
        if kind == "path":
            continue
        cloze = _cloze(history[index].text, fact)
        if cloze:
            probe_kind = "decision" if kind == "decision" else "recall"
            question = ("Earlier in this session a decision was made. Fill in the blank: " if probe_kind == "decision"
                        else "Fill in the blank with the exact value from earlier in this session: ")
            probes.append(Probe(probe_kind, question + f'"{cloze}"', (fact,)))
    # Keep every kind represented when trimming: artifact and continuation first, then alternate.
    fixed = [p for p in probes if p.kind in ("artifact", "continuation")]
    rest = [p for p in probes if p.kind not in ("artifact", "continuation")]
    rest = [p for pair in zip(_of(rest, "decision"), _of(rest, "recall"), strict=False) for p in pair] + \
        _tail(_of(rest, "decision"), _of(rest, "recall"))
    return (fixed + rest)[:max_probes]


_RETRY = Retry()


def run_probes(conversation: Conversation, result: Any, *, model: str | None = None,
               judge_model: str | None = None, api_base: str | None = None, api_key: str | None = None,
               cache: CallCache | str | None = None, upto: int | None = None, max_probes: int = 8,
               retry: Retry = _RETRY, tool_output_tokens: int = 4000) -> list[ProbeResult]:
    """Answer and judge the probes of `result`; [] when no LLM is configured or nothing was lost."""
    answerer = Endpoint(model, api_base, api_key).resolve()
    if not configured(answerer):
        return []
    judge = Endpoint(judge_model or answerer.model, api_base, api_key).resolve()
    calls = open_cache(cache)
    context = serialize(result.messages, counter=get_counter("o200k_base"), tool_output_tokens=tool_output_tokens)
    out = []
    for probe in make_probes(conversation, result, upto=upto, max_probes=max_probes):
        question = prompts.PROBE_ANSWER_PROMPT.format(question=probe.question)
        asked = complete([{"role": "system", "content": f"Your working context:\n<context>\n{context}\n</context>"},
                          {"role": "user", "content": question}],
                         endpoint=answerer, prompt_name="probe_answer", prompt_text=prompts.PROBE_ANSWER_PROMPT,
                         params={"temperature": 0.0, "max_tokens": 400}, cache=calls, retry=retry)
        if asked.error:
            out.append(ProbeResult(*probe, "", None, "", asked.cost_usd, asked.error))
            continue
        text = prompts.JUDGE_PROMPT.format(question=probe.question, expected="\n".join(probe.expected),
                                           answer=asked.text)
        judged = complete([{"role": "system", "content": prompts.JUDGE_SYSTEM_PROMPT},
                           {"role": "user", "content": text}],
                          endpoint=judge, prompt_name="probe_judge", prompt_text=prompts.JUDGE_PROMPT,
                          params={"temperature": 0.0, "max_tokens": 200}, cache=calls, retry=retry)
        score, reason, error = _verdict(judged.text) if not judged.error else (None, "", judged.error)
        out.append(ProbeResult(*probe, asked.text, score, reason, _add(asked.cost_usd, judged.cost_usd), error))
    return out


def probe_table(results: Sequence[ProbeResult]) -> Any:
    """Mean score (0-5), probes and failures per kind, as a DataFrame."""
    import pandas as pd

    frame = pd.DataFrame(results, columns=ProbeResult._fields)
    if frame.empty:
        return pd.DataFrame(columns=["kind", "probes", "mean_score", "failed"])
    return (frame.assign(failed=frame["score"].isna())
            .groupby("kind", as_index=False)
            .agg(probes=("question", "size"), mean_score=("score", "mean"), failed=("failed", "sum")))


def _artifact(history: Sequence[Message], lost: list[int], facts: list[tuple[str, str, int]]) -> list[Probe]:
    read, modified = file_operations(history[i] for i in lost)
    paths = list(dict.fromkeys([*modified, *read, *(f for f, kind, _ in facts if kind == "path")]))
    if not paths:
        return []
    return [Probe("artifact", "Which files have been read or modified in this session so far? "
                              "List the exact paths and say which were modified.", tuple(paths[:12]))]


def _continuation(history: Sequence[Message]) -> list[Probe]:
    request = next((m.text for m in reversed(history) if m.role == "user" and m.mark != "summary"), "")
    steps = [s for m in history if m.role == "assistant" for s in sentences(m.text) if NEXT.search(s)]
    expected = tuple(x for x in (request.strip()[:300], *steps[-2:]) if x)
    if not expected:
        return []
    return [Probe("continuation", "What is the current task, and what should be done next to continue it?", expected)]


def _cloze(text: str, fact: str) -> str | None:
    """The sentence of `text` that states `fact`, with the fact blanked (None if not found)."""
    for sentence in sentences(text):
        if fact in sentence and len(sentence) <= 400:
            return sentence.replace(fact, _BLANK)
    return None


def _verdict(text: str) -> tuple[float | None, str, str | None]:
    """Parse the judge's ``{"score", "reason"}`` (first JSON object in the reply, clamped to 0-5)."""
    for match in _SCORE.finditer(text):
        try:
            data = json.loads(match.group())
            score = min(5.0, max(0.0, float(data["score"])))
        except (ValueError, KeyError, TypeError):
            continue
        return score, str(data.get("reason", "")), None
    return None, "", f"unparsable judge reply: {text[:120]!r}"


def _of(probes: list[Probe], kind: str) -> list[Probe]:
    return [p for p in probes if p.kind == kind]


def _tail(a: list[Probe], b: list[Probe]) -> list[Probe]:
    n = min(len(a), len(b))
    return a[n:] + b[n:]


def _add(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b
