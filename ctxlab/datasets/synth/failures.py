"""Failing command outputs: tracebacks, compiler errors, OOM kills, 502s.

``failure(rng, key, slots, size)`` returns the tool output plus what the agent
says about it: the error code (verbatim in the output), the file it points at,
and a one-line explanation per language.
"""

from __future__ import annotations

import random

from .failures_more import MORE_FAILURES
from .runner import progress_lines
from .util import fill, hexid, rint

# key -> optional own command (else the test command), error code, its fact kind, the slot of the file it
# points at, the output template and a one-line explanation per language.
_FAILURES: dict[str, dict] = {
    "py_attr": {
        "code": "AttributeError", "kind": "error_code", "where": "path_svc",
        "out": ("    def cancel(self, «entity»_id: int, reason: str) -> None:\n        «entity» = "
                "self._repo.get_«entity»(«entity»_id)\n>       if «entity».tenant_id != self._tenant_id:\nE       "
                "AttributeError: 'NoneType' object has no attribute 'tenant_id'\n\n«path_svc»:«line»: "
                "AttributeError\n"),
        "explain": {"en": "`get_«entity»` returns None for a missing id and the service dereferences it "
                          "unconditionally.",
                    "zh": "id 不存在时 `get_«entity»` 返回 None，而 service 没有判空就直接用了。",
                    "ja": "存在しない id に対して `get_«entity»` が None を返し、service が無条件に参照している。"},
    },
    "py_key": {
        "code": "KeyError", "kind": "error_code", "where": "path_main",
        "out": ("    def «fn»(df: pd.DataFrame) -> pd.DataFrame:\n        out = df.drop_duplicates(subset=[\"id\"], "
                "keep=\"last\").copy()\n>       out[\"total\"] = out[\"«entity»_total\"].astype(\"int64\") / "
                "100\n\n.venv/lib/python3.11/site-packages/pandas/core/frame.py:4102: in __getitem__\n    indexer = "
                "self.columns.get_loc(key)\nE   KeyError: '«entity»_total'\n\n«path_main»:«line»: KeyError\n"),
        "explain": {"en": "the fixture still has the old column name, but the new export calls it `total_amount`.",
                    "zh": "测试数据还是旧列名，新的导出里这一列叫 `total_amount`。",
                    "ja": "フィクスチャは旧列名のままだが、新しいエクスポートでは `total_amount` になっている。"},
    },
    "py_assert": {
        "code": "AssertionError", "kind": "error_code", "where": "path_test",
        "out": ("    def test_create_«entity»_returns_201(client, auth_headers):\n"
                "        resp = client.post(\"/api/v1/«entities»\", json={\"total_cents\": 1999}, "
                "headers=auth_headers)\n>       assert resp.status_code == 201\nE       AssertionError: assert 500 == "
                "201\nE        +  where 500 = <WrapperTestResponse streamed [500 INTERNAL SERVER "
                "ERROR]>.status_code\n\n«path_test»:«line»: AssertionError\n------------------------------ Captured "
                "log call ------------------------------\nERROR    «pkg».app:app.py:1414 Exception on "
                "/api/v1/«entities» [POST]\n"),
        "explain": {"en": "the handler returns 500 because the new code path is not wired into the app factory yet.",
                    "zh": "handler 返回 500，因为新代码路径还没有在 app factory 里注册。",
                    "ja": "新しいコードパスが app factory にまだ登録されておらず、ハンドラが 500 を返している。"},
    },
    "pylint": {
        "cmd": "«lint_cmd»",
        "code": "E1101", "kind": "error_code", "where": "path_svc",
        "out": ("************* Module «pkg».services\n«path_svc»:«line»:8: E1101: Instance of '«Type»' has no 'status' "
                "member (no-member)\n«path_svc»:«line2»:15: E1101: Instance of '«Type»' has no 'total_cents' member "
                "(no-member)\n«path_main»:12:0: E0611: No name 'Retry' in module 'urllib3.util' "
                "(no-name-in-module)\n«path_repo»:88:4: W0212: Access to a protected member _session of a client class "
                "(protected-access)\n\n------------------------------------------------------------------\nYour code "
                "has been rated at 6.84/10 (previous run: 9.71/10, -2.87)\n"),
        "explain": {"en": "pylint cannot see attributes that `«Type»` creates dynamically with setattr.",
                    "zh": "`«Type»` 的属性是用 setattr 动态创建的，pylint 看不到。",
                    "ja": "`«Type»` が setattr で動的に作る属性を pylint が認識できない。"},
    },
    "mypy": {
        "cmd": "mypy «dir» --strict",
        "code": "arg-type", "kind": "error_code", "where": "path_main",
        "out": ("«path_main»:«line»: error: Argument 1 to \"«fn»\" has incompatible type \"str | None\"; expected "
                "\"str\"  [arg-type]\n«path_svc»:«line2»: error: Item \"None\" of \"«Entity» | None\" has no attribute "
                "\"status\"  [union-attr]\n«path_repo»:41: note: Revealed type is "
                "\"builtins.list[«pkg».models.«Entity»]\"\nFound 2 errors in 2 files (checked 87 source files)\n"),
        "explain": {"en": "the optional value from the request is passed on without a None check.",
                    "zh": "请求里的可选值没有判空就传下去了。",
                    "ja": "リクエストの省略可能な値を None チェックせずに渡している。"},
    },
    "oom": {
        "cmd": "airflow tasks test «entities»_daily «fn» 2024-03-01",
        "code": "exit code 137", "kind": "error_code", "where": "path_main",
        "out": ("[2024-03-02, 02:14:07 UTC] {taskinstance.py:1138} INFO - Executing <Task(PythonOperator): «fn»> on "
                "2024-03-01\n[2024-03-02, 02:31:55 UTC] {subprocess.py:93} INFO - Reading «entities»_2024-03-01.csv "
                "(7.9 GiB)\n[2024-03-02, 02:38:12 UTC] {local_task_job_runner.py:234} INFO - Task exited with return "
                "code -9\n[2024-03-02, 02:38:12 UTC] {taskinstance.py:1400} ERROR - Task failed: container «name»-etl "
                "terminated (OOMKilled), exit code 137\nmemory.max_usage_in_bytes 4294963200\n"),
        "explain": {"en": "`«fn»` loads the whole CSV into one DataFrame and the peak is about 2.5x the file size.",
                    "zh": "`«fn»` 把整个 CSV 读进一个 DataFrame，峰值大约是文件大小的 2.5 倍。",
                    "ja": "`«fn»` が CSV 全体を1つの DataFrame に読み込み、ピークはファイルサイズの約2.5倍になる。"},
    },
    "go_test": {
        "code": "TestList«Entities»/bad_gateway", "kind": "identifier", "where": "path_test",
        "out": ("=== RUN   TestList«Entities»\n=== RUN   TestList«Entities»/ok\n=== RUN   "
                "TestList«Entities»/bad_gateway\n    «file_test»:«line»: err = <nil>, wantErr true\n--- FAIL: "
                "TestList«Entities» (0.01s)\n    --- PASS: TestList«Entities»/ok (0.00s)\n    --- FAIL: "
                "TestList«Entities»/bad_gateway "
                "(0.00s)\nFAIL\nFAIL\tgithub.com/«org»/«name»/«dir»/«entity»\t0.«line»s\nFAIL\n"),
        "explain": {"en": "a 502 response is decoded as an empty list instead of being returned as an error.",
                    "zh": "502 响应被当成空列表解析了，而不是作为错误返回。",
                    "ja": "502 のレスポンスがエラーではなく空のリストとしてデコードされている。"},
    },
    "go_build": {
        "cmd": "go build ./...",
        "code": "undefined: retry.Do", "kind": "error_code", "where": "path_svc",
        "out": ("# github.com/«org»/«name»/«dir»/«entity»\n«path_svc»:«line»:12: undefined: retry.Do\n"
                "«path_svc»:«line2»:3: declared and not used: backoff\nnote: module requires Go 1.22\n"),
        "explain": {"en": "the retry helper package isn't imported yet and a leftover variable trips the compiler.",
                    "zh": "还没有 import retry 包，另外有个遗留变量没用上。",
                    "ja": "retry パッケージがまだ import されておらず、未使用の変数も残っている。"},
    },
    "go_panic": {
        "code": "nil pointer dereference", "kind": "error_code", "where": "path_svc",
        "out": ("panic: runtime error: invalid memory address or nil pointer dereference\n"
                "[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x6f3a2c]\n\ngoroutine 1 "
                "[running]:\ngithub.com/«org»/«name»/«dir»/«entity».(*Service).List(0x0, {0x8b2f40, "
                "0xc000124000})\n\t/src/«path_svc»:«line» "
                "+0x2c\ngithub.com/«org»/«name»/cmd.newListCmd.func1(0xc0001b2300, {0xc000012345, 0x0, "
                "0x2})\n\t/src/«path_main»:57 +0x95\ngithub.com/spf13/cobra.(*Command).execute(0xc0001b2300, "
                "{0xc000012340, 0x2, 0x2})\n\t/go/pkg/mod/github.com/spf13/cobra@v1.7.0/command.go:940 +0x862\nexit "
                "status 2\n"),
        "explain": {"en": "`Config.«Entities»()` returns nil when the section is absent and the service is built from "
                          "it.",
                    "zh": "段落不存在时 `Config.«Entities»()` 返回 nil，service 却直接用它构造。",
                    "ja": "セクションがないと `Config.«Entities»()` が nil を返し、それで service を作っている。"},
    },
    "ts_tsc": {
        "cmd": "npx tsc --noEmit -p .",
        "code": "TS2345", "kind": "error_code", "where": "path_main",
        "out": ("«path_main»(«line»,17): error TS2345: Argument of type '«Type» | undefined' is not assignable to "
                "parameter of type '«Type»'.\n  Type 'undefined' is not assignable to type "
                "'«Type»'.\n«path_svc»(«line2»,9): error TS2339: Property 'nextCursor' does not exist on type '{ "
                "items: «Type»[]; total: number; }'.\n«path_repo»(12,40): error TS7006: Parameter 'row' implicitly has "
                "an 'any' type.\n\nFound 3 errors in 3 files.\n"),
        "explain": {"en": "`rows.find` can return undefined and the upgraded types no longer let that through.",
                    "zh": "`rows.find` 可能返回 undefined，升级后的类型定义不再放行。",
                    "ja": "`rows.find` は undefined を返しうるが、更新後の型定義ではそれが通らなくなった。"},
    },
    "ts_jest": {
        "code": "AssertionError", "kind": "error_code", "where": "path_test",
        "out": (" FAIL  «path_test» > «Repo» > does not execute HTML from comments\n"
                "AssertionError: expected <img src=\"x\" onerror=\"alert(1)\"> to be null\n ❯ «path_test»:«line»:52\n  "
                "  «line2»|     render(<CommentBody comment={{ id: 'c1', body: evil }} />);\n       |                  "
                "                                  ^\n\n Test Files  1 failed | 17 passed (18)\n      Tests  1 failed "
                "| 142 passed (143)\n"),
        "explain": {"en": "the comment body is injected with dangerouslySetInnerHTML without sanitizing.",
                    "zh": "评论内容没有过滤就通过 dangerouslySetInnerHTML 注入了。",
                    "ja": "コメント本文がサニタイズされずに dangerouslySetInnerHTML で挿入されている。"},
    },
    "rust_borrow": {
        "cmd": "cargo build",
        "code": "E0502", "kind": "error_code", "where": "path_main",
        "out": ("error[E0502]: cannot borrow `*self` as mutable because it is also borrowed as immutable\n"
                "   --> «path_main»:«line»:13\n    |\n«line» |         let tok = self.peek();\n    |                   "
                "---- immutable borrow occurs here\n«line2» |         self.advance();\n    |         ^^^^^^^^^^^^^^ "
                "mutable borrow occurs here\n    |         match tok.kind {\n    |               -------- immutable "
                "borrow later used here\n\nFor more information about this error, try `rustc --explain E0502`.\nerror: "
                "could not compile `«name»` (lib) due to 1 previous error\n"),
        "explain": {"en": "`peek()` hands out a reference into `self.lookahead` that is still alive when `advance()` "
                          "needs `&mut self`.",
                    "zh": "`peek()` 返回的是 `self.lookahead` 的引用，`advance()` 需要 `&mut self` 时它还活着。",
                    "ja": "`peek()` が返す `self.lookahead` への参照が、`advance()` が `&mut self` を必要とする時点でまだ生きている。"},
    },
    "rust_types": {
        "cmd": "cargo check --all-targets",
        "code": "E0308", "kind": "error_code", "where": "path_svc",
        "out": ("error[E0308]: mismatched types\n   --> «path_svc»:«line»:24\n    |\n"
                "«line» |         Some(b'\"') => self.lex_string(start),\n    |                        "
                "^^^^^^^^^^^^^^^^^^^^^^ expected `Token<'_>`, found `Result<Token<'_>, LexError>`\n    |\n    = note: "
                "expected struct `Token<'_>`\n                 found enum `Result<Token<'_>, LexError>`\nhelp: "
                "consider using `?` to propagate the error\n\nerror: could not compile `«name»` (lib) due to 1 "
                "previous error\n"),
        "explain": {"en": "the new string lexer is fallible but the match arm still expects a plain token.",
                    "zh": "新的字符串词法函数会返回错误，但 match 分支还期望普通 token。",
                    "ja": "新しい文字列レキサは失敗しうるのに、match のアームは素のトークンを期待している。"},
    },
    "rust_test": {
        "code": "tests::reports_unterminated_string", "kind": "identifier", "where": "path_main",
        "out": ("running 24 tests\ntest tests::parses_nested_«entities» ... ok\ntest "
                "tests::reports_unterminated_string ... FAILED\n\nfailures:\n\n---- tests::reports_unterminated_string "
                "stdout ----\nthread 'tests::reports_unterminated_string' panicked at «path_main»:«line»:9:\nassertion "
                "`left == right` failed\n  left: Span { start: 8, end: 14 }\n right: Span { start: 8, end: 13 "
                "}\n\ntest result: FAILED. 23 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in "
                "0.04s\n"),
        "explain": {"en": "the recovery path consumes the newline, so the error span is one byte too long.",
                    "zh": "恢复逻辑把换行也吃掉了，错误的 span 多了一个字节。",
                    "ja": "回復処理が改行まで消費しており、エラーの span が1バイト長い。"},
    },
    "node_module": {
        "cmd": "node «path_main»",
        "code": "ERR_MODULE_NOT_FOUND", "kind": "error_code", "where": "path_main",
        "out": ("node:internal/errors:496\n    ErrorCaptureStackTrace(err);\n    ^\n\n"
                "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/app/src/config' imported from "
                "/app/«path_main»\nDid you mean to import \"./config.js\"?\n    at finalizeResolution "
                "(node:internal/modules/esm/resolve:264:11)\n    at moduleResolve "
                "(node:internal/modules/esm/resolve:917:10)\n  code: 'ERR_MODULE_NOT_FOUND',\n  url: "
                "'file:///app/src/config'\n}\n\nNode.js v20.11.1\n"),
        "explain": {"en": "ESM imports need explicit file extensions, so `./config` no longer resolves.",
                    "zh": "ESM 的 import 必须写明扩展名，`./config` 已经解析不到了。",
                    "ja": "ESM の import には拡張子が必要なため、`./config` が解決できなくなった。"},
    },
    "node_jest": {
        "code": "TypeError", "kind": "error_code", "where": "path_svc",
        "out": ("  ● POST /webhooks/«entities» › accepts a valid payload\n\n    expect(received).toBe(expected) // "
                "Object.is equality\n\n    Expected: 202\n    Received: 500\n\n    TypeError: Cannot read properties "
                "of undefined (reading 'id')\n      at «Repo».handle («path_svc»:«line»:31)\n\nTests:       1 failed, "
                "63 passed, 64 total\n"),
        "explain": {"en": "the service reads `payload.data.id` but the schema strips unknown keys before it gets "
                          "there.",
                    "zh": "service 读取了 `payload.data.id`，但 schema 在这之前就把未知字段去掉了。",
                    "ja": "service が `payload.data.id` を読んでいるが、その前にスキーマが未知のキーを除去している。"},
    },
    "node_conn": {
        "code": "ECONNREFUSED", "kind": "error_code", "where": "path_cfg",
        "out": ("Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect [as oncomplete] "
                "(node:net:1595:16) {\n  errno: -111,\n  code: 'ECONNREFUSED',\n  syscall: 'connect',\n  address: "
                "'127.0.0.1',\n  port: 5432\n}\nnpm ERR! Test failed.  See above for more details.\n"),
        "explain": {"en": "the tests expect a local Postgres; `«path_cfg»` ignores DATABASE_URL from the test env.",
                    "zh": "测试需要本地 Postgres，而 `«path_cfg»` 没有读取测试环境里的 DATABASE_URL。",
                    "ja": "テストはローカルの Postgres を前提にしているが、`«path_cfg»` がテスト環境の DATABASE_URL を読んでいない。"},
    },
    "k8s_oom": {
        "cmd": "kubectl describe pod -n «entities» -l app.kubernetes.io/name=«entities»-api",
        "code": "exit code 137", "kind": "error_code", "where": "path_main",
        "out": ("Name:             «entities»-api-7d9f8c6b5-«pod»\nNamespace:        «entities»\nStatus:           "
                "Running\nContainers:\n  api:\n    State:          Running\n      Started:      Sat, 02 Mar 2024 "
                "09:41:12 +0000\n    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    "
                "137\n    Ready:          True\n    Restart Count:  «line»\n    Limits:\n      memory:  "
                "256Mi\nEvents:\n  Warning  BackOff  3m (x«line2» over 2h)  kubelet  Back-off restarting failed "
                "container api\n  Normal   Killing  41m                 kubelet  Container api terminated with exit "
                "code 137 (OOMKilled)\n"),
        "explain": {"en": "the container limit in `«path_main»` is far below the working set at peak traffic.",
                    "zh": "`«path_main»` 里的内存上限远低于高峰时的实际占用。",
                    "ja": "`«path_main»` のメモリ上限がピーク時のワーキングセットを大きく下回っている。"},
    },
    "http502": {
        "cmd": "curl -sS -i «endpoint_url»",
        "code": "502 Bad Gateway", "kind": "error_code", "where": "path_svc",
        "out": ("HTTP/2 502\ndate: Sat, 02 Mar 2024 10:12:44 GMT\ncontent-type: text/html\n"
                "x-request-id: «req»\n\n<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<center><h1>502 "
                "Bad Gateway</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>\nupstream prematurely closed "
                "connection while reading response header from upstream, request: \"GET /«entities»\", upstream: "
                "\"http://10.42.«line».17:8080/«entities»\"\n"),
        "explain": {"en": "the upstream closes the connection while the proxy is still waiting, so the proxy answers "
                          "502.",
                    "zh": "代理还在等的时候上游就断开了连接，所以代理返回了 502。",
                    "ja": "プロキシが待っている間に上流が接続を閉じ、プロキシが 502 を返している。"},
    },
    "tf_error": {
        "code": "InvalidParameterCombination", "kind": "error_code", "where": "path_repo",
        "out": ("aws_db_instance.«entities»: Modifying... [id=«entities»-prod]\n╷\n"
                "│ Error: updating RDS DB Instance («entities»-prod): InvalidParameterCombination: Cannot upgrade "
                "postgres from 14.10 to 15.5 without apply_immediately or a maintenance window\n│ \tstatus code: 400, "
                "request id: «req»\n│ \n│   with aws_db_instance.«entities»,\n│   on «path_repo» line «line», in "
                "resource \"aws_db_instance\" \"«entities»\":\n╵\n"),
        "explain": {"en": "a major engine upgrade slipped into the plan along with the change we actually wanted.",
                    "zh": "计划里混进了一次数据库大版本升级，而这不是我们要改的。",
                    "ja": "本来の変更と一緒にエンジンのメジャーアップグレードがプランに紛れ込んでいる。"},
    },
}

