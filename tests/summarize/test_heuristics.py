"""The extractive summarizer's text heuristics: the literal pre-checks ("needles") that spare
regex scans never change a result. Each fast path is compared with the straightforward one:
every line (or sentence) read by the regex itself."""

from __future__ import annotations

import re
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxlab.summarize import heuristics as h

# CONCRETE as it was written before its URL and path alternatives could be left out.
ORIGINAL_CONCRETE = re.compile(
    r"https?://\S+|(?:[\w.-]+/)+[\w.-]+|\b[\w-]+\.(?:py|ts|tsx|js|go|rs|java|rb|json|ya?ml|toml|md|sql|sh|"
    r"ini|cfg|env|lock|txt|html|css)\b|`[^`\n]+`|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b|\b[a-z]+(?:[A-Z]\w+)+\b"
    r"|\b[A-Za-z]+(?:_[A-Za-z0-9]+)+\b|\b[A-Z]{1,4}\d{3,5}\b|\bERR_\w+|\b\w+\(\)"
    r"|\d[\d,]*(?:\.\d+)*\s?(?:[A-Za-z%]{1,12}\b|[\u3040-\u30ff\u4e00-\u9fff])")
CUES = (h.CONSTRAINT, h.DECISION, h.PROGRESS, h.NEXT)
# Pieces that sit right at the edges of the regexes and the pre-checks: the characters re.I
# matches to ASCII letters ("faıled" is "failed" to the regex, not to `str.lower`), every line
# boundary `str.splitlines` knows, "0 errors", exit codes, tracebacks, CJK and Japanese.
TOKENS = (
    "error", "Error", "ERRORS", "fail", "FAILED", "faıled", "FAİL", "ſkipped", "teſts:", "\u212aILLED", "errorſ",
    "oom", "timed out", "not found", "can't", "cannot", "warning", "Traceback (most recent call last):",
    "KeyError: 'k'", "IOException", "ValueErrorX", "0 errors", "no failures", "errors: 0", "exit code 0",
    "exit code: 2", "exit status 137", "HTTP/1.1 503", "HTTP 404", "502 Bad Gateway", "4096 B", "E1234",
    "AB12345", "EACCES", "ERR_X", "CVE-2021-44228", "3 passed", "1 failed", "Tests:  5", "12 tests", "passed",
    "错误", "失败", "エラー", "例外", "必须", "不要", "决定", "采用", "完成", "下一步", "次に", "しました",
    "must", "don't", "keep the", "we'll use", "I will keep", "let's do", "instead of", "decided", "fixed",
    "the bug was", "root cause", "Next, I", "then we'll", "I'll now", "once the build is green we will",
    "src/app.py", "https://x.io/a", "a/b", "getUserName", "CamelCase", "snake_case", "f()", "`x`",
    "5 MB", "3个", "5个文件/目录", "1,024.5ms", "٣٤٥ ms",
    " ", "  ", "\t", ".", ":", ",", "!", "?", "。", "-", "#", "def ", "raise ", "    ", "```",
    "\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029",
)
texts = st.lists(st.one_of(st.sampled_from(TOKENS), st.text(max_size=8)), max_size=40).map("".join)
PROPERTY = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def every_line_error_lines(text: str, limit: int = 3) -> list[tuple[str, float]]:
    lines = text.splitlines()
    return h._top_error_lines(lines, range(len(lines)), limit)


def every_line_runner_summary(text: str) -> str | None:
    lines = text.splitlines()
    return h._last_summary_line(lines, reversed(range(len(lines))))


@PROPERTY
@given(text=texts, limit=st.integers(1, 4))
def test_error_lines_and_runner_summary_are_those_of_every_line(text: str, limit: int) -> None:
    assert h.error_lines(text, limit) == every_line_error_lines(text, limit)
    assert h.runner_summary(text) == every_line_runner_summary(text)


