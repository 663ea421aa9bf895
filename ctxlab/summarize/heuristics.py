"""Text heuristics of the extractive summarizer: sentences, cue phrases, error lines, shortening.

Cue phrases cover English, Chinese and Japanese, the languages of the bundled sessions and of
seed 001. Extraction stays linear: each regex runs at most once over each line or sentence, and
most never run at all, because a literal pre-check comes first (see "Needles" below).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache, partial
from itertools import accumulate
from typing import NamedTuple

from ctxlab import caches

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
_ERROR_WORD_LIST = ("error", "errors", "failed", "failure", "fail", "fatal", "exception", "panic", "traceback",
                    "denied", "refused", "timed out", "timing out", "not found", "cannot", "can't", "could not",
                    "unable to", "segmentation fault", "killed", "oom", "unhandled", "undefined", "deprecated",
                    "warning")
_ERROR_WORD_CJK = ("错误", "失败", "异常", "报错", "超时", "エラー", "失敗", "例外")
_ERROR_WORDS = re.compile(rf"\b(?:{'|'.join(_ERROR_WORD_LIST)})\b|{'|'.join(_ERROR_WORD_CJK)}", re.I)
_ERROR_CODES = re.compile(r"\b[A-Z]{1,4}\d{3,5}\b|\bERR_[A-Z0-9_]+|\bE[A-Z]{4,}\b|\bHTTP[/ ]?(?:\d\.\d )?[45]\d\d\b"
                          r"|\b[45]\d\d (?:Internal|Bad|Service|Gateway|Not|Too)|\bexit (?:code|status):? *[1-9]\d*"
                          r"|\b[A-Z][A-Za-z]*(?:Error|Exception)\b|\bCVE-\d{4}-\d+")
_NOT_ERROR = re.compile(r"\b(?:0|no) (?:errors?|failures?|failed|warnings?)\b|exit (?:code|status):? *0\b"
                        r"|\b(?:errors?|failures?|failed|invalid|warnings?):? *0\b", re.I)
_FAILED = re.compile(r"\b[1-9]\d* (?:failed|errors?|failures?)\b|\b(?:failed|errors?|failures?):? *[1-9]", re.I)
_CODE_LINE = re.compile(r"^\s*(?:raise|except|throw|catch|def|class|import|from|return|if|elif|else|try|"
                        r"finally|func|fn|pub|let|const|var|case|assert|expect|log(?:ger)?\.\w+)\b|^\s*(?://|#|/?\*)")
_TEST_SUMMARY = re.compile(r"\b\d+ (?:passed|failed|errors?|skipped|tests?)\b|Tests?:\s+\d+", re.I)
_URLS_AND_PATHS = r"https?://\S+|(?:[\w.-]+/)+[\w.-]+"
# One `\b` ahead of the identifier alternatives instead of one each: the same matches, tried faster.
_OTHER_DETAILS = (
    r"\b[\w-]+\.(?:py|ts|tsx|js|go|rs|java|rb|json|ya?ml|toml|md|sql|sh|ini|cfg|env|lock|txt|html|css)\b|`[^`\n]+`"
    r"|\b(?:[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b|[a-z]+(?:[A-Z]\w+)+\b|[A-Za-z]+(?:_[A-Za-z0-9]+)+\b"
    r"|[A-Z]{1,4}\d{3,5}\b|ERR_\w+|\w+\(\))"
    r"|\d[\d,]*(?:\.\d+)*\s?(?:[A-Za-z%]{1,12}\b|[\u3040-\u30ff\u4e00-\u9fff])")
CONCRETE = re.compile(f"{_URLS_AND_PATHS}|{_OTHER_DETAILS}")
# In a text without "/" no URL or path matches anywhere, so leaving them out changes no match,
# and spares trying them at every character of every word.
_CONCRETE_WITHOUT_SLASH = re.compile(_OTHER_DETAILS)
# `details` lists what CONCRETE counts, but keeps an absolute path's leading "/" and a number's unit
# only on the number's line (a count followed by a line break and a word is no "3 rows").
# Both open with a lookahead on the characters a match can start with (it changes no match, and lets
# `re` skip the others at once: a fifth less time over long tool outputs).
_DETAILS = re.compile(r"(?=[\w./`-])(?:https?://\S+|/?(?:[\w.-]+/)+[\w.-]+|"
                      + _OTHER_DETAILS.replace(r"\s?", r"[ \t]?") + ")")
_DETAILS_WITHOUT_SLASH = re.compile(r"(?=[\w`-])(?:" + _OTHER_DETAILS.replace(r"\s?", r"[ \t]?") + ")")
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(\[*\u3040-\u30ff\u3400-\u9fff])|(?<=[。！？；])")
_BULLET = re.compile(r"^\s*(?:[-*+•>]\s+|\d+[.)]\s+|#+\s+)")
_CUT = re.compile(r"[\s，。；、,;]")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")

# Needles. The regexes above have no literal prefix for the regex engine to skip ahead with
# (case-insensitive alternations behind `\b`), so they try a match at every character, while
# `str.find` runs through text many times faster. So a regex runs only where one of its needles
# is: literals (or cheap regexes) one of which every match holds; a re.I regex's needles are
# lowercase and looked up in `folded` text. Most lines of a long log and most sentences hold none.
_CUE_NEEDLES = {
    CONSTRAINT: ("must", "never", "always", "should", "do not", "don't", "doesn't need", "avoid", "only", "require",
                 "ensure", "make sure", "no more than", "at most", "at least", "keep it", "keep the", "compatible",
                 "not allowed", "forbidden", "prefer", "必须", "不要", "不能", "不得", "务必", "禁止", "一定要", "只能",
                 "保持", "别", "しない", "必ず", "てはいけない", "ないでください", "のみ"),
    DECISION: ("decision", "decide", "'ll ", " will ", " are going to ", "let's ", "lets ", "going with", "opt for",
               "opted for", "chose", "choosing", "instead of", "rather than", "switch to", "switched to", "settled on",
               "should use", "the plan is", "approach:", "决定", "决策", "采用", "选择", "选用", "改用", "改成", "方案",
               "決定", "採用", "使うことにし", "にします", "方針"),
    PROGRESS: ("done", "fixed", "added", "updated", "implemented", "created", "changed", "removed", "refactored",
               "renamed", "moved", "wrote", "passed", "passing", "passes", "works", "complete", "finished",
               "resolved", "verified", "confirmed", "found", "root cause", "the issue ", "the problem ", "the bug ",
               "the cause ", "完成", "已经", "已修复", "修复了", "找到", "原因是", "改好", "通过了", "しました", "完了",
               "修正", "見つか"),
    NEXT: ("next", "then i", "then we", "'ll now", " will now", "todo", "remaining", "still need", "left to do",
           "follow", "after that", "once ", "下一步", "接下来", "然后我", "待办", "还需要", "次に", "これから", "残り",
           "続いて"),
}
# The words themselves, less those holding another ("errors" holds "error"). "traceback" also
# finds a traceback's start, "error" and "exception" _ERROR_CODES' "KeyError", "IOException".
_ERROR_WORD_NEEDLES = tuple(w for w in _ERROR_WORD_LIST + _ERROR_WORD_CJK
                            if not any(other in w for other in _ERROR_WORD_LIST if other != w))
# Every other match of _ERROR_CODES (case-sensitive) holds one of these.
_ERROR_CODE_NEEDLES = ("ERR_", "HTTP", "CVE-", "exit ", re.compile(r"E[A-Z]{4}"),
                       re.compile(r"[A-Z45]\d\d(?:(?<=[A-Z]\d\d)\d| [BGINST])"))  # "X123" or "5xx B…": one scan
_SUMMARY_NEEDLES = ("passed", "failed", "error", "skipped", "test")
# The only non-ASCII characters re.I matches to an ASCII letter (and "İ" lowercases to two characters).
_REGEX_CASE_FOLD_CHARS = "\u0130\u0131\u017f\u212a"
_REGEX_CASE_FOLDS = str.maketrans(_REGEX_CASE_FOLD_CHARS, "iisk")


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
    return len((CONCRETE if "/" in text else _CONCRETE_WITHOUT_SLASH).findall(text))


def details(text: str) -> tuple[str, ...]:
    """The concrete details of `text` (paths, URLs, identifiers, error codes, numbers with units,
    backticked spans), in order of first occurrence, deduplicated, trailing punctuation stripped.

    What a reader needs to find the thing again (a file, a symbol, an error): the trail a cleared
    tool output or a summary keeps when the text itself goes.
    """
    return _details(text)


@caches.per_conversation
# Per-turn replays digest the same tool output at every compaction, and a tuner every setting's.
@lru_cache(maxsize=16384)
def _details(text: str) -> tuple[str, ...]:
    return _kept(_found(text))


def details_between(text: str, start: int, end: int) -> tuple[str, ...]:
    """``details(text[start:end])``, without rescanning the whole span: a cut that tries many
    spans of one text (`ctxlab.strategies.mechanics.trail.shrink`) finds its details once.

    No detail holds a line break, and a line break is a non-word character, as a text's start and
    end are: so the details of a span are those of its first and last (partial) lines, scanned
    anew, around those of the whole lines between, read from the whole text's scan.
    """
    first_end = text.find("\n", start, end)
    if first_end < 0:
        return details(text[start:end])
    last_start = text.rfind("\n", start, end) + 1
    scanned = _scanned(text)
    lo, hi = bisect_left(scanned.starts, first_end), bisect_left(scanned.starts, last_start)
    return tuple(dict.fromkeys((*_kept(_found(text[start:first_end])), *scanned.kept[lo:hi],
                                *_kept(_found(text[last_start:end])))))


class _Scanned(NamedTuple):
    """The details of a whole text before deduplication, cleaned, the too short left out, and
    where each starts."""

    starts: tuple[int, ...]
    kept: tuple[str, ...]


@caches.per_conversation
# The text a binary search cuts again and again; a tuner's settings shrink the same outputs again
# (64 texts held a tenth of `learned`'s distinct ones: 564 scans for 7,340 cuts over five settings).
@lru_cache(maxsize=1024)
def _scanned(text: str) -> _Scanned:
    found = [(m.start(), _clean(m.group())) for m in _pattern(text).finditer(text)]
    found = [(at, d) for at, d in found if len(d) >= 2]
    return _Scanned(tuple(at for at, _ in found), tuple(d for _, d in found))


def _pattern(text: str) -> re.Pattern[str]:
    return _DETAILS if "/" in text else _DETAILS_WITHOUT_SLASH


def _found(text: str) -> list[str]:
    return _pattern(text).findall(text)


def _clean(detail: str) -> str:
    return detail if detail.endswith("()") else detail.rstrip(".,;:!?'\")]")


def _kept(found: Iterable[str]) -> tuple[str, ...]:
    """Details cleaned of trailing punctuation, the too short left out, first occurrences kept."""
    return tuple(dict.fromkeys(d for d in map(_clean, found) if len(d) >= 2))


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
    return _top_error_lines(_indexed(text).lines, sorted(_maybe_error_lines(text)), limit)


def runner_summary(text: str) -> str | None:
    """The last test-runner summary line of a tool output ("3 passed, 1 failed in 2.1s")."""
    return _last_summary_line(_indexed(text).lines, sorted(_maybe_summary_lines(text), reverse=True))


def holds(cue: re.Pattern[str], text: str) -> bool:
    """Whether `text` holds a match of `cue` (CONSTRAINT, DECISION, PROGRESS or NEXT): `cue.search`,
    skipped where none of the cue's needles is."""
    low = folded(text)
    for needle in _CUE_NEEDLES[cue]:
        if needle in low:
            return cue.search(text) is not None
    return False


