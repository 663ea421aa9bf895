"""Fictional projects the synthetic coding agent works on.

A project is a bag of pools (names, file layouts, commands, dependencies); a
session draws one value from each pool into a flat ``slots`` dict that every
template in the corpus is filled from (see ``util.fill``).
"""

from __future__ import annotations

import random

from .util import fill, pick

ORGS = ("acme", "northwind", "initech", "globex", "hooli", "tidal-io", "bluefin", "kestrel-labs")

# (Entity, entity, entities, Entities)
BUSINESS = (
    ("Order", "order", "orders", "Orders"),
    ("Invoice", "invoice", "invoices", "Invoices"),
    ("Customer", "customer", "customers", "Customers"),
    ("Shipment", "shipment", "shipments", "Shipments"),
    ("Ticket", "ticket", "tickets", "Tickets"),
    ("Payment", "payment", "payments", "Payments"),
    ("Device", "device", "devices", "Devices"),
    ("Booking", "booking", "bookings", "Bookings"),
    ("Subscription", "subscription", "subscriptions", "Subscriptions"),
    ("Reading", "reading", "readings", "Readings"),
    ("Listing", "listing", "listings", "Listings"),
    ("Coupon", "coupon", "coupons", "Coupons"),
)
SYNTAX = (
    ("Table", "table", "tables", "Tables"),
    ("Statement", "statement", "statements", "Statements"),
    ("Heading", "heading", "headings", "Headings"),
    ("Expr", "expr", "exprs", "Exprs"),
    ("Array", "array", "arrays", "Arrays"),
    ("Block", "block", "blocks", "Blocks"),
)
SERVICES = (
    ("Orders", "orders", "orders", "Orders"),
    ("Billing", "billing", "billing", "Billing"),
    ("Search", "search", "search", "Search"),
    ("Checkout", "checkout", "checkout", "Checkout"),
    ("Notifications", "notifications", "notifications", "Notifications"),
)