_FAILURES.update(MORE_FAILURES)

def failure(rng: random.Random, key: str, code_lang: str, slots: dict[str, str], size: int) -> dict:
    """Render failing output ``key`` padded with passing progress up to ``size`` characters.

    Returns:
        ``{"text", "cmd", "code", "kind", "where", "explain"}``: the output, the
        command that produced it, the error code (verbatim in ``text``), its fact
        kind, the file it points at and a per-language explanation.
    """
    spec = _FAILURES[key]
    local = dict(slots, line=str(rint(rng, 20, 240)), line2=str(rint(rng, 241, 480)), req=hexid(rng, 16),
                 pod=hexid(rng, 5), file_test=slots["path_test"].rsplit("/", 1)[-1],
                 endpoint_url=f"https://{slots['entities']}.internal.{slots['org']}.net/v1/{slots['entities']}")
    body = fill(spec["out"], local)
    cmd = fill(spec["cmd"], local) if "cmd" in spec else slots["test_cmd"]
    # Only a test runner prints passing tests before the failure.
    padded = "cmd" not in spec and size > len(body) + 200
    pad = progress_lines(rng, code_lang, slots, size - len(body)) if padded else ""
    return {"text": pad + body, "cmd": cmd, "code": fill(spec["code"], local), "kind": spec["kind"],
            "where": slots[spec["where"]], "explain": {k: fill(v, local) for k, v in spec["explain"].items()}}
