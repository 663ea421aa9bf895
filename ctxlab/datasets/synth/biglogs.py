"""Very long textual tool outputs: verbose test runs, build logs, plans, logs, CSV dumps.

Every generator takes ``(rng, slots, size)``, writes lines until the output
reaches ``size`` characters and returns a ``bigout.Big`` whose highlight is
the one line the agent then quotes.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from .util import hexid, pick, rint

CRATES = ("proc-macro2", "quote", "unicode-ident", "syn", "serde", "serde_derive", "serde_json", "itoa", "ryu",
          "memchr", "logos", "logos-derive", "regex", "regex-syntax", "aho-corasick", "thiserror", "thiserror-impl",
          "criterion", "plotters", "rayon", "rayon-core", "crossbeam-deque", "either", "once_cell", "cfg-if", "libc",
          "autocfg")
NPM_PKGS = ("react", "react-dom", "scheduler", "loose-envify", "@tanstack/react-query", "dompurify", "vite", "esbuild",
            "rollup", "postcss", "nanoid", "picocolors", "source-map-js", "typescript", "vitest", "@vitest/expect",
            "chai", "tinypool", "eslint", "@eslint/js", "espree", "acorn", "semver", "lru-cache", "yallist",
            "minimatch", "brace-expansion", "balanced-match", "glob", "inflight", "once", "wrappy", "debug", "ms",
            "express", "zod", "pino", "pino-std-serializers", "sonic-boom", "node-fetch", "whatwg-url", "tr46")
STATUSES = ("new", "pending", "processing", "shipped", "cancelled", "refunded")
_CASES = ("create", "update", "list", "delete", "retry", "paginate", "schema", "auth", "export", "import")


def version(rng: random.Random) -> str:
    """A plausible semantic version such as ``4.17.21``."""
    return f"{rint(rng, 0, 9)}.{rint(rng, 0, 40)}.{rint(rng, 0, 30)}"


def timestamp(rng: random.Random) -> str:
    """An ISO-8601 UTC timestamp in the first half of 2024."""
    return f"2024-0{rint(rng, 1, 5)}-{rint(rng, 10, 28)}T{rint(rng, 10, 23)}:{rint(rng, 10, 59)}:{rint(rng, 10, 59)}Z"


def lines_until(size: int, make: Callable[[], str]) -> str:
    """Concatenate ``make()`` results until at least ``size`` characters."""
    parts, total = [], 0
    while total < size:
        line = make()
        parts.append(line)
        total += len(line)
    return "".join(parts)


def pytest_log(rng: random.Random, slots: dict, size: int) -> tuple:
    def line() -> str:
        test = f"test_{slots['entity']}_{pick(rng, _CASES)}.py::test_{pick(rng, _CASES)}_{pick(rng, _CASES)}"
        outcome = pick(rng, ("PASSED", "PASSED", "PASSED", "SKIPPED"))
        folder = pick(rng, ("unit", "integration", "api"))
        return f"tests/{folder}/{test}[case{rint(rng, 0, 40)}] {outcome} [{rint(rng, 1, 99):3d}%]\n"

    warnings = rint(rng, 40, 400)
    tail = ("=" * 31 + " warnings summary " + "=" * 31 + "\n"
            f".venv/lib/python3.11/site-packages/{slots['lib'].lower()}/compat.py:19: DeprecationWarning: "
            "datetime.utcnow() is deprecated\n"
            f"====== {rint(rng, 900, 3000)} passed, {rint(rng, 1, 30)} skipped, {warnings} warnings "
            f"in {rint(rng, 60, 600)}.{rint(rng, 10, 99)}s ======\n")
    return ("run_shell", {"command": "pytest -vv tests/ -p no:cacheprovider"}, lines_until(size, line) + tail,
            f"{warnings} warnings", "number", f"The full verbose test run passes with {warnings} warnings.")


def go_test_log(rng: random.Random, slots: dict, size: int) -> tuple:
    racy = f"TestWorkerPool_{pick(rng, ('Drain', 'Resize', 'Cancel', 'Flush'))}"
    module = f"github.com/{slots['org']}/{slots['name']}/internal/pool"

    def line() -> str:
        name = f"Test{slots['Entity']}{pick(rng, ('List', 'Get', 'Sync', 'Encode', 'Parse'))}/case_{rint(rng, 1, 300)}"
        return f"=== RUN   {name}\n--- PASS: {name} (0.{rint(rng, 0, 99):02d}s)\n"

    race = ("==================\nWARNING: DATA RACE\n"
            f"Write at 0x00c0001a40f8 by goroutine {rint(rng, 20, 90)}:\n  {module}.(*Pool).Drain()\n"
            f"      /src/internal/pool/pool.go:{rint(rng, 40, 200)} +0x64\n"
            f"Previous read at 0x00c0001a40f8 by goroutine {rint(rng, 91, 140)}:\n  {module}.(*Pool).Len()\n"
            f"==================\n--- FAIL: {racy} (0.03s)\n"
            "    testing.go:1465: race detected during execution of test\n")
    text = lines_until(size // 2, line) + race + lines_until(size // 2, line) + "FAIL\n"
    return ("run_shell", {"command": "go test -v -race ./..."}, text, racy, "identifier",
            f"The race detector flags {racy} in internal/pool.")


def web_build_log(rng: random.Random, slots: dict, size: int) -> tuple:
    big = f"vendor-charts-{hexid(rng, 8)}.js"
    chunks = ("index", slots["Entity"] + "Table", "vendor-react", "chunk", "Settings", "Reports", "i18n")

    def line() -> str:
        kb, gz = f"{rint(rng, 1, 300)}.{rint(rng, 10, 99)}", f"{rint(rng, 1, 90)}.{rint(rng, 10, 99)}"
        return f"dist/assets/{pick(rng, chunks)}-{hexid(rng, 8)}.js  {kb} kB │ gzip: {gz} kB\n"

    head = (f"> {slots['name']}@0.{rint(rng, 1, 30)}.0 build\n> tsc -b && vite build\n\n"
            "vite v5.2.11 building for production...\n")
    tail = (f"dist/assets/{big}  1,3{rint(rng, 10, 99)}.{rint(rng, 10, 99)} kB │ gzip: 402.11 kB\n\n"
            "(!) Some chunks are larger than 500 kB after minification. Consider:\n"
            "- Using dynamic import() to code-split the application\n"
            f"✓ built in {rint(rng, 9, 60)}.{rint(rng, 10, 99)}s\n")
    return ("run_shell", {"command": "npm run build -- --debug"}, head + lines_until(size, line) + tail, big,
            "identifier", f"The production build succeeds but {big} is over 1.3 MB.")


def cargo_log(rng: random.Random, slots: dict, size: int) -> tuple:
    def line() -> str:
        crate = pick(rng, CRATES)
        return (f"   Compiling {crate} v{version(rng)}\n     Running `rustc --crate-name {crate.replace('-', '_')} "
                "--edition=2021 src/lib.rs --error-format=json --crate-type lib -C opt-level=3 -C embed-bitcode=no "
                f"-C metadata={hexid(rng, 16)} --out-dir /src/target/release/deps "
                "-L dependency=/src/target/release/deps --cap-lints allow`\n")

    text = (lines_until(size, line) + "   Compiling syn v1.0.109\n   Compiling syn v2.0.66\n"
            f"    Finished `release` profile [optimized] target(s) in {rint(rng, 20, 200)}.{rint(rng, 10, 99)}s\n")
    return ("run_shell", {"command": "cargo build --release -vv"}, text, "syn v1.0.109", "identifier",
            "The verbose release build shows syn v1.0.109 compiled next to syn v2.")


def npm_log(rng: random.Random, slots: dict, size: int) -> tuple:
    def line() -> str:
        pkg = pick(rng, NPM_PKGS)
        return (f"npm http fetch GET 200 https://registry.npmjs.org/{pkg}/-/{pkg.split('/')[-1]}-{version(rng)}.tgz "
                f"{rint(rng, 3, 900)}ms (cache miss)\n")

    added = rint(rng, 600, 1900)
    tail = ("npm warn deprecated inflight@1.0.6: This module is not supported, and leaks memory.\n"
            f"added {added} packages, and audited {added + 1} packages in {rint(rng, 12, 90)}s\n")
    return ("run_shell", {"command": "npm ci --loglevel http"}, lines_until(size, line) + tail, "inflight@1.0.6",
            "identifier", f"npm ci installs {added} packages; inflight@1.0.6 is deprecated.")


def tf_plan(rng: random.Random, slots: dict, size: int) -> tuple:
    entities = slots["entities"]
    kinds = ("aws_iam_policy", "aws_security_group_rule", "aws_s3_bucket_policy", "kubernetes_config_map",
             "aws_route53_record")

    def block() -> str:
        res, name = pick(rng, kinds), f"{entities}_{hexid(rng, 4)}"
        return (f"  # module.{entities}.{res}.{name} will be updated in-place\n  ~ resource \"{res}\" \"{name}\" {{\n"
                f"        id   = \"{hexid(rng, 12)}\"\n      ~ tags = {{\n"
                f"          + \"cost-center\" = \"{rint(rng, 1000, 9999)}\"\n        }}\n    }}\n\n")

    destroy = (f"  # aws_db_parameter_group.{entities}_pg14 must be replaced\n"
               f"-/+ resource \"aws_db_parameter_group\" \"{entities}_pg14\" {{\n"
               "      ~ family = \"postgres14\" -> \"postgres15\" # forces replacement\n    }\n\n")
    tail = f"Plan: {rint(rng, 1, 9)} to add, {rint(rng, 10, 80)} to change, 1 to destroy.\n"
    return ("run_shell", {"command": "terraform plan -no-color"}, lines_until(size, block) + destroy + tail,
            "1 to destroy", "number", "terraform plan wants to replace the DB parameter group (1 to destroy).")


def app_log(rng: random.Random, slots: dict, size: int) -> tuple:
    count = 0

    def line() -> str:
        nonlocal count
        status = 502 if rng.random() < 0.03 else pick(rng, (200, 200, 200, 201, 204, 404))
        count += status == 502
        level = "error" if status == 502 else "info"
        return (f'{{"ts":"{timestamp(rng)}","level":"{level}","msg":"request completed","method":"GET",'
                f'"path":"/v1/{slots["entities"]}/{rint(rng, 1, 99999)}","status":{status},'
                f'"duration_ms":{rint(rng, 3, 31000)},"request_id":"{hexid(rng, 16)}"}}\n')

    text = lines_until(size, line)
    return ("run_shell", {"command": f"kubectl logs deploy/{slots['entities']}-api --since=2h"}, text,
            f"{count} responses with status 502", "number",
            f"Two hours of logs contain {count} responses with status 502.")


def csv_dump(rng: random.Random, slots: dict, size: int) -> tuple:
    def line() -> str:
        return (f"{rint(rng, 10_000, 999_999)},{rint(rng, 1, 40)},{pick(rng, STATUSES)},{rint(rng, 100, 99_999)},"
                f"{pick(rng, ('EUR', 'USD', 'JPY'))},{timestamp(rng)}\n")

    path = f"data/raw/{slots['entities']}_2024-03-01.csv"
    text = "id,tenant_id,status,total_amount,currency,created_at\n" + lines_until(size, line)
    return ("run_shell", {"command": f"head -n 4000 {path}"}, text, "total_amount", "identifier",
            f"The raw export header now uses total_amount ({path}).")


LOG_GENERATORS = {"pytest_log": pytest_log, "go_test_log": go_test_log, "web_build_log": web_build_log,
                  "cargo_log": cargo_log, "npm_log": npm_log, "tf_plan": tf_plan, "app_log": app_log,
                  "csv_dump": csv_dump}