def folded(text: str) -> str:
    """`text` lowercased so that a lowercase literal is in it at every offset where a re.I regex
    can match that literal in `text` (`str.lower` alone misses "ſ" for "s", "ı" for "i"...)."""
    if not text.isascii() and any(c in text for c in _REGEX_CASE_FOLD_CHARS):
        text = text.translate(_REGEX_CASE_FOLDS)
    return text.lower()


def _maybe_error_lines(text: str) -> set[int]:
    """Indices of the lines of `text` that may hold an error word, an error code or a traceback start."""
    _, starts, low = _indexed(text)
    return _lines_holding(starts, low, _ERROR_WORD_NEEDLES) | _lines_holding(starts, text, _ERROR_CODE_NEEDLES)


def _maybe_summary_lines(text: str) -> set[int]:
    """Indices of the lines of `text` that may hold a test-runner summary."""
    _, starts, low = _indexed(text)
    return _lines_holding(starts, low, _SUMMARY_NEEDLES)


def _top_error_lines(lines: Sequence[str], indices: Iterable[int], limit: int) -> list[tuple[str, float]]:
    """`error_lines` reading only the lines at `indices` (ascending): the same result as reading
    them all when the others hold no error word, error code or traceback start."""
    found: dict[str, float] = {}
    for i in indices:
        line = lines[i]
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