@PROPERTY
@given(text=texts)
def test_the_candidate_lines_hold_every_line_a_regex_matches(text: str) -> None:
    lines = text.splitlines()
    errors, summaries = h._maybe_error_lines(text), h._maybe_summary_lines(text)
    for i, line in enumerate(lines):
        if h._ERROR_WORDS.search(line) or h._ERROR_CODES.search(line) or "Traceback (most" in line:
            assert i in errors, line
        if h._TEST_SUMMARY.search(line):
            assert i in summaries, line


@PROPERTY
@given(text=st.one_of(texts, *(st.from_regex(cue) for cue in CUES)))
def test_cues_hold_exactly_where_their_regex_matches(text: str) -> None:
    for cue in CUES:
        assert h.holds(cue, text) == bool(cue.search(text))


@PROPERTY
@given(text=st.one_of(texts, st.from_regex(ORIGINAL_CONCRETE)))
def test_concreteness_counts_what_the_original_regex_counted(text: str) -> None:
    assert h.concreteness(text) == len(ORIGINAL_CONCRETE.findall(text))
    assert h.CONCRETE.findall(text) == ORIGINAL_CONCRETE.findall(text)


@PROPERTY
@given(match=st.one_of(st.from_regex(h._ERROR_WORDS), st.from_regex(h._ERROR_CODES),
                       st.from_regex(h._TEST_SUMMARY)))
def test_regex_generated_matches_are_never_skipped(match: str) -> None:
    assert h.error_lines(match) == every_line_error_lines(match)
    assert h.runner_summary(match) == every_line_runner_summary(match)


def test_folding_keeps_offsets_and_finds_every_letter_re_i_matches() -> None:
    letters = re.compile("[a-z]", re.I)
    for c in map(chr, range(0x110000)):
        low = h.folded(c)
        assert len(low) == 1
        if letters.fullmatch(c):  # ASCII letters and the four others re.I takes for them
            assert low in string.ascii_lowercase and re.fullmatch(low, c, re.I), hex(ord(c))


def test_hand_built_edge_cases() -> None:
    log = "\n".join(["collected 3 items"] + [f"INFO step {i} ok" for i in range(500)] + [
        "Traceback (most recent call last):", '  File "a.py", line 1', "SystemExit: 3",
        "0 errors", "exit code 0", "faıled to connect", "ERROR: \u212aILLED by oom", "== 1 failed, 2 passed in 1s =="])
    assert h.error_lines(log, 4) == every_line_error_lines(log, 4) == [
        ("SystemExit: 3", 2.0), ("faıled to connect", 0.5), ("ERROR: \u212aILLED by oom", 1.5),
        ("== 1 failed, 2 passed in 1s ==", 1.0)]
    assert h.runner_summary(log) == "1 failed, 2 passed in 1s"
    assert h.error_lines("faıled\u2028ok\x85FAİL") == [("faıled", 0.5), ("FAİL", 0.5)]
    assert h.runner_summary("ſkipped\n3 ſkipped\x1cdone") == "3 ſkipped"
    assert h.error_lines("") == [] and h.runner_summary("") is None
    assert h.holds(h.NEXT, "次に、テストを追加します。") and not h.holds(h.NEXT, "Nothing more.")
    assert h.holds(h.CONSTRAINT, "Keep them backward-compatible.")
    assert h.concreteness("5个文件/目录 and 3 MB") == len(ORIGINAL_CONCRETE.findall("5个文件/目录 and 3 MB")) == 2


def test_details_are_the_concrete_details_in_order_once() -> None:
    text = ("Error [ERR_MODULE_NOT_FOUND]: cannot find /app/src/config from src/routes/tickets.js.\n"
            "27 files use require(); TicketService and fetch_customers too. TicketService again.\n12\npassed")
    assert h.details(text) == ("ERR_MODULE_NOT_FOUND", "/app/src/config", "src/routes/tickets.js", "27 files", "require()",
                               "TicketService", "fetch_customers")


@PROPERTY
@given(text=st.one_of(texts, st.lists(st.sampled_from(TOKENS), max_size=60).map("".join)), data=st.data())
def test_details_between_are_the_details_of_the_span(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert h.details_between(text, start, end) == h.details(text[start:end])
