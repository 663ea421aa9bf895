"""Very large tool outputs (tens of thousands of characters) and their dispatcher.

This module holds the structured ones: API responses (pretty-printed and
minified JSON), pod listings, lockfiles, an HTML page with inlined state and
whole generated source files; ``biglogs`` holds the textual logs. Each output
comes with one *highlight*: a short string the agent quotes in its next
message, which becomes a fact of the session.
"""

from __future__ import annotations

import json
import random
from typing import NamedTuple

from .biglogs import CRATES, LOG_GENERATORS, NPM_PKGS, STATUSES, timestamp, version
from .projects import PROJECTS
from .sources import render_source
from .util import hexid, pick, rint

PY_PKGS = ("requests", "urllib3", "certifi", "idna", "charset-normalizer", "flask", "werkzeug", "jinja2",
           "markupsafe", "itsdangerous", "click", "sqlalchemy", "alembic", "psycopg2-binary", "marshmallow",
           "pydantic", "pydantic-core", "pytest", "pluggy", "iniconfig", "packaging", "coverage", "mypy", "ruff",
           "black", "pandas", "numpy", "pyarrow", "python-dateutil", "pytz", "tzdata", "six", "httpx", "httpcore",
           "anyio", "sniffio", "h11", "redis", "gunicorn")
GO_MODS = ("github.com/spf13/cobra", "github.com/spf13/pflag", "github.com/spf13/viper", "github.com/fsnotify/fsnotify",
           "golang.org/x/sync", "golang.org/x/sys", "golang.org/x/text", "golang.org/x/net",
           "github.com/hashicorp/golang-lru/v2", "github.com/stretchr/testify", "github.com/davecgh/go-spew",
           "gopkg.in/yaml.v3", "github.com/google/go-cmp")
_NAMES = ("Ana Souza", "Wei Zhang", "Yuki Tanaka", "Priya Nair", "Jonas Berg", "Fatima Khan", "Luca Rossi",
          "Emma Dubois", "Kofi Mensah", "Olga Ivanova", "Minh Tran", "Sara Lindqvist", "Diego Ramírez", "Hana Kim")
_TAGS = ("priority", "b2b", "gift", "fragile", "export", "manual-review")
_EXT = {"python": "py", "go": "go", "rust": "rs", "typescript": "ts", "javascript": "js", "yaml": "yaml"}


class Big(NamedTuple):
    """A large output: the call that produced it, the text, and the line worth quoting."""

    tool: str
    args: dict
    text: str
    hl: str
    hl_kind: str
    sum: str


def _records(rng: random.Random, slots: dict, size: int, nulls: bool) -> list[dict]:
    """API records totalling about ``size`` characters once pretty-printed."""
    out, total, entity = [], 0, slots["entity"]
    statuses = STATUSES + (None,) if nulls else STATUSES
    while total < size:
        name = pick(rng, _NAMES)
        email = name.split()[0].lower() + f"@example.{pick(rng, ('com', 'org', 'jp'))}"
        out.append({"id": rint(rng, 10_000, 99_999), "tenant_id": rint(rng, 1, 40), "status": pick(rng, statuses),
                    f"{entity}_total": rint(rng, 100, 250_000), "currency": pick(rng, ("EUR", "USD", "JPY", "GBP")),
                    "created_at": timestamp(rng), "updated_at": timestamp(rng),
                    "customer": {"id": f"cus_{hexid(rng, 12)}", "name": name, "email": email},
                    "tags": rng.sample(_TAGS, rint(rng, 0, 3))})
        total += 260  # about the pretty-printed size of one record
    return out


def api_json(rng: random.Random, slots: dict, size: int, minified: bool = False) -> Big:
    # Minified records are ~40% shorter, so ask for more of them.
    recs = _records(rng, slots, int(size * 1.6) if minified else size, nulls=minified)
    total = len(recs) + rint(rng, 2_000, 40_000)
    body = {"data": recs, "total": total, "next_cursor": hexid(rng, 32), "request_id": hexid(rng, 16)}
    args = {"url": f"https://api.{slots['org']}.net/v1/{slots['entities']}?limit={len(recs)}"}
    entities = slots["entities"]
    if minified:
        nulls = sum(1 for r in recs if r["status"] is None)
        return Big("web_fetch", args, json.dumps(body, separators=(",", ":"), ensure_ascii=False),
                   f"{nulls} records with a null status", "number",
                   f"Fetched a {len(recs)}-record page of {entities}; {nulls} records have a null status.")
    return Big("web_fetch", args, json.dumps(body, indent=2, ensure_ascii=False), f"{total} {entities} in total",
               "number", f"The {entities} API reports {total} {entities} in total.")


def k8s_json(rng: random.Random, slots: dict, size: int) -> Big:
    pods, total = [], 0
    while total < size:
        name = f"{slots['entities']}-api-7d9f8c6b5-{hexid(rng, 5)}"
        terminated = {"reason": "OOMKilled", "exitCode": 137, "finishedAt": timestamp(rng)}
        status = {"phase": "Running", "podIP": f"10.42.{rint(rng, 0, 255)}.{rint(rng, 2, 254)}",
                  "containerStatuses": [{"name": "api", "restartCount": rint(rng, 0, 40), "ready": True,
                                         "lastState": {"terminated": terminated}}]}
        pods.append({"metadata": {"name": name, "namespace": slots["entities"],
                                  "labels": {"app.kubernetes.io/name": f"{slots['entities']}-api"}}, "status": status})
        total += 520
    worst = max(pods, key=lambda p: p["status"]["containerStatuses"][0]["restartCount"])["metadata"]["name"]
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": pods}, indent=2)
    return Big("run_shell", {"command": f"kubectl get pods -n {slots['entities']} -o json"}, text, worst,
               "identifier", f"Pod listing: every replica was OOMKilled at least once; {worst} restarted most.")


