"""Render whole source files of a wanted size from the hand-written snippets."""

from __future__ import annotations

import random

from . import code_a, code_b, code_c
from .projects import PROJECTS
from .util import fill, pick

# extension -> (header, test header, snippets); test snippets are told apart by _is_test.
_POOLS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "py": (code_a.PY_HEADER, code_a.PY_TEST_HEADER, code_a.PY_SNIPPETS),
    "go": (code_a.GO_HEADER, code_a.GO_TEST_HEADER, code_a.GO_SNIPPETS),
    "rs": (code_b.RS_HEADER, code_b.RS_TEST_HEADER, code_b.RS_SNIPPETS),
    "ts": (code_b.TS_HEADER, code_b.TS_TEST_HEADER, code_b.TS_SNIPPETS),
    "js": (code_c.JS_HEADER, code_c.JS_TEST_HEADER, code_c.JS_SNIPPETS),
    "yaml": (code_c.YAML_HEADER, code_c.YAML_HEADER, code_c.YAML_SNIPPETS),
    "tf": (code_c.HCL_HEADER, code_c.HCL_HEADER, code_c.HCL_SNIPPETS),
}
_ALIASES = {"tsx": "ts", "mjs": "js", "yml": "yaml"}
# Files whose content is one fixed template rather than a stitched pool.
_FIXED = {"Cargo.toml": code_c.CARGO_TOML, "tsconfig.json": code_c.TSCONFIG, "index.html": code_b.HTML_PAGE}
_TEST_MARKERS = ("def test_", "func Test", "#[cfg(test)]", "describe(")
_EXT_OF_CODE = {"python": "py", "go": "go", "rust": "rs", "typescript": "ts", "javascript": "js", "yaml": "yaml"}


def _is_test(snippet: str) -> bool:
    return any(marker in snippet for marker in _TEST_MARKERS)


def reslot(slots: dict[str, str], project: str, entity: tuple[str, str, str, str]) -> dict[str, str]:
    """Return ``slots`` with another entity and the identifiers derived from it.

    Later passes over the snippet pool use this so a long file defines
    ``InvoiceRepository`` after ``OrderRepository`` instead of repeating it.
    """
    local = dict(slots, Entity=entity[0], entity=entity[1], entities=entity[2], Entities=entity[3])
    for slot, value in PROJECTS[project]["idents"].items():
        local[slot] = fill(value[0] if isinstance(value, tuple) else value, local)
    return local


def render_source(rng: random.Random, project: str, slots: dict[str, str], size: int, path: str = "") -> str:
    """Render a plausible file of roughly ``size`` characters for ``path``.

    Args:
        rng: The session's random stream.
        project: Project key; gives the default language and the entity pool.
        slots: The session's slots.
        size: Wanted length; pool-based files get a header and at least one snippet.
        path: File path; its extension (and whether it is a test) picks the pool.

    Returns:
        The file content.
    """
    name = path.rsplit("/", 1)[-1]
    ext = name.rsplit(".", 1)[-1] if "." in name else ""
    ext = _ALIASES.get(ext, ext)
    if name in _FIXED:
        return fill(_FIXED[name], slots)
    if ext == "rego":
        return fill(code_c.REGO_TEST, slots)
    if ext == "yaml" and project == "data-pipeline":
        return fill(code_c.PIPELINE_YAML, slots)
    if ext not in _POOLS:
        ext = _EXT_OF_CODE[PROJECTS[project]["code"]]
    header, test_header, snippets = _POOLS[ext]
    wants_test = "test" in path.lower()
    pool = [s for s in snippets if _is_test(s) == wants_test] or list(snippets)
    parts = [fill(test_header if wants_test else header, slots)]
    total = len(parts[0])
    # The snippet order depends on the path only, so a given file starts the
    # same way in every session while different files start differently.
    random.Random(path).shuffle(pool)
    local = slots
    while True:
        for snippet in pool:
            text = fill(snippet, local)
            parts.append(text)
            total += len(text)
            if total >= size:
                return "".join(parts)
        local = reslot(slots, project, pick(rng, PROJECTS[project]["entities"]))


def number_lines(text: str, start: int = 1) -> str:
    """Prefix lines like ``cat -n`` does; some agent harnesses return files this way."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return "\n".join(f"{i:6d}\t{line}" for i, line in enumerate(lines, start))


def patch_for(project: str, task: dict, slots: dict[str, str]) -> tuple[str, str] | None:
    """Return the task's ``(old, new)`` edit in the project's language, if it has one."""
    pair = task["patch"].get(PROJECTS[project]["code"])
    if pair is None:
        return None
    return fill(pair[0], slots), fill(pair[1], slots)


# Small follow-up edits any session can make once the main patch is in.
_SMALL_EDITS: dict[str, tuple[tuple[str, str], ...]] = {
    "python": (("import logging\n", "import logging\nimport time\n"),
               ("    assert resp.status_code == 201\n", "    assert resp.status_code == 201, resp.get_json()\n"),
               ("logger = logging.getLogger(__name__)\n", "logger = logging.getLogger(__name__)\nMAX_PAGE_SIZE = "
                                                          "1000\n")),
    "go": (("\t\"time\"\n)", "\t\"time\"\n\n\t\"github.com/«org»/«name»/internal/retry\"\n)"),
           ("\treturn cmd\n}", "\tcmd.Flags().StringVarP(&opts.Output, \"output\", \"o\", opts.Output, \"output "
                               "format: table|json\")\n\treturn cmd\n}")),
    "rust": (("use crate::lexer::{Lexer, Token, TokenKind};\n", "use crate::lexer::{Lexer, Token, TokenKind};\nuse "
                                                                "crate::span::Span;\n"),
             ("        self.lookahead.as_ref()\n", "        self.lookahead.as_ref().filter(|t| t.kind != "
                                                   "TokenKind::Eof)\n")),
    "typescript": (("import styles from './«Entity»Table.module.css';\n",
                    "import styles from './«Entity»Table.module.css';\nimport { is«Type» } from '../api/guards';\n"),
                   ("  it('renders one row per «entity»', async () => {\n", "  it('renders one row per «entity» "
                                                                            "(header included)', async () => {\n")),
    "javascript": (("const log = pino({ name: '«name»', level: config.logLevel });\n",
                    "const log = pino({ name: '«name»', level: config.logLevel, redact: ['req.headers.authorization'] "
                    "});\n"),
                   ("    return res.status(202).json({ accepted: true, id: result.id });\n",
                    "    return res.status(202).set('Retry-After', '0').json({ accepted: true, id: result.id });\n")),
    "yaml": (("  replicas: 3\n", "  replicas: 4\n"),
             ("            periodSeconds: 5\n", "            periodSeconds: 5\n            failureThreshold: 6\n")),
}


def small_edit(rng: random.Random, project: str, slots: dict[str, str]) -> tuple[str, str]:
    """Return a small ``(old, new)`` follow-up edit in the project's language."""
    old, new = pick(rng, _SMALL_EDITS[PROJECTS[project]["code"]])
    return fill(old, slots), fill(new, slots)