PROJECTS: dict[str, dict] = {
    "flask-api": {
        "label": "Flask API",
        "code": "python",
        "names": ("ledgerly", "orderbook", "tallyhub", "parcelpost", "clinicq", "rentroll"),
        "entities": BUSINESS,
        "layouts": (
            {"path_main": "app/api/«entities».py", "path_svc": "app/services/«entity»_service.py",
             "path_repo": "app/repositories/«entity»_repository.py", "path_test": "tests/unit/test_«entity»_service.py",
             "path_cfg": "app/config.py", "dir": "app"},
            {"path_main": "src/«pkg»/routes/«entities».py", "path_svc": "src/«pkg»/services/«entities».py",
             "path_repo": "src/«pkg»/db/repository.py", "path_test": "tests/test_«entities»_api.py",
             "path_cfg": "src/«pkg»/settings.py", "dir": "src/«pkg»"},
        ),
        "idents": {"Repo": "«Entity»Repository", "fn": "get_«entity»", "Type": "«Entity»Schema",
                   "endpoint": ("POST /api/v1/«entities»", "GET /api/v2/«entities»/<int:«entity»_id>")},
        "test_cmd": ("pytest -x tests/unit", "pytest -q tests", "python -m pytest -x -q", "make test"),
        "lint_cmd": ("pylint app", "ruff check . && mypy app", "make lint"),
        "build_cmd": ("docker build -t «name»:dev .", "pip install -e '.[dev]'"),
        "libs": (("requests", "2.31.0", "2.32.3"), ("SQLAlchemy", "1.4.52", "2.0.30"),
                 ("Flask", "2.3.3", "3.0.3"), ("marshmallow", "3.19.0", "3.21.2")),
        "tasks": ("cache", "retry", "ratelimit", "pagination", "lint"),
        "failures": ("py_attr", "py_assert", "mypy", "py_import"),
        "big": ("pytest_log", "api_json", "api_min", "app_log", "lock_poetry"),
        "conventions": (
            "Python code follows PEP 8, is formatted with black (line length 100) and fully type-annotated.",
            "Views stay thin: business logic lives in the service layer, database access in repositories.",
            "Use the application logger (`logging.getLogger(__name__)`), never print().",
        ),
    },
    "data-pipeline": {
        "label": "data pipeline (pandas + Airflow)",
        "code": "python",
        "names": ("tidewatch", "meterflow", "salesetl", "geoharvest", "claimsync"),
        "entities": BUSINESS,
        "layouts": (
            {"path_main": "pipelines/«entities»/transform.py", "path_svc": "pipelines/«entities»/extract.py",
             "path_repo": "pipelines/common/io.py", "path_test": "tests/pipelines/test_«entities»_transform.py",
             "path_cfg": "config/pipeline.yaml", "dir": "pipelines"},
            {"path_main": "src/«pkg»/jobs/«entities»_daily.py", "path_svc": "src/«pkg»/sources/«entities»_api.py",
             "path_repo": "src/«pkg»/sinks/warehouse.py", "path_test": "tests/jobs/test_«entities»_daily.py",
             "path_cfg": "dags/«entities»_daily.py", "dir": "src/«pkg»"},
        ),
        "idents": {"Repo": "«Entity»Loader", "fn": "transform_«entities»", "Type": "«Entity»Record",
                   "endpoint": ("GET /v3/exports/«entities»", "GET /v1/«entities»/changes")},
        "test_cmd": ("pytest -x tests/pipelines", "tox -e py311", "make test", "pytest -x tests/jobs"),
        "lint_cmd": ("ruff check . && mypy src", "make lint"),
        "build_cmd": ("docker compose run --rm etl python -m «pkg».run --date 2024-03-01",),
        "libs": (("pandas", "1.5.3", "2.2.2"), ("pyarrow", "12.0.1", "16.1.0"), ("apache-airflow", "2.6.3", "2.9.1")),
        "tasks": ("oom", "retry", "schema", "cache"),
        "failures": ("py_key", "py_assert", "oom", "mypy", "py_timeout", "airflow_dag"),
        "big": ("pytest_log", "api_json", "api_min", "app_log", "csv_dump"),
        "conventions": (
            "Transforms are pure functions of DataFrames; I/O only happens in extract/load steps.",
            "Column names are snake_case; dtypes are declared explicitly when reading files.",
            "Every job must be idempotent for a given run date.",
        ),
    },
    "go-cli": {
        "label": "Go CLI",
        "code": "go",
        "names": ("logslice", "gopher-sync", "envcheck", "kubectx-lite", "shipctl"),
        "entities": BUSINESS,
        "layouts": (
            {"path_main": "cmd/«entities».go", "path_svc": "internal/«entity»/service.go",
             "path_repo": "internal/«entity»/store.go", "path_test": "internal/«entity»/service_test.go",
             "path_cfg": "internal/config/config.go", "dir": "internal"},
            {"path_main": "cmd/«name»/main.go", "path_svc": "pkg/«entities»/client.go",
             "path_repo": "pkg/«entities»/cache.go", "path_test": "pkg/«entities»/client_test.go",
             "path_cfg": "pkg/config/load.go", "dir": "pkg"},
        ),
        "idents": {"Repo": "«Entity»Store", "fn": "List«Entities»", "Type": "«Entity»Options",
                   "endpoint": ("«name» «entities» list --output json", "«name» «entity» get --id 42")},
        "test_cmd": ("go test ./...", "go test -race ./internal/...", "make test", "go test -count=1 ./pkg/..."),
        "lint_cmd": ("golangci-lint run", "go vet ./..."),
        "build_cmd": ("go build -o bin/«name» ./cmd/...", "goreleaser build --snapshot --clean"),
        "libs": (("github.com/spf13/cobra", "v1.7.0", "v1.8.0"), ("golang.org/x/sync", "v0.3.0", "v0.7.0"),
                 ("github.com/spf13/viper", "v1.16.0", "v1.18.2")),
        "tasks": ("jsonflag", "retry", "nilpanic", "cache"),
        "failures": ("go_test", "go_build", "go_panic", "go_vet"),
        "big": ("go_test_log", "api_json", "api_min", "lock_gosum"),
        "conventions": (
            "Go code is gofmt'ed and passes golangci-lint; errors are wrapped with fmt.Errorf(\"...: %w\", err).",
            "No package-level mutable state; pass dependencies explicitly.",
            "Table-driven tests for anything with more than two cases.",
        ),
    },
    "react-frontend": {
        "label": "React + TypeScript front-end",
        "code": "typescript",
        "names": ("atlas-dashboard", "shopfront", "notewise", "fleetview", "ticketdesk"),
        "entities": BUSINESS,
        "layouts": (
            {"path_main": "src/components/«Entity»Table.tsx", "path_svc": "src/api/«entities».ts",
             "path_repo": "src/hooks/use«Entities».ts", "path_test": "src/components/__tests__/«Entity»Table.test.tsx",
             "path_cfg": "vite.config.ts", "dir": "src"},
            {"path_main": "src/features/«entities»/«Entity»List.tsx", "path_svc": "src/features/«entities»/api.ts",
             "path_repo": "src/features/«entities»/store.ts", "path_test": "src/features/«entities»/«Entity»"
                                                                           "List.test.tsx",
             "path_cfg": "tsconfig.json", "dir": "src/features"},
        ),
        "idents": {"Repo": "«Entity»Table", "fn": "use«Entities»", "Type": "«Entity»Row",
                   "endpoint": ("GET /api/«entities»?page=1", "GET /api/«entities»/:id/comments")},
        "test_cmd": ("npm test -- --watchAll=false", "npx vitest run", "pnpm test"),
        "lint_cmd": ("npx tsc --noEmit", "npm run lint"),
        "build_cmd": ("npm run build",),
        "libs": (("react-router-dom", "6.14.2", "6.23.1"), ("typescript", "5.1.6", "5.4.5"),
                 ("vite", "4.4.9", "5.2.11")),
        "tasks": ("typefix", "xss", "pagination", "cache"),
        "failures": ("ts_tsc", "ts_jest", "ts_vite", "ts_hooks"),
        "big": ("web_build_log", "api_json", "api_min", "lock_npm", "bundle_html"),
        "conventions": (
            "Components are function components with typed props; no `any` (use `unknown` and narrow).",
            "Never render untrusted HTML without sanitizing it first.",
            "Data fetching goes through the hooks in src/hooks or the feature's api.ts, not inside components.",
        ),
    },
    "rust-parser": {
        "label": "Rust parser library",
        "code": "rust",
        "names": ("tomlette", "sqlparse-lite", "calc-lang", "mdlex", "confy"),
        "entities": SYNTAX,
        "layouts": (
            {"path_main": "src/parser.rs", "path_svc": "src/lexer.rs", "path_repo": "src/ast.rs",
             "path_test": "tests/parse_«entities».rs", "path_cfg": "Cargo.toml", "dir": "src"},
            {"path_main": "src/parse/«entity».rs", "path_svc": "src/lex.rs", "path_repo": "src/syntax/node.rs",
             "path_test": "tests/«entities».rs", "path_cfg": "Cargo.toml", "dir": "src"},
        ),
        "idents": {"Repo": "Parser", "fn": "parse_«entity»", "Type": "«Entity»Node",
                   "endpoint": ("«name»::parse_str", "«name»::Document::from_reader")},
        "test_cmd": ("cargo test", "cargo test --all-features", "cargo nextest run"),
        "lint_cmd": ("cargo clippy -- -D warnings", "cargo fmt --check"),
        "build_cmd": ("cargo build --release", "cargo bench --bench parse"),
        "libs": (("logos", "0.13.0", "0.14.0"), ("thiserror", "1.0.50", "1.0.61"), ("memchr", "2.6.4", "2.7.2")),
        "tasks": ("borrow", "lexperf", "recovery"),
        "failures": ("rust_borrow", "rust_types", "rust_test", "rust_clippy"),
        "big": ("cargo_log", "lock_cargo", "api_json"),
        "conventions": (
            "No `unwrap()` or `expect()` in library code; return `Result<_, ParseError>`.",
            "Keep `unsafe` out of the crate; run clippy with `-D warnings`.",
            "Every syntax node carries a `Span` so diagnostics can point at the source.",
        ),
    },
    "node-service": {
        "label": "Node.js Express service",
        "code": "javascript",
        "names": ("notify-gateway", "payments-hook", "media-proxy", "mailroom"),
        "entities": BUSINESS,
        "layouts": (
            {"path_main": "src/routes/«entities».js", "path_svc": "src/services/«entity»Service.js",
             "path_repo": "src/lib/httpClient.js", "path_test": "test/«entities».test.js",
             "path_cfg": "src/config.js", "dir": "src"},
            {"path_main": "src/handlers/«entity».mjs", "path_svc": "src/clients/«entities».mjs",
             "path_repo": "src/lib/queue.mjs", "path_test": "test/«entity».test.mjs",
             "path_cfg": "src/env.mjs", "dir": "src"},
        ),
        "idents": {"Repo": "«Entity»Service", "fn": "send«Entity»", "Type": "«Entity»Payload",
                   "endpoint": ("POST /webhooks/«entities»", "GET /v1/«entities»/:id")},
        "test_cmd": ("npm test", "npx jest --runInBand", "node --test test/"),
        "lint_cmd": ("npx eslint src", "npm run lint"),
        "build_cmd": ("docker build -t «name»:dev .", "npm ci --omit=dev"),
        "libs": (("node-fetch", "2.6.9", "3.3.2"), ("express", "4.18.2", "4.19.2"), ("pino", "8.14.1", "9.1.0")),
        "tasks": ("esm", "retry", "ratelimit", "cache"),
        "failures": ("node_module", "node_jest", "node_conn", "node_esm"),
        "big": ("npm_log", "api_json", "api_min", "lock_npm", "app_log"),
        "conventions": (
            "ES modules only; no new CommonJS files.",
            "Validate every request body with the zod schemas in src/schemas before using it.",
            "Log with pino (structured JSON); never log tokens or full card numbers.",
        ),
    },
    "infra": {
        "label": "Kubernetes + Terraform infrastructure repo",
        "code": "yaml",
        "names": ("platform-infra", "edge-cluster", "ops-stack"),
        "entities": SERVICES,
        "layouts": (
            {"path_main": "k8s/«entities»-api/deployment.yaml", "path_svc": "k8s/«entities»-api/ingress.yaml",
             "path_repo": "terraform/modules/«entities»/main.tf", "path_test": "tests/policies/«entities»_test.rego",
             "path_cfg": "helm/«entities»-api/values.yaml", "dir": "k8s"},
        ),
        "idents": {"Repo": "deployment/«entities»-api", "fn": "«entities»-api", "Type": "HorizontalPodAutoscaler",
                   "endpoint": ("https://«entities».internal.«org».net/healthz", "https://api.«org».net/«entities»"
                                                                                 "/v1")},
        "test_cmd": ("make validate", "kubeconform -strict -summary k8s/", "conftest test k8s/"),
        "lint_cmd": ("tflint --recursive", "helm lint helm/«entities»-api"),
        "build_cmd": ("terraform plan -out=tfplan", "helm template «entities»-api helm/«entities»-api"),
        "libs": (("hashicorp/aws", "5.31.0", "5.50.0"), ("ingress-nginx", "4.7.1", "4.10.1")),
        "tasks": ("oomk8s", "gateway"),
        "failures": ("k8s_oom", "http502", "tf_error", "helm_yaml"),
        "big": ("tf_plan", "k8s_json", "app_log"),
        "conventions": (
            "All changes go through Terraform or the manifests in k8s/; never `kubectl edit` in production.",
            "Resource requests and limits are mandatory on every container.",
            "Secrets come from External Secrets; never put a secret value in a manifest.",
        ),
    },
}

