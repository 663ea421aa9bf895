"""Structure: the seed's three structurers, registered in `STRUCTURERS`. Section headers and the Chinese lead-ins are the seed's
own text, kept verbatim so that token counts match the system being replayed."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from ctxlab.registry import Registry
from ctxlab.strategies.seeds.gssc.packets import (
    CUSTOM,
    EVIDENCE,
    HISTORY,
    INSTRUCTIONS,
    TASK,
    TASK_STATE,
    Packet,
)

ROLE = "[Role & Policies]"
TASK_HEADER = "[Task]"
STATE = "[State]"
EVIDENCE_HEADER = "[Evidence]"
CONTEXT = "[Context]"
OUTPUT = "[Output]"
HEADERS = (ROLE, TASK_HEADER, STATE, EVIDENCE_HEADER, CONTEXT, OUTPUT)

TASK_LEAD = "用户问题："  # "User question:"
STATE_LEAD = "关键进展与未决问题："  # "Key progress and open questions:"
EVIDENCE_LEAD = "事实与引用："  # "Facts and citations:"
SOURCE_LABEL = "[来源: {source}]"  # "[Source: ...]"
CONTEXT_LEAD = "对话历史与背景："  # "Conversation history and background:"
# "Answer in this format: 1. conclusion (concise, clear) 2. grounds (supporting evidence and its
# sources) 3. risks and assumptions (if any) 4. suggested next steps (where applicable)"
DEFAULT_OUTPUT = ("请按以下格式回答：\n1. 结论（简洁明确）\n2. 依据（列出支撑证据及来源）\n"
                  "3. 风险与假设（如有）\n4. 下一步行动建议（如适用）")

PLACEHOLDERS = ("{{instructions}}", "{{task}}", "{{task_state}}", "{{state}}", "{{evidence}}",
                "{{history}}", "{{custom}}", "{{output}}")
_PLACEHOLDER = re.compile(r"\{\{\w+\}\}")


def _of(packets: Sequence[Packet], kind: str) -> list[Packet]:
    return [p for p in packets if p.type == kind]


def sectioned(packets: Sequence[Packet], query: str, output_template: str = "") -> list[tuple[str, str]]:
    """The seed's DefaultStructurer as ``(header, section text)`` pairs, in template order.

    Custom (P4) packets, which the seed's default template has no place for, join [Context].
    """
    sections = []
    if instructions := _of(packets, INSTRUCTIONS):
        sections.append((ROLE, f"{ROLE}\n" + "\n".join(p.content for p in instructions)))
    if _of(packets, TASK) or query:
        sections.append((TASK_HEADER, f"{TASK_HEADER}\n{TASK_LEAD}{query}"))
    if state := _of(packets, TASK_STATE):
        sections.append((STATE, f"{STATE}\n{STATE_LEAD}\n" + "".join(p.content + "\n" for p in state)))
    if evidence := sorted(_of(packets, EVIDENCE), key=lambda p: -p.relevance):
        body = "".join(f"\n{SOURCE_LABEL.format(source=p.source or 'unknown')}\n{p.content}\n" for p in evidence)
        sections.append((EVIDENCE_HEADER, f"{EVIDENCE_HEADER}\n{EVIDENCE_LEAD}\n{body}"))
    if context := _of(packets, HISTORY) + _of(packets, CUSTOM):
        sections.append((CONTEXT, f"{CONTEXT}\n{CONTEXT_LEAD}\n" + "".join(_line_end(p.content) for p in context)))
    sections.append((OUTPUT, f"{OUTPUT}\n{output_template or DEFAULT_OUTPUT}"))
    return sections


def minimal(packets: Sequence[Packet], query: str) -> str:
    """The seed's MinimalStructurer: contents by priority then composite score, no headers."""
    if not packets:
        return query
    ordered = sorted(packets, key=lambda p: (p.priority, -p.composite))
    return "\n\n".join(p.content for p in ordered if p.content)


def custom(packets: Sequence[Packet], query: str, template: str, output_template: str = "") -> str:
    """The seed's CustomStructurer: fill ``{{instructions}}``, ``{{task}}``, ``{{task_state}}`` (alias
    ``{{state}}``), ``{{evidence}}``, ``{{history}}``, ``{{custom}}`` and ``{{output}}``; an empty
    template falls back to the minimal structurer, as in the seed."""
    if not template:
        return minimal(packets, query)
    state = _join(_of(packets, TASK_STATE))
    values = {"{{instructions}}": _join(_of(packets, INSTRUCTIONS)), "{{task}}": query,
              "{{task_state}}": state, "{{state}}": state, "{{evidence}}": _join(_of(packets, EVIDENCE)),
              "{{history}}": _join(_of(packets, HISTORY)), "{{custom}}": _join(_of(packets, CUSTOM)),
              "{{output}}": output_template or DEFAULT_OUTPUT}
    # One pass, so a placeholder spelled inside a packet's content is left alone.
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(0), m.group(0)), template)


def render_sections(sections: Sequence[tuple[str, str]]) -> str:
    """Sections joined by blank lines (the seed's ``strings.Join(sections, "\\n\\n")``)."""
    return "\n\n".join(text for _, text in sections if text)


def _join(packets: Sequence[Packet]) -> str:
    return "\n".join(p.content for p in packets if p.content)


def _line_end(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


class Layout(NamedTuple):
    """A structured context: its text, and its sections when the compressor should not re-parse them
    (``[]``: the minimal layout has none, so it is cut by lines; None: parse the custom template's)."""

    text: str
    sections: list[tuple[str, str]] | None


# A structurer: (selected packets, query, template, output template) -> Layout.
Structurer = Callable[[Sequence[Packet], str, str, str], Layout]
STRUCTURERS: Registry[Structurer] = Registry("gssc structurer")


@STRUCTURERS.register("sectioned")
def _sectioned(packets: Sequence[Packet], query: str, template: str, output_template: str) -> Layout:
    sections = sectioned(packets, query, output_template)
    return Layout(render_sections(sections), sections)


@STRUCTURERS.register("minimal")
def _minimal(packets: Sequence[Packet], query: str, template: str, output_template: str) -> Layout:
    return Layout(minimal(packets, query), [])


@STRUCTURERS.register("custom")
def _custom(packets: Sequence[Packet], query: str, template: str, output_template: str) -> Layout:
    return Layout(custom(packets, query, template, output_template), None)
