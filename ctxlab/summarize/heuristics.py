"""Text heuristics of the extractive summarizer: sentences, cue phrases, error lines, shortening.

Cue phrases cover English, Chinese and Japanese, the languages of the bundled sessions and of
seed 001. Everything is a single regex pass over the text, so extraction stays linear.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

CONSTRAINT = re.compile(
    r"\b(?:must|mustn't|never|always|should(?:n't)?|do not|don't|doesn't need|avoid|only|require[ds]?|"
    r"requirement|ensure|make sure|no more than|at most|at least|keep (?:it|them|the)|"
    r"backwards?[- ]compatible|not allowed|forbidden|prefer)\b"
    r"|必须|不要|不能|不得|务必|禁止|一定要|只能|保持|别|しない|しないで|必ず|てはいけない|ないでください|禁止|のみ",
    re.I)
DECISION = re.compile(
    r"\b(?:decision|decided|decide to|(?:we|i)(?:'ll| will| are going to) (?:use|go with|keep|switch|adopt|"
    r"stick with|replace|move)|let'?s (?:use|go with|keep|switch|stick|do)|going with|opt(?:ed)? for|"
    r"chose|choosing|instead of|rather than|switch(?:ed)? to|settled on|(?:we|you) should use|"
    r"the plan is|approach:)"
    r"|决定|决策|采用|选择|选用|改用|改成|方案|決定|採用|使うことにし|にします|方針", re.I)
PROGRESS = re.compile(
    r"\b(?:done|fixed|added|updated|implemented|created|changed|removed|refactored|renamed|moved|wrote|"
    r"passed|passing|(?:now )?(?:passes|works)|completed?|finished|resolved|verified|confirmed|"
    r"found|root cause|the (?:issue|problem|bug|cause) (?:is|was))\b"
    r"|完成|已经|已修复|修复了|找到|原因是|改好|通过了|しました|完了|修正|見つか", re.I)
NEXT = re.compile(
    r"\b(?:next,? (?:i|we)|next step|then (?:i|we)(?:'ll| will)|i(?:'ll| will) (?:now|next)|todo|"
    r"remaining|still need|left to do|follow[- ]up|after that|once .{3,40} (?:i|we)(?:'ll| will))\b"
    r"|下一步|接下来|然后我|待办|还需要|次に|これから|残り|続いて", re.I)
_ERROR_WORDS = re.compile(
    r"\b(?:error|errors|failed|failure|fail|fatal|exception|panic|traceback|denied|refused|timed out|timing out|"
    r"not found|cannot|can't|could not|unable to|segmentation fault|killed|oom|unhandled|"
    r"undefined|deprecated|warning)\b|错误|失败|异常|报错|超时|エラー|失敗|例外", re.I)
_ERROR_CODES = re.compile(r"\b[A-Z]{1,4}\d{3,5}\b|\bERR_[A-Z0-9_]+|\bE[A-Z]{4,}\b|\bHTTP[/ ]?(?:\d\.\d )?[45]\d\d\b"
                          r"|\b[45]\d\d (?:Internal|Bad|Service|Gateway|Not|Too)|\bexit (?:code|status):? *[1-9]\d*"
                          r"|\b[A-Z][A-Za-z]*(?:Error|Exception)\b|\bCVE-\d{4}-\d+")
_NOT_ERROR = re.compile(r"\b(?:0|no) (?:errors?|failures?|failed|warnings?)\b|exit (?:code|status):? *0\b"
                        r"|\b(?:errors?|failures?|failed|invalid|warnings?):? *0\b", re.I)
_FAILED = re.compile(r"\b[1-9]\d* (?:failed|errors?|failures?)\b|\b(?:failed|errors?|failures?):? *[1-9]", re.I)
_CODE_LINE = re.compile(r"^\s*(?:raise|except|throw|catch|def|class|import|from|return|if|elif|else|try|"
                        r"finally|func|fn|pub|let|const|var|case|assert|expect|log(?:ger)?\.\w+)\b|^\s*(?://|#|/?\*)")
_TEST_SUMMARY = re.compile(r"\b\d+ (?:passed|failed|errors?|skipped|tests?)\b|Tests?:\s+\d+", re.I)
CONCRETE = re.compile(
    r"https?://\S+|(?:[\w.-]+/)+[\w.-]+|\b[\w-]+\.(?:py|ts|tsx|js|go|rs|java|rb|json|ya?ml|toml|md|sql|sh|"
    r"ini|cfg|env|lock|txt|html|css)\b|`[^`\n]+`|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b|\b[a-z]+(?:[A-Z]\w+)+\b"
    r"|\b[A-Za-z]+(?:_[A-Za-z0-9]+)+\b|\b[A-Z]{1,4}\d{3,5}\b|\bERR_\w+|\b\w+\(\)"
    r"|\d[\d,]*(?:\.\d+)*\s?(?:[A-Za-z%]{1,12}\b|[\u3040-\u30ff\u4e00-\u9fff])")
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(\[*\u3040-\u30ff\u3400-\u9fff])|(?<=[。！？；])")
_BULLET = re.compile(r"^\s*(?:[-*+•>]\s+|\d+[.)]\s+|#+\s+)")
_CUT = re.compile(r"[\s，。；、,;]")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def code(text: str) -> str:
    """The fenced code blocks of `text` (a pasted log or traceback), joined."""
    return "\n".join(_FENCE.findall(text)) if "```" in text else ""


def failed(summary: str) -> bool:
    """Whether a test-runner summary line reports failures or errors."""
    return bool(_FAILED.search(summary))


def prose(text: str) -> str:
    """`text` without fenced code blocks (code is summarized through its tool calls and errors)."""
    return _FENCE.sub(" ", text) if "```" in text else text


def sentences(text: str) -> Iterator[str]:
    """Sentences of prose, line by line, list bullets and headers stripped."""
    for line in text.splitlines():
        line = _BULLET.sub("", line).strip()
        if line:
            yield from (s.strip() for s in _SENTENCE_END.split(line) if s.strip())


def concreteness(text: str) -> int:
    """How many concrete details (paths, identifiers, codes, numbers with units...) a text has."""
    return len(CONCRETE.findall(text))


def shorten(text: str, limit: int) -> str:
    """`text` cut to about `limit` characters at a word or CJK punctuation boundary, never inside a
    path or identifier (a single over-long token is kept whole)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    head = text[:limit]
    cut = max((m.start() for m in _CUT.finditer(head)), default=-1)
    if cut >= limit // 2:
        return head[:cut].rstrip("，、,;； ") + " …"
    if _CJK.match(text[limit - 1]):
        return head + " …"
    nxt = _CUT.search(text, limit)
    return text if nxt is None else text[:nxt.start()] + " …"


