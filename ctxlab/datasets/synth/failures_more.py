"""More failing outputs, so one session rarely hits the same error twice.

Same structure as ``failures._FAILURES`` (merged into it there).
"""

from __future__ import annotations

MORE_FAILURES: dict[str, dict] = {
    "py_import": {
        "code": "ImportError", "kind": "error_code", "where": "path_svc",
        "out": ("ImportError while importing test module '/src/«path_test»'.\nHint: make sure your test "
                "modules/packages have valid Python names.\nTraceback:\n«path_test»:3: in <module>\n    from "
                "«pkg».services import «Entity»Service\n«path_svc»:«line»: in <module>\n    from «pkg».api import "
                "current_tenant\nE   ImportError: cannot import name 'current_tenant' from partially initialized "
                "module '«pkg».api' (most likely due to a circular import)\n"),
        "explain": {"en": "the service now imports from the API package, which imports the service back (a circular "
                          "import).",
                    "zh": "service 现在从 api 包导入，而 api 又反过来导入 service，形成了循环导入。",
                    "ja": "service が api パッケージを import し、api が service を import し返す循環 import になっている。"},
    },
    "py_timeout": {
        "code": "ReadTimeout", "kind": "error_code", "where": "path_svc",
        "out": ("«path_svc»:«line»: in fetch_«entities»\n    resp = client.get(\"/v3/exports/«entities»\", "
                "params=params, timeout=30.0)\nE   httpx.ReadTimeout: The read operation timed out\n\n---------- "
                "Captured log call ----------\nWARNING  «pkg».sources:«entities»_api.py:«line2» upstream slow: 30012 "
                "ms for page 17\n"),
        "explain": {"en": "one export page takes just over 30 seconds and the client gives up instead of retrying.",
                    "zh": "有一页导出耗时刚好超过 30 秒，客户端直接放弃而没有重试。",
                    "ja": "エクスポートの1ページが30秒をわずかに超え、クライアントがリトライせずに諦めている。"},
    },
    "airflow_dag": {
        "cmd": "airflow dags list-import-errors",
        "code": "Broken DAG", "kind": "error_code", "where": "path_cfg",
        "out": ("filepath                       | "
                "error\n===============================+=======================================\n/opt/airflow/«"
                "path_cfg» | Broken DAG: [/opt/airflow/«path_cfg»] Traceback (most recent call last):\n                "
                "               |   File \"<frozen importlib._bootstrap>\", line 241\n                               | "
                "ModuleNotFoundError: No module named '«pkg».jobs.«entities»_daily_v2'\n"),
        "explain": {"en": "the DAG still imports the module name from before the rename.",
                    "zh": "DAG 里还在导入改名之前的模块。",
                    "ja": "DAG がリネーム前のモジュール名を import したままになっている。"},
    },
    "go_vet": {
        "cmd": "go vet ./...",
        "code": "printf", "kind": "error_code", "where": "path_main",
        "out": ("# github.com/«org»/«name»/cmd\n«path_main»:«line»:3: printf: fmt.Fprintf format %d has arg item.Name "
                "of wrong type string\n«path_main»:«line2»:2: unreachable: unreachable code\n"),
        "explain": {"en": "the format verbs no longer match the struct fields after the column reorder.",
                    "zh": "调整列顺序之后，格式化动词和结构体字段对不上了。",
                    "ja": "列の並び替え後、書式指定子と構造体のフィールドが一致していない。"},
    },
    "ts_vite": {
        "cmd": "npm run build",
        "code": "Could not resolve", "kind": "error_code", "where": "path_repo",
        "out": ("vite v5.2.11 building for production...\ntransforming (412) src/features/...\n✓ 611 modules "
                "transformed.\nx Build failed in 4.91s\nerror during build:\n[vite]: Rollup failed to resolve import "
                "\"@/api/«entities»\" from \"/app/«path_repo»\".\nCould not resolve \"@/api/«entities»\" from "
                "\"«path_repo»\"\n"),
        "explain": {"en": "the `@/` alias exists in tsconfig.json but not in the Vite config.",
                    "zh": "`@/` 别名只在 tsconfig.json 里配置了，Vite 配置里没有。",
                    "ja": "`@/` エイリアスが tsconfig.json にはあるが Vite の設定にない。"},
    },
    "ts_hooks": {
        "cmd": "npm run lint",
        "code": "react-hooks/exhaustive-deps", "kind": "error_code", "where": "path_repo",
        "out": ("\n/app/«path_repo»\n  «line»:6  error  React Hook useMemo has a missing dependency: 'pageSize'. "
                "Either include it or remove the dependency array  react-hooks/exhaustive-deps\n\n✖ 1 problem (1 "
                "error, 0 warnings)\n"),
        "explain": {"en": "`pageSize` is used inside the memo but missing from its dependency list.",
                    "zh": "`pageSize` 在 memo 里用到了，但没有写进依赖数组。",
                    "ja": "`pageSize` が memo の中で使われているのに依存配列に入っていない。"},
    },
    "node_esm": {
        "cmd": "npm start",
        "code": "ERR_REQUIRE_ESM", "kind": "error_code", "where": "path_svc",
        "out": ("/app/«path_svc»:«line»\nconst fetch = require('node-fetch');\n              ^\n\n"
                "Error [ERR_REQUIRE_ESM]: require() of ES Module /app/node_modules/node-fetch/src/index.js from "
                "/app/«path_svc» not supported.\nInstead change the require of index.js to a dynamic import() which is "
                "available in all CommonJS modules.\n    at Object.<anonymous> (/app/«path_svc»:«line»:15) {\n  code: "
                "'ERR_REQUIRE_ESM'\n}\n"),
        "explain": {"en": "node-fetch 3 is ESM-only, so `require()` no longer works in this CommonJS file.",
                    "zh": "node-fetch 3 只支持 ESM，这个 CommonJS 文件里的 `require()` 不能用了。",
                    "ja": "node-fetch 3 は ESM 専用なので、この CommonJS ファイルの `require()` が使えない。"},
    },
    "rust_clippy": {
        "cmd": "cargo clippy -- -D warnings",
        "code": "clippy::needless_borrow", "kind": "error_code", "where": "path_svc",
        "out": ("error: the borrowed expression implements the required traits\n   --> «path_svc»:«line»:31\n    |\n"
                "«line» |         let n = memchr(b'\"', &rest[1..]).map(|i| i + 1);\n    |                             "
                "  ^^^^^^^^^^^ help: change this to: `rest[1..]`\n    |\n    = note: `-D clippy::needless-borrow` "
                "implied by `-D warnings`\nerror: could not compile `«name»` (lib) due to 1 previous error\n"),
        "explain": {"en": "a redundant `&` that clippy rejects because warnings are errors in CI.",
                    "zh": "多了一个 `&`，CI 里 warning 视为错误，所以 clippy 不通过。",
                    "ja": "余分な `&` があり、CI では警告がエラー扱いなので clippy が通らない。"},
    },
    "helm_yaml": {
        "cmd": "helm lint helm/«entities»-api",
        "code": "error converting YAML to JSON", "kind": "error_code", "where": "path_cfg",
        "out": ("==> Linting helm/«entities»-api\n[ERROR] values.yaml: unable to parse YAML: error converting YAML to "
                "JSON: yaml: line «line»: did not find expected key\n\nError: 1 chart(s) linted, 1 chart(s) failed\n"),
        "explain": {"en": "the new `env` block in values.yaml is indented one level too deep.",
                    "zh": "values.yaml 里新加的 `env` 块多缩进了一级。",
                    "ja": "values.yaml に追加した `env` ブロックのインデントが1段深い。"},
    },
}