def _last_summary_line(lines: Sequence[str], indices: Iterable[int]) -> str | None:
    """`runner_summary` reading only the lines at `indices` (descending), which must include
    every line holding a summary."""
    for i in indices:
        if _TEST_SUMMARY.search(lines[i]):
            return lines[i].strip(" =")
    return None


class _Indexed(NamedTuple):
    """A text's lines (as `str.splitlines` cuts them), the offsets they start at (the text's
    length last), and the text folded."""

    lines: tuple[str, ...]
    starts: tuple[int, ...]
    folded: str


@caches.per_conversation
@lru_cache(maxsize=2)  # error_lines and runner_summary read the same tool output in turn
def _indexed(text: str) -> _Indexed:
    starts = tuple(accumulate(map(len, text.splitlines(keepends=True)), initial=0))
    return _Indexed(tuple(text.splitlines()), starts, folded(text))


def _lines_holding(starts: Sequence[int], haystack: str, needles: Iterable[str | re.Pattern[str]]) -> set[int]:
    """Indices of the lines (starting at `starts`) of `haystack` that hold a needle (a literal,
    or a regex's match); after each hit the search goes on at the next line."""
    found: set[int] = set()
    for needle in needles:
        find: Callable[[int], int] = (partial(haystack.find, needle) if isinstance(needle, str)
                                      else partial(_match_start, haystack, needle))
        at = find(0)
        while at >= 0:
            line = bisect_right(starts, at) - 1
            found.add(line)
            at = find(starts[line + 1])
    return found


def _match_start(haystack: str, pattern: re.Pattern[str], offset: int) -> int:
    """Like `str.find`, for a regex."""
    match = pattern.search(haystack, offset)
    return match.start() if match else -1


def _lines_index(lines: Sequence[str], needle: str) -> int:
    return next((i for i, line in enumerate(lines) if needle in line), len(lines))


def _traceback_end(lines: Sequence[str], start: int) -> str:
    """The exception line closing a Python traceback (first unindented line after its frames)."""
    for line in lines[start + 1:]:
        if line.strip() and not line.startswith((" ", "\t")):
            return line.strip()
    return lines[start].strip()