def lead(text: str, limit: int) -> str:
    """The whole text when short, else its leading sentences up to `limit` characters."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    out = ""
    for sentence in sentences(text):
        if out and len(out) + len(sentence) + 1 > limit:
            break
        out = f"{out} {sentence}".strip()
    return shorten(out or flat, limit)


def error_lines(text: str, limit: int = 3) -> list[tuple[str, float]]:
    """The most telling error lines of a tool output with a score: a traceback's final exception
    line, lines with error codes or error words; test summaries with failures."""
    lines = text.splitlines()
    found: dict[str, float] = {}
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or _CODE_LINE.match(line) or _NOT_ERROR.search(stripped) and not _ERROR_CODES.search(stripped):
            continue
        score = 0.0
        if stripped.startswith("Traceback (most recent call last)"):
            stripped, score = _traceback_end(lines, i), 2.0
        codes = len(_ERROR_CODES.findall(stripped))
        words = bool(_ERROR_WORDS.search(stripped))
        if codes or words or score:
            found.setdefault(stripped, score + codes + 0.5 * words + 0.5 * bool(_TEST_SUMMARY.search(stripped)))
    ranked = sorted(found.items(), key=lambda kv: -kv[1])[:limit]
    return sorted(ranked, key=lambda kv: _lines_index(lines, kv[0]))


def runner_summary(text: str) -> str | None:
    """The last test-runner summary line of a tool output ("3 passed, 1 failed in 2.1s")."""
    for line in reversed(text.splitlines()):
        if _TEST_SUMMARY.search(line):
            return line.strip(" =")
    return None


def _lines_index(lines: list[str], needle: str) -> int:
    return next((i for i, line in enumerate(lines) if needle in line), len(lines))


def _traceback_end(lines: list[str], start: int) -> str:
    """The exception line closing a Python traceback (first unindented line after its frames)."""
    for line in lines[start + 1:]:
        if line.strip() and not line.startswith((" ", "\t")):
            return line.strip()
    return lines[start].strip()
