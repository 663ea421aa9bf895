"""Test-runner output: the lines of passing tests in each ecosystem's style, and green runs."""

from __future__ import annotations

import random

from .projects import PROJECTS
from .util import fill, pick, rint

# One progress line per ecosystem; {name} is a test (or test file) name, {area} a folder.
_PROGRESS = {
    "python": "tests/{area}/test_{snake}.py {dots} [{pct:3d}%]\n",
    "go": "=== RUN   Test{camel}\n--- PASS: Test{camel} (0.{ms:02d}s)\n",
    "typescript": " ✓ src/{area}/{pascal}.test.tsx ({n} tests) {ms}ms\n",
    "javascript": " PASS  test/{area}/{snake}.test.js ({n}.{ms:02d} s)\n",
    "rust": "test tests::{snake} ... ok\n",
    "yaml": "PASS - k8s/{area}/{snake}.yaml - main - {n} tests, {n} passed, 0 warnings, 0 failures\n",
}
_AREAS = {"python": ("unit", "integration", "api"), "typescript": ("components", "hooks", "features", "utils"),
          "javascript": ("routes", "services", "lib"), "yaml": ("orders-api", "billing-api", "search-api", "ingress")}
_NAMES = ("create_returns_201", "list_paginates", "cancel_closed", "retry_after_header", "parse_empty_input",
          "handles_unicode", "decode_cursor", "tenant_isolation", "soft_delete", "idempotent_put", "rejects_negative",
          "timezone_roundtrip", "sorts_by_updated_at", "bulk_import", "webhook_signature", "renders_empty_state",
          "status_pill", "date_range", "auth_guard", "search_box", "export_csv", "currency_format")


def progress_lines(rng: random.Random, code: str, slots: dict[str, str], size: int) -> str:
    """Return passing-test chatter of about ``size`` characters in the runner's style."""
    template, areas = _PROGRESS[code], _AREAS.get(code, ("",))
    parts, total, pct = [], 0, 0
    while total < size:
        pct = min(99, pct + rint(rng, 1, 4))
        snake = f"{slots['entity']}_{pick(rng, _NAMES)}" if rng.random() < 0.3 else pick(rng, _NAMES)
        pascal = "".join(word.capitalize() for word in snake.split("_"))
        text = template.format(area=pick(rng, areas), snake=snake, pascal=pascal,
                               camel=f"{pascal}/case_{rint(rng, 1, 40)}", dots="." * rint(rng, 6, 40), pct=pct,
                               ms=rint(rng, 1, 99), n=rint(rng, 2, 14))
        parts.append(text)
        total += len(text)
    return "".join(parts)


_PASS = {
    "python": "================= «passed» passed, «skipped» skipped, «warn» warnings in «secs»s =================\n",
    "go": "ok  \tgithub.com/«org»/«name»/«dir»/«entity»\t«secs»s\nok  \tgithub.com/«org»/«name»/cmd\t0.214s\n"
          "?   \tgithub.com/«org»/«name»/internal/version\t[no test files]\n# «passed» passed\n",
    "typescript": "\n Test Files  18 passed (18)\n      Tests  «passed» passed | «skipped» skipped\n   Start at  "
                  "10:42:17\n   Duration  «secs»s\n",
    "javascript": "Test Suites: 12 passed, 12 total\nTests:       «passed» passed, «skipped» skipped\nSnapshots:   0 "
                  "total\nTime:        «secs» s\n",
    "rust": "test result: ok. «passed» passed; 0 failed; «skipped» ignored; 0 measured; 0 filtered out; finished in "
            "«secs»s\n",
    "yaml": "Summary: «passed» passed (resources found in 17 files) - Invalid: 0, Errors: 0, Skipped: «skipped»\n",
}


def passing_run(rng: random.Random, project: str, slots: dict[str, str], size: int) -> tuple[str, str]:
    """Return ``(output, "N passed")`` for a green test run of about ``size`` characters."""
    code = PROJECTS[project]["code"]
    passed = f"{rint(rng, 24, 960)} passed"
    tail = fill(_PASS[code], dict(slots, passed=passed.split()[0], skipped=rint(rng, 0, 6), warn=rint(rng, 0, 9),
                                  secs=f"{rint(rng, 1, 40)}.{rint(rng, 10, 99)}"))
    return progress_lines(rng, code, slots, size - len(tail)) + tail, passed