def _lock(rng: random.Random, size: int, path: str, pool: tuple, fmt, pinned: tuple[str, str]) -> Big:
    lines, total = [], 0
    while total < size:
        line = fmt(pick(rng, pool), version(rng), hexid(rng, 40))
        lines.append(line)
        total += len(line)
    lines.append(fmt(*pinned, hexid(rng, 40)))
    hl = " ".join(pinned)
    return Big("read_file", {"path": path}, "".join(lines), hl, "identifier", f"{path} still pins {hl}.")


def _poetry(name: str, ver: str, digest: str) -> str:
    return (f'[[package]]\nname = "{name}"\nversion = "{ver}"\noptional = false\npython-versions = ">=3.8"\n'
            f'files = [\n    {{file = "{name}-{ver}-py3-none-any.whl", hash = "sha256:{digest}"}},\n]\n\n')


def _gosum(name: str, ver: str, digest: str) -> str:
    return f"{name} v{ver} h1:{digest[:32]}=\n{name} v{ver}/go.mod h1:{digest[8:40]}=\n"


def _cargo(name: str, ver: str, digest: str) -> str:
    return (f'[[package]]\nname = "{name}"\nversion = "{ver}"\n'
            f'source = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "{digest}{digest[:24]}"\n\n')


def lock_npm(rng: random.Random, slots: dict, size: int) -> Big:
    pkgs, total = {}, 0
    while total < size:
        name, ver = pick(rng, NPM_PKGS), version(rng)
        nested = "" if rng.random() < 0.5 else f"/node_modules/{pick(rng, NPM_PKGS)}"
        pkgs[f"node_modules/{name}{nested}"] = {
            "version": ver, "resolved": f"https://registry.npmjs.org/{name}/-/{name.split('/')[-1]}-{ver}.tgz",
            "integrity": f"sha512-{hexid(rng, 64)}", "dev": rng.random() < 0.4}
        total += 260
    pkgs["node_modules/semver"] = {"version": "5.7.2",
                                   "resolved": "https://registry.npmjs.org/semver/-/semver-5.7.2.tgz"}
    body = {"name": slots["name"], "lockfileVersion": 3, "requires": True, "packages": pkgs}
    return Big("read_file", {"path": "package-lock.json"}, json.dumps(body, indent=2), "semver@5.7.2", "identifier",
               "package-lock.json still resolves semver@5.7.2 at the top level.")


def bundle_html(rng: random.Random, slots: dict, size: int) -> Big:
    records = _records(rng, slots, int(size * 1.5), nulls=False)
    state = {"user": {"id": hexid(rng, 8), "locale": "en"}, slots["entities"]: records}
    html = (f'<!doctype html><html><head><meta charset="utf-8"><title>{slots["name"]}</title></head><body>'
            f'<div id="root"></div><script>window.__INITIAL_STATE__={json.dumps(state, separators=(",", ":"))}</script>'
            '<script src="app.js"></script><img src=x onerror="console.warn(\'legacy\')"></body></html>')
    return Big("web_fetch", {"url": f"https://staging.{slots['org']}.net/{slots['entities']}"}, html,
               "__INITIAL_STATE__", "identifier",
               "The staging page inlines the whole dataset in window.__INITIAL_STATE__.")


def big_output(rng: random.Random, kind: str, project: str, slots: dict[str, str], size: int) -> Big:
    """Generate one large output of kind ``kind`` with at least about ``size`` characters.

    Args:
        rng: The session's random stream.
        kind: A name from a project's ``big`` list, or ``"big_source"``.
        project: Project key.
        slots: The session's slots.
        size: Wanted length in characters.

    Returns:
        The call, the text and its highlight; ``sum`` is an English progress
        line for the reference summary and contains the highlight.
    """
    if kind in LOG_GENERATORS:
        return Big(*LOG_GENERATORS[kind](rng, slots, size))
    if kind == "big_source":
        path = f"{slots['dir']}/generated/{slots['entities']}_api.{_EXT[PROJECTS[project]['code']]}"
        return Big("read_file", {"path": path}, render_source(rng, project, slots, size, path), path, "path",
                   f"{path} is a generated file; it must not be edited by hand.")
    if kind == "lock_poetry":
        return _lock(rng, size, "poetry.lock", PY_PKGS, _poetry, ("urllib3", "1.26.18"))
    if kind == "lock_gosum":
        return _lock(rng, size, "go.sum", GO_MODS, _gosum, ("golang.org/x/net", "0.17.0"))
    if kind == "lock_cargo":
        return _lock(rng, size, "Cargo.lock", CRATES, _cargo, ("syn", "1.0.109"))
    generators = {"api_json": api_json, "api_min": lambda r, s, n: api_json(r, s, n, minified=True),
                  "k8s_json": k8s_json, "lock_npm": lock_npm, "bundle_html": bundle_html}
    return generators[kind](rng, slots, size)