PROJECT_KEYS = tuple(PROJECTS)


def make_slots(rng: random.Random, key: str) -> dict[str, str]:
    """Draw the concrete names of one session's project.

    Args:
        rng: The session's random stream.
        key: A key of ``PROJECTS``.

    Returns:
        A flat slot dict (project name, entity names, paths, identifiers, commands,
        dependency versions) used to fill every template of the session.
    """
    spec = PROJECTS[key]
    name = pick(rng, spec["names"])
    entity, entity_l, entities, entities_c = pick(rng, spec["entities"])
    lib, v_old, v_new = pick(rng, spec["libs"])
    slots: dict[str, str] = {
        "name": name, "pkg": name.replace("-", "_"), "org": pick(rng, ORGS), "label": spec["label"],
        "Entity": entity, "entity": entity_l, "entities": entities, "Entities": entities_c,
        "lib": lib, "v_old": v_old, "v_new": v_new, "cov": str(pick(rng, (75, 80, 85, 90))),
        "FLAG": f"{entities.upper()}_{pick(rng, ('V2', 'NEW_FLOW', 'ROLLOUT', 'FASTPATH'))}",
    }
    # Paths may mention the package and entity, identifiers may mention the
    # project name, so fill them in dependency order.
    for slot, template in pick(rng, spec["layouts"]).items():
        slots[slot] = fill(template, slots)
    for slot, value in spec["idents"].items():
        slots[slot] = fill(pick(rng, value) if isinstance(value, tuple) else value, slots)
    for slot in ("test_cmd", "lint_cmd", "build_cmd"):
        slots[slot] = fill(pick(rng, spec[slot]), slots)
    return slots
