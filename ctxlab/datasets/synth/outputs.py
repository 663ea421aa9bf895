"""Ordinary (small to medium) tool outputs: passing runs, grep hits, listings, docs."""

from __future__ import annotations

import random

from .projects import PROJECTS
from .util import fill, hexid, pick, rint

# «pat» is the searched identifier, so every hit really contains it.
_GREP_LINES = {
    "python": ("from «pkg».«entities» import «pat»", "    repo = «pat»(db.session)", "        result = "
                                                                                     "«pat»(«entity»_id)",
               "    return «pat».from_config(settings)", "# NOTE: «pat» is also used by the nightly export job",
               "def test_«entity»_roundtrip(«pat»):"),
    "go": ("\tstore := «pat»(cfg)", "func (s *Service) «pat»(ctx context.Context) error {", "\t\titems, err := "
                                                                                            "c.«pat»(ctx, opts)",
           "// «pat» must not be called with a nil context.", "\tif _, err := «pat»(ctx, Default«Type»()); err != nil "
                                                              "{"),
    "typescript": ("import { «pat» } from '../«entities»';", "  const result = «pat»(page, pageSize);", "export { «pat»"
                                                                                                        " };",
                   "      <«pat» onSelect={handleSelect} />", "// «pat» is memoised by react-query, do not wrap it "
                                                              "again"),
    "javascript": ("import { «pat» } from './services/«entity»Service.js';", "  const svc = new «pat»({ http, queue "
                                                                             "});",
                   "    await «pat»(payload);", "// «pat» retries are handled by the queue worker"),
    "rust": ("use crate::parser::«pat»;", "    let node = «pat»(&mut p)?;", "impl<'src> «pat»<'src> {", "/// See [`«"
                                                                                                        "pat»`] for "
                                                                                                        "the grammar."),
    "yaml": ("  name: «pat»", "    app.kubernetes.io/name: «pat»", "kubectl rollout restart «pat» -n «entities»",
             "# «pat» is scaled by the HPA, do not set replicas by hand"),
}


def grep_output(rng: random.Random, project: str, slots: dict[str, str], pattern: str) -> str:
    """Return ripgrep-style ``path:line:text`` hits for ``pattern`` across the session's files."""
    lines_pool = _GREP_LINES[PROJECTS[project]["code"]]
    paths = [slots[k] for k in ("path_main", "path_svc", "path_repo", "path_test")]
    lines = []
    for path in sorted(rng.sample(paths, rint(rng, 2, 4))):
        for line_no in sorted(rng.sample(range(3, 400), rint(rng, 1, 4))):
            lines.append(f"{path}:{line_no}:{fill(pick(rng, lines_pool), dict(slots, pat=pattern))}")
    return "\n".join(lines) + "\n"


_COMMON_FILES = {
    "python": ("pyproject.toml", "Makefile", "README.md", "tests/conftest.py", ".github/workflows/ci.yml",
               "alembic.ini"),
    "go": ("go.mod", "go.sum", "Makefile", "README.md", ".golangci.yml", ".goreleaser.yaml"),
    "typescript": ("package.json", "package-lock.json", "index.html", "README.md", ".eslintrc.cjs", "src/main.tsx"),
    "javascript": ("package.json", "package-lock.json", "Dockerfile", "README.md", ".eslintrc.json", "src/server.js"),
    "rust": ("Cargo.toml", "Cargo.lock", "README.md", "benches/parse.rs", "src/lib.rs", "src/error.rs"),
    "yaml": ("Makefile", "README.md", "terraform/envs/prod/main.tf", "terraform/envs/prod/backend.tf", ".tflint.hcl"),
}


def list_dir_output(rng: random.Random, project: str, slots: dict[str, str]) -> str:
    """Return a recursive listing of the project, one path per line with sizes."""
    entries = set(_COMMON_FILES[PROJECTS[project]["code"]])
    entries.update(slots[k] for k in ("path_main", "path_svc", "path_repo", "path_test", "path_cfg"))
    # Sorted so the listing never depends on set iteration order.
    return "\n".join(f"{rint(rng, 180, 48000):>7}  {path}" for path in sorted(entries)) + "\n"


