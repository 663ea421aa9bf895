"""Task stories for the Go CLI, the React front-end and the Rust parser.

Same structure as ``tasks_backend`` (see its docstring).
"""

from __future__ import annotations

TASKS_TOOLING: dict[str, dict] = {
    "jsonflag": {
        "numbers": {"n": (2, 3)},
        "goal_sum": "Add machine-readable JSON output to the «name» «entities» commands.",
        "goal": {
            "en": ("Add an `--output json` flag to `«endpoint»` so scripts stop parsing the table output. The "
                   "command lives in ⟦path:«path_main»⟧.",),
            "zh": ("给 `«endpoint»` 加一个 `--output json` 参数，这样脚本就不用再解析表格输出了。命令在 ⟦path:«path_main»⟧。",),
            "ja": ("`«endpoint»` に `--output json` フラグを追加して、スクリプトが表形式の出力をパースしなくて済むようにしてください。"
                   "コマンドは ⟦path:«path_main»⟧ にあります。",),
        },
        "constraints": (
            {"en": "The default must stay ⟦identifier:--output table⟧ so existing users see no change.",
             "zh": "默认值必须保持 ⟦identifier:--output table⟧，现有用户不受影响。",
             "ja": "既存ユーザーに影響しないよう、デフォルトは ⟦identifier:--output table⟧ のままにしてください。",
             "sum": "default stays --output table"},
            {"en": "Exit with ⟦number:exit code «n»⟧ on usage errors, like the other subcommands.",
             "zh": "参数错误时和其他子命令一样以 ⟦number:exit code «n»⟧ 退出。",
             "ja": "使い方の誤りでは他のサブコマンドと同じく ⟦number:exit code «n»⟧ で終了してください。",
             "sum": "usage errors exit with exit code «n»"},
        ),
        "decision": ("emit NDJSON, one object per line, when --output=json", {
            "en": "it streams, and jq handles it line by line even for very long listings",
            "zh": "NDJSON 可以流式输出，列表再长 jq 也能逐行处理",
            "ja": "ストリーミングでき、長い一覧でも jq が行単位で処理できる"}),
        "change": {
            "user": {"en": "Our dashboard importer only takes a single JSON array, sorry. Please make "
                           "⟦identifier:--output json⟧ print one array and add `--output ndjson` for streaming.",
                     "zh": "抱歉，我们的看板导入器只接受单个 JSON 数组。请让 ⟦identifier:--output json⟧ 输出一个数组，另外加 `--output ndjson` 用于流式。",
                     "ja": "すみません、ダッシュボードの取り込みは JSON 配列しか受け付けません。⟦identifier:--output json⟧ は配列を出力し、"
                           "ストリーミング用に `--output ndjson` を追加してください。"},
            "decision": ("a JSON array for --output=json and NDJSON for --output=ndjson", {
                "en": "the importer needs one document, scripts that stream can opt into NDJSON",
                "zh": "导入器需要单个文档，需要流式的脚本可以改用 NDJSON",
                "ja": "取り込み側は単一のドキュメントが必要で、ストリーミングしたいスクリプトは NDJSON を選べる"}),
        },
        "failure": None,
        "next": ("Document the output formats in the README and `--help` text.",),
        "patch": {
            "go": ("\tfor _, item := range items {\n\t\tfmt.Fprintf(w, \"%d\\t%s\\t%s\\n\", item.ID, item.Name, "
                   "item.Status)\n\t}\n",
                   "\tswitch opts.Output {\n\tcase \"json\":\n\t\tenc := json.NewEncoder(cmd.OutOrStdout())\n"
                   "\t\tfor _, item := range items {\n\t\t\tif err := enc.Encode(item); err != nil {\n"
                   "\t\t\t\treturn fmt.Errorf(\"encode «entity» %d: %w\", item.ID, err)\n\t\t\t}\n\t\t}\n"
                   "\tcase \"table\", \"\":\n\t\treturn printTable(cmd.OutOrStdout(), items)\n"
                   "\tdefault:\n\t\treturn usageError(\"unknown --output %q\", opts.Output)\n\t}\n"),
        },
    },
    "nilpanic": {
        "numbers": {"n": (3, 5, 10)},
        "goal_sum": "Fix the nil pointer panic in «Repo» when the config has no «entities» section.",
        "goal": {
            "en": ("`«endpoint»` panics with ⟦error_code:nil pointer dereference⟧ when the config file has no "
                   "«entities» section. The trace points at ⟦path:«path_svc»⟧. Fix it and add a regression test.",),
            "zh": ("配置文件里没有 «entities» 段的时候，`«endpoint»` 会 panic：⟦error_code:nil pointer dereference⟧，"
                   "堆栈指向 ⟦path:«path_svc»⟧。请修复并补一个回归测试。",),
            "ja": ("設定ファイルに «entities» セクションがないと `«endpoint»` が ⟦error_code:nil pointer dereference⟧ で panic します。"
                   "スタックトレースは ⟦path:«path_svc»⟧ を指しています。修正して回帰テストも追加してください。",),
        },
        "constraints": (
            {"en": "Keep the default of ⟦number:«n» workers⟧ when the section is missing.",
             "zh": "段落缺失时默认保持 ⟦number:«n» 个 worker⟧。",
             "ja": "セクションがない場合のデフォルトは ⟦number:«n»ワーカー⟧のままにしてください。",
             "sum": "default of «n» workers when the section is missing"},
        ),
        "decision": ("return a zero-value «Type» with defaults instead of nil", {
            "en": "callers never check for nil and a missing section simply means defaults",
            "zh": "调用方从来不判空，段落缺失本来就意味着使用默认值",
            "ja": "呼び出し側は nil チェックをしておらず、セクションがないならデフォルトを意味するだけ"}),
        "failure": "go_panic",
        "next": ("Run `go vet` with the nilness analyzer in CI.",),
        "patch": {
            "go": ("func (c *Config) «Entities»() *«Type» {\n\treturn c.raw.«Entities»\n}\n",
                   "func (c *Config) «Entities»() «Type» {\n\tif c.raw.«Entities» == nil {\n"
                   "\t\treturn Default«Type»()\n\t}\n\treturn *c.raw.«Entities»\n}\n"),
        },
    },
    "typefix": {
        "numbers": {"n": (9, 17, 31)},
        "goal_sum": "Fix the TypeScript errors that broke the build after upgrading «lib» to «v_new».",
        "goal": {
            "en": ("The build broke after upgrading «lib» to «v_new»: `«lint_cmd»` reports ⟦number:«n» errors⟧, "
                   "mostly ⟦error_code:TS2345⟧ in ⟦path:«path_main»⟧. Please fix them without `any` or `@ts-ignore`.",),
            "zh": ("把 «lib» 升到 «v_new» 之后构建挂了：`«lint_cmd»` 报了 ⟦number:«n» 个错误⟧，大部分是 ⟦path:«path_main»⟧ 里的 "
                   "⟦error_code:TS2345⟧。请修掉，不要用 `any` 或 `@ts-ignore`。",),
            "ja": ("«lib» を «v_new» に上げたらビルドが壊れました。`«lint_cmd»` が ⟦number:«n»件のエラー⟧を出し、ほとんどが "
                   "⟦path:«path_main»⟧ の ⟦error_code:TS2345⟧ です。`any` や `@ts-ignore` を使わずに直してください。",),
        },
        "constraints": (
            {"en": "`strict: true` stays on in ⟦path:tsconfig.json⟧.",
             "zh": "⟦path:tsconfig.json⟧ 里的 `strict: true` 要保持开启。",
             "ja": "⟦path:tsconfig.json⟧ の `strict: true` は有効のままにしてください。",
             "sum": "strict mode stays on in tsconfig.json"},
        ),
        "decision": ("narrow «Type» with a type guard at the API boundary", {
            "en": "the undefined comes from the API layer, so checking once there fixes every caller",
            "zh": "undefined 是从 API 层来的，在那里检查一次所有调用方就都好了",
            "ja": "undefined は API 層から来ているので、そこで一度チェックすれば全呼び出し元が直る"}),
        "failure": "ts_tsc",
        "next": ("Enable `noUncheckedIndexedAccess` in a follow-up PR.",),
        "patch": {
            "typescript": ("  const row = rows.find((r) => r.id === selectedId);\n  onSelect(row);\n",
                           "  const row = rows.find((r) => r.id === selectedId);\n  if (!is«Type»(row)) {\n    "
                           "return;\n  }\n  onSelect(row);\n"),
        },
    },
    "xss": {
        "numbers": {"n": (2, 3, 4)},
        "goal_sum": "Fix the stored XSS in the «entity» comments rendered by «Repo».",
        "goal": {
            "en": ("Security found a stored XSS: a comment containing `<img src=x onerror=alert(document.cookie)>` "
                   "executes when ⟦identifier:«Repo»⟧ renders it. Fix it in ⟦path:«path_main»⟧.",),
            "zh": ("安全团队发现了一个存储型 XSS：评论里写 `<img src=x onerror=alert(document.cookie)>` 的话，"
                   "⟦identifier:«Repo»⟧ 渲染时会执行。请在 ⟦path:«path_main»⟧ 里修复。",),
            "ja": ("セキュリティチームが格納型XSSを見つけました。`<img src=x onerror=alert(document.cookie)>` を含むコメントを "
                   "⟦identifier:«Repo»⟧ が描画すると実行されます。⟦path:«path_main»⟧ で修正してください。",),
        },
        "constraints": (
            {"en": "Basic formatting (bold, italics, links) must keep working; ⟦number:«n» teams⟧ rely on it.",
             "zh": "基础格式（粗体、斜体、链接）要继续可用，有 ⟦number:«n» 个团队⟧依赖它。",
             "ja": "太字・斜体・リンクなどの基本的な書式は使えるままにしてください。⟦number:«n»チーム⟧が依存しています。",
             "sum": "bold, italics and links keep working"},
        ),
        "decision": ("sanitize with DOMPurify using an allow-list of b, i, a", {
            "en": "escaping everything would break the formatting people rely on, an allow-list keeps it",
            "zh": "全部转义会破坏大家依赖的格式，用白名单可以保留",
            "ja": "全部エスケープすると書式が壊れるが、許可リストなら残せる"}),
        "failure": "ts_jest",
        "next": ("Add a Content-Security-Policy header that forbids inline scripts.",),
        "patch": {
            "typescript": ("      <div dangerouslySetInnerHTML={{ __html: comment.body }} />\n",
                           "      <div\n        dangerouslySetInnerHTML={{\n          __html: "
                           "DOMPurify.sanitize(comment.body, { ALLOWED_TAGS: ['b', 'i', 'a'], ALLOWED_ATTR: ['href'] "
                           "}),\n        }}\n      />\n"),
        },
    },
    "borrow": {
        "numbers": {"n": (2, 3)},
        "goal_sum": "Make «fn» compile again after the refactor to borrowed tokens.",
        "goal": {
            "en": ("My refactor of `«fn»` to borrow tokens instead of cloning them doesn't compile: "
                   "⟦error_code:E0502⟧ in ⟦path:«path_main»⟧. Help me get it building without going back to clones.",),
            "zh": ("我把 `«fn»` 改成借用 token 而不是 clone，结果编译不过：⟦path:«path_main»⟧ 里报 ⟦error_code:E0502⟧。"
                   "帮我在不退回 clone 的前提下让它编译通过。",),
            "ja": ("`«fn»` をトークンの clone ではなく借用に書き換えたらコンパイルが通りません（⟦path:«path_main»⟧ で "
                   "⟦error_code:E0502⟧）。clone に戻さずにビルドを通したいです。",),
        },
        "constraints": (
            {"en": "Parsing the benchmark corpus must stay under ⟦number:«n» ms⟧.",
             "zh": "解析基准语料的时间要保持在 ⟦number:«n» ms⟧ 以内。",
             "ja": "ベンチマーク用コーパスのパースは ⟦number:«n» ms⟧ 未満を維持してください。",
             "sum": "benchmark parse time stays under «n» ms"},
        ),
        "decision": ("peek returns a Copy TokenKind instead of &Token", {
            "en": "the parser only inspects the kind while it still needs a mutable borrow to advance",
            "zh": "解析器只需要看 kind，同时还要可变借用来前进",
            "ja": "パーサは kind を見るだけで、前進のために可変借用も必要"}),
        "failure": "rust_borrow",
        "next": ("Run the fuzzer for an hour on the new code path.",),
        "patch": {
            "rust": ("        let tok = self.peek();\n        self.advance();\n",
                     "        let kind = self.peek_kind();\n        let span = self.advance().span;\n"),
        },
    },
    "lexperf": {
        "numbers": {"n": (40, 65, 80), "mb": (12, 48, 96)},
        "goal_sum": "Speed up the lexer in «path_svc» by at least 2x on the benchmark corpus.",
        "goal": {
            "en": ("The lexer is the bottleneck: `«build_cmd»` shows ⟦number:«n»% of the time⟧ in "
                   "⟦path:«path_svc»⟧ on the ⟦number:«mb» MB corpus⟧. Can we make it at least twice as fast?",),
            "zh": ("词法分析器是瓶颈：`«build_cmd»` 显示在 ⟦number:«mb» MB 语料⟧上 ⟦number:«n»%⟧ 的时间花在 ⟦path:«path_svc»⟧。"
                   "能至少快一倍吗？",),
            "ja": ("レキサがボトルネックです。`«build_cmd»` を見ると ⟦number:«mb» MB のコーパス⟧で時間の ⟦number:«n»%⟧ が "
                   "⟦path:«path_svc»⟧ に使われています。少なくとも2倍速くできますか？",),
        },
        "constraints": (
            {"en": "No new dependencies except ⟦identifier:memchr⟧, which we already vendor.",
             "zh": "除了已经 vendor 的 ⟦identifier:memchr⟧ 以外不要引入新依赖。",
             "ja": "すでに vendor している ⟦identifier:memchr⟧ 以外の依存は追加しないでください。",
             "sum": "no new dependencies except memchr"},
        ),
        "decision": ("a hand-written byte-level lexer with memchr for strings", {
            "en": "the regex-based lexer re-scans every token and most time goes into string literals",
            "zh": "基于正则的词法器会重复扫描每个 token，大部分时间都花在字符串字面量上",
            "ja": "正規表現ベースのレキサは毎回トークンを再走査しており、時間の大半は文字列リテラル"}),
        "failure": "rust_types",
        "next": ("Publish the benchmark numbers in the README.",),
        "patch": {
            "rust": ("    let re = Regex::new(TOKEN_PATTERN).unwrap();\n",
                     "    let bytes = src.as_bytes();\n    let mut pos = 0usize;\n    while let Some(&b) = "
                     "bytes.get(pos) {\n        pos += lex_one(b, &bytes[pos..], &mut out)?;\n    }\n"),
        },
    },
    "recovery": {
        "numbers": {"n": (10, 20, 50)},
        "goal_sum": "Let the parser recover from errors and report several diagnostics per file.",
        "goal": {
            "en": ("Right now `«endpoint»` stops at the first syntax error. Editors need all errors at once: add error "
                   "recovery to ⟦path:«path_main»⟧ so we report up to ⟦number:«n» diagnostics⟧ per file.",),
            "zh": ("现在 `«endpoint»` 遇到第一个语法错误就停了。编辑器需要一次拿到所有错误：请在 ⟦path:«path_main»⟧ "
                   "里加错误恢复，每个文件最多报告 ⟦number:«n» 条诊断⟧。",),
            "ja": ("`«endpoint»` は最初の構文エラーで止まってしまいます。エディタは全エラーを一度に欲しいので、⟦path:«path_main»⟧ "
                   "にエラー回復を入れて、1ファイルあたり最大 ⟦number:«n»件の診断⟧を返すようにしてください。",),
        },
        "constraints": (
            {"en": "Keep the public ⟦identifier:ParseError⟧ type source-compatible.",
             "zh": "公开的 ⟦identifier:ParseError⟧ 类型要保持源码兼容。",
             "ja": "公開している ⟦identifier:ParseError⟧ 型はソース互換を保ってください。",
             "sum": "ParseError stays source-compatible"},
        ),
        "decision": ("panic-mode recovery that syncs on newline and closing brackets", {
            "en": "it is simple, and those tokens are where users' mistakes end in practice",
            "zh": "实现简单，而且用户的错误实际上基本都在这些 token 处结束",
            "ja": "実装が単純で、実際の誤りはほぼこれらのトークンで区切られる"}),
        "failure": "rust_test",
        "next": ("Expose the diagnostics through the LSP crate.",),
        "patch": {
            "rust": ("            Err(e) => return Err(e),\n",
                     "            Err(e) => {\n                self.diagnostics.push(e);\n                if "
                     "self.diagnostics.len() >= MAX_DIAGNOSTICS {\n                    break;\n                }\n     "
                     "           self.synchronize();\n            }\n"),
        },
    },
}