def edit_result(rng: random.Random, path: str, new: str) -> str:
    """What the edit tool answers after a successful replacement."""
    line = rint(rng, 10, 300)
    last = line + new.count("\n")
    return pick(rng, (f"The file {path} has been updated. Replaced 1 occurrence (lines {line}-{last}).",
                      f"Edited {path}: 1 replacement, {new.count(chr(10)) + 1} lines written.",
                      f"OK: {path} updated (1 hunk)."))


def write_result(path: str, content: str) -> str:
    """What the write tool answers after creating a file."""
    return f"Wrote {len(content.encode('utf-8'))} bytes to {path}"


DOCS = (
    (("flask-api", "data-pipeline"), "https://docs.python.org/3/library/functools.html#functools.lru_cache",
     "@functools.lru_cache(user_function)\n@functools.lru_cache(maxsize=128, typed=False)\n\nDecorator to wrap a "
     "function with a memoizing callable that saves up to the maxsize most recent calls. It can save time when an "
     "expensive or I/O bound function is periodically called with the same arguments.\n\nIf maxsize is set to None, "
     "the LRU feature is disabled and the cache can grow without bound.\n"),
    (("flask-api", "node-service", "go-cli"), "https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Retry-After",
     "Retry-After\n\nThe HTTP Retry-After response header indicates how long the user agent should wait before making "
     "a follow-up request. There are three main cases this header is used:\n- In a 503 (Service Unavailable) "
     "response...\n- In a 429 (Too Many Requests) response, this indicates how long to wait before making a new "
     "request.\n"),
    (("infra", "data-pipeline"), "https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/",
     "Resource Management for Pods and Containers\n\nWhen you specify a Pod, you can optionally specify how much of "
     "each resource a container needs. ... If a container exceeds its memory limit, the kernel OOM killer may "
     "terminate it (exit code 137).\n"),
    (("node-service",), "https://nodejs.org/api/esm.html#mandatory-file-extensions",
     "Mandatory file extensions\n\nA file extension must be provided when using the import keyword to resolve relative "
     "or absolute specifiers. Directory indexes (e.g. './startup/index.js') must also be fully specified.\n"),
    (("rust-parser",), "https://doc.rust-lang.org/error_codes/E0502.html",
     "Error code E0502\n\nA variable already borrowed with a certain mutability (either mutable or immutable) was "
     "borrowed again with a different mutability.\n\nTo fix this error, ensure that you don't have any other "
     "references to the variable before trying to access it with a different mutability.\n"),
    (("react-frontend",), "https://www.typescriptlang.org/docs/handbook/2/narrowing.html",
     "Narrowing\n\nTypeScript follows possible paths of execution that our programs can take to analyze the most "
     "specific possible type of a value at a given position. ... Using type predicates: to define a user-defined type "
     "guard, we simply need to define a function whose return type is a type predicate.\n"),
    (("go-cli",), "https://pkg.go.dev/encoding/json#Encoder",
     "type Encoder\n\nAn Encoder writes JSON values to an output stream.\n\nfunc NewEncoder(w io.Writer) "
     "*Encoder\nfunc (enc *Encoder) Encode(v any) error\n\nEncode writes the JSON encoding of v to the stream, "
     "followed by a newline character.\n"),
    (("data-pipeline",), "https://pandas.pydata.org/docs/reference/api/pandas.read_csv.html",
     "pandas.read_csv\n\nchunksize : int, optional\n    Number of lines to read from the file per chunk. Passing a "
     "value will cause the function to return a TextFileReader object for iteration.\n"),

    (("infra",),
     "https://kubernetes.github.io/ingress-nginx/user-guide/nginx-configuration/annotations/#custom-timeouts",
     "Custom timeouts\n\nUsing the configuration configmap it is possible to set the default global timeout for "
     "connections "
     "to the upstream servers. In some scenarios is required to have different values. To allow this we provide "
     "annotations that allows this customization:\n\nnginx.ingress.kubernetes.io/proxy-connect-timeout\n"
     "nginx.ingress.kubernetes.io/proxy-send-timeout\nnginx.ingress.kubernetes.io/proxy-read-timeout\n"),
    (("react-frontend",), "https://github.com/cure53/DOMPurify#can-i-configure-dompurify",
     "Can I configure DOMPurify?\n\nYes. The included default configuration values are pretty good already, but you "
     "can of course override them. ... // allow only <b> elements, very strict\n"
     "const clean = DOMPurify.sanitize(dirty, {ALLOWED_TAGS: ['b']});\n"),
    (("rust-parser",), "https://docs.rs/memchr/latest/memchr/",
     "Crate memchr\n\nThis library provides heavily optimized routines for string search primitives, focused on a "
     "small set of primitives: memchr, memchr2, memchr3 ... These routines use SIMD when available.\n"),
    (("go-cli",), "https://pkg.go.dev/github.com/spf13/cobra#Command",
     "type Command struct {\n    // Use is the one-line usage message.\n    Use string\n    ...\n    // RunE: Run but "
     "returns an error.\n    RunE func(cmd *Command, args []string) error\n}\n"),
    (("flask-api",), "https://flask.palletsprojects.com/en/3.0.x/patterns/appfactories/",
     "Application Factories\n\nIf you are already using packages and blueprints for your application there are a "
     "couple of really nice ways to further improve the experience. A common pattern is creating the application "
     "object when the blueprint is imported. But if you move the creation of this object into a function, you can then "
     "create multiple instances of this app later.\n"),
    (("flask-api",), "https://pylint.readthedocs.io/en/stable/user_guide/messages/error/no-member.html",
     "no-member / E1101\n\nMessage emitted: %s %r has no %r member%s\n\nDescription: Used when a variable is accessed "
     "for a nonexistent member. ... If you are sure the member exists, add it to `generated-members` instead of "
     "disabling the check.\n"),)


def fetch_doc(rng: random.Random, project: str) -> tuple[str, str]:
    """Return ``(url, page text)`` of a documentation page relevant to ``project``."""
    _, url, text = pick(rng, [d for d in DOCS if project in d[0]])
    return url, text


def search_docs_output(rng: random.Random, slots: dict[str, str]) -> str:
    """Hits from the internal docs search."""
    hits = (f"docs/adr/0007-{slots['entities']}.md (score 0.82): \"... all reads of {slots['entities']} go through "
            f"{slots['Repo']}; callers must not cache results themselves ...\"",
            f"docs/runbooks/{slots['name']}.md (score 0.64): \"If {slots['name']} {slots['entities']} alerts fire, "
            "first check the upstream "
            "status page, then the ingress logs ...\"",
            "docs/adr/0012-timeouts.md (score 0.51): \"Default client timeout is 30s; anything longer needs an ADR.\"")
    return "\n".join(hits[: rint(rng, 1, 3)]) + "\n"


def git_output(rng: random.Random, slots: dict[str, str], edited: list[str]) -> tuple[str, str]:
    """Return ``(command, output)`` of a ``git diff --stat`` or ``git status`` over the edited files."""
    files = sorted(set(edited)) or [slots["path_main"]]
    if rng.random() < 0.5:
        body = "".join(f" {p} | {rint(rng, 2, 60)} {'+' * rint(rng, 1, 12)}{'-' * rint(rng, 0, 6)}\n" for p in files)
        total = f" {len(files)} files changed, {rint(rng, 10, 200)} insertions(+), {rint(rng, 1, 60)} deletions(-)\n"
        return "git diff --stat", body + total
    body = "".join(f"\tmodified:   {p}\n" for p in files)
    return "git status", (f"On branch {slots['entity']}-{hexid(rng, 4)}\nChanges not staged for commit:\n"
                          "  (use \"git add <file>...\" to update what will be committed)\n" + body)


_LINT_CLEAN = {
    "python": "All checks passed!\nSuccess: no issues found in 87 source files\n",
    "go": "0 issues.\n",
    "typescript": "(no output)\nexit code 0\n",
    "javascript": "✔ No problems found (0 errors, 0 warnings)\n",
    "rust": "    Checking «name» v0.4.2 (/src/«name»)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) "
            "in 3.41s\n",
    "yaml": "«name»: 0 issue(s) found\n",
}


def lint_clean(project: str, slots: dict[str, str], cmd: str) -> str:
    """Output of a clean lint / static-check run of ``cmd``."""
    if cmd.startswith("pylint"):
        return "\n" + "-" * 68 + "\nYour code has been rated at 10.00/10\n"
    return fill(_LINT_CLEAN[PROJECTS[project]["code"]], slots)
