"""Task stories about breakage: lint after upgrades, OOM kills, schema drift, 502s, ESM.

Same structure as ``tasks_backend`` (see its docstring).
"""

from __future__ import annotations

TASKS_OPS: dict[str, dict] = {
    "lint": {
        "numbers": {"n": (14, 23, 37, 61)},
        "goal_sum": "Fix the pylint no-member errors that appeared after upgrading «lib» to «v_new».",
        "goal": {
            "en": ("CI is red since the «lib» upgrade to ⟦identifier:«lib» «v_new»⟧: `«lint_cmd»` reports "
                   "⟦number:«n» errors⟧, mostly ⟦error_code:E1101⟧ (no-member). Fix them properly, no blanket "
                   "disables.",),
            "zh": ("把 «lib» 升级到 ⟦identifier:«lib» «v_new»⟧ 之后 CI 一直是红的：`«lint_cmd»` 报了 ⟦number:«n» 个错误⟧，"
                   "大部分是 ⟦error_code:E1101⟧（no-member）。请正经修掉，不要全局禁用。",),
            "ja": ("«lib» を ⟦identifier:«lib» «v_new»⟧ に上げてからCIが落ちています。`«lint_cmd»` が ⟦number:«n»件のエラー⟧を出し、"
                   "ほとんどが ⟦error_code:E1101⟧（no-member）です。一括で無効化せず、きちんと直してください。",),
        },
        "constraints": (
            {"en": "Do not pin «lib» back to «v_old»; the upgrade fixes ⟦identifier:CVE-2024-35195⟧.",
             "zh": "不要把 «lib» 退回 «v_old»，这次升级修复了 ⟦identifier:CVE-2024-35195⟧。",
             "ja": "«lib» を «v_old» に戻さないでください。今回のアップグレードで ⟦identifier:CVE-2024-35195⟧ が修正されています。",
             "sum": "stay on «lib» «v_new» (fixes CVE-2024-35195)"},
        ),
        "decision": ("explicit typed attributes on «Type» instead of dynamic setattr", {
            "en": "pylint cannot see attributes created with setattr, and mypy will benefit as well",
            "zh": "pylint 看不到用 setattr 动态创建的属性，改成显式属性 mypy 也能受益",
            "ja": "setattr で動的に作った属性は pylint から見えず、明示すれば mypy にも効く"}),
        "failure": "pylint",
        "next": ("Turn on `--fail-under=9.5` in CI once the remaining warnings are fixed.",),
        "patch": {
            "python": ("        for key, value in payload.items():\n            setattr(self, key, value)\n",
                       "        self.id: int = payload[\"id\"]\n        self.status: str = payload.get(\"status\", "
                       "\"new\")\n        self.total_cents: int = int(payload.get(\"total_cents\", 0))\n"),
        },
    },
    "oom": {
        "numbers": {"n": (50_000, 100_000, 250_000), "n2": (20_000, 25_000), "rows": (38, 64, 120), "mem": (2, 4, 8)},
        "goal_sum": "Stop the nightly «entities» job from being OOM-killed now that the input is much larger.",
        "goal": {
            "en": ("The nightly «entities» job gets killed with ⟦error_code:exit code 137⟧ since the input grew to "
                   "⟦number:«rows» million rows⟧. Fix ⟦path:«path_main»⟧ so it fits into the container again.",
                   "`«fn»` has been OOM-killed three nights in a row (⟦error_code:exit code 137⟧). The export is "
                   "now ⟦number:«rows» million rows⟧. Can you make ⟦path:«path_main»⟧ stream instead of loading "
                   "everything?"),
            "zh": ("夜间的 «entities» 任务最近总是以 ⟦error_code:exit code 137⟧ 被杀掉，输入已经涨到 ⟦number:«rows» million rows⟧。"
                   "请修改 ⟦path:«path_main»⟧，让它重新能在容器里跑完。",),
            "ja": ("夜間の «entities» ジョブが ⟦error_code:exit code 137⟧ で強制終了されます。入力が ⟦number:«rows» million rows⟧ "
                   "に増えたためです。⟦path:«path_main»⟧ をコンテナに収まるよう直してください。",),
        },
        "constraints": (
            {"en": "The container limit stays at ⟦number:«mem» GiB⟧; finance won't approve bigger nodes.",
             "zh": "容器内存上限保持 ⟦number:«mem» GiB⟧，财务不会批更大的节点。",
             "ja": "コンテナの上限は ⟦number:«mem» GiB⟧ のままです。大きいノードは予算が下りません。",
             "sum": "container memory limit stays at «mem» GiB"},
            {"en": "The output must be byte-identical to the current Parquet files (downstream diffs them).",
             "zh": "输出必须和现在的 Parquet 文件逐字节一致（下游会做 diff）。",
             "ja": "出力は現在の Parquet ファイルとバイト単位で一致させてください（下流で差分を取っています）。",
             "sum": "output stays byte-identical to the current Parquet files"},
        ),
        "decision": ("process rows in batches of «n»", {
            "en": "memory then stays flat regardless of input size and pyarrow can write the row groups incrementally",
            "zh": "这样内存与输入大小无关，pyarrow 也可以增量写 row group",
            "ja": "入力サイズに関係なくメモリが一定になり、pyarrow で row group を逐次書き込める"}),
        "change": {
            "user": {"en": "The warehouse loader chokes on big row groups. Use ⟦number:«n2» rows⟧ per batch.",
                     "zh": "数仓加载器处理不了太大的 row group，每批改成 ⟦number:«n2» 行⟧。",
                     "ja": "DWH のローダーが大きな row group を処理できません。1バッチ ⟦number:«n2»行⟧にしてください。"},
            "decision": ("batches of «n2» rows aligned with Parquet row groups", {
                "en": "matching the loader's row-group limit avoids a second rewrite downstream",
                "zh": "和加载器的 row group 上限对齐，下游就不用再重写一遍",
                "ja": "ローダーの row group 上限に合わせれば下流で再書き込みが不要になる"}),
        },
        "failure": "oom",
        "next": ("Add a memory high-water-mark metric to the job.", "Backfill the three missed nights."),
        "patch": {
            "python": ("    df = pd.read_csv(source, dtype=DTYPES)\n    result = «fn»(df)\n    "
                       "result.to_parquet(target)\n",
                       "    writer = None\n    for chunk in pd.read_csv(source, dtype=DTYPES, chunksize=BATCH_ROWS):\n"
                       "        table = pa.Table.from_pandas(«fn»(chunk), preserve_index=False)\n"
                       "        writer = writer or pq.ParquetWriter(target, table.schema)\n"
                       "        writer.write_table(table)\n    if writer is not None:\n        writer.close()\n"),
        },
    },
    "schema": {
        "numbers": {"n": (3, 4, 7)},
        "goal_sum": "Make «fn» robust to the upstream schema change of the «entities» export.",
        "goal": {
            "en": ("The «entities» export changed upstream: `«entity»_total` became `total_amount` and now "
                   "`«fn»` dies with ⟦error_code:KeyError⟧. Please make ⟦path:«path_main»⟧ handle both versions.",),
            "zh": ("上游改了 «entities» 导出的格式：`«entity»_total` 改名成了 `total_amount`，现在 `«fn»` 直接报 "
                   "⟦error_code:KeyError⟧。请让 ⟦path:«path_main»⟧ 同时兼容两个版本。",),
            "ja": ("上流で «entities» エクスポートの形式が変わり、`«entity»_total` が `total_amount` になったため `«fn»` が "
                   "⟦error_code:KeyError⟧ で落ちます。⟦path:«path_main»⟧ で両方の形式を扱えるようにしてください。",),
        },
        "constraints": (
            {"en": "Keep the last ⟦number:«n» days⟧ of partitions re-processable with the old schema.",
             "zh": "最近 ⟦number:«n» 天⟧的分区还要能用旧格式重跑。",
             "ja": "直近 ⟦number:«n»日分⟧のパーティションは旧形式で再処理できるようにしてください。",
             "sum": "the last «n» days of partitions stay re-processable with the old schema"},
        ),
        "decision": ("validate input with an explicit column mapping before transforming", {
            "en": "the failure then names the missing column at the boundary instead of deep inside the transform",
            "zh": "这样缺列时会在入口处直接报出列名，而不是在转换深处崩掉",
            "ja": "列が欠けていれば変換の奥ではなく入口で列名付きのエラーになる"}),
        "failure": "py_key",
        "next": ("Ask the upstream team to version the export schema.",),
        "patch": {
            "python": ("    df[\"«entity»_total\"] = df[\"«entity»_total\"].astype(\"int64\")\n",
                       "    df = df.rename(columns=LEGACY_COLUMNS)\n    missing = REQUIRED_COLUMNS - set(df.columns)\n "
                       "   if missing:\n        raise SchemaError(f\"«entities» export lacks columns: "
                       "{sorted(missing)}\")\n    df[\"total_amount\"] = df[\"total_amount\"].astype(\"int64\")\n"),
        },
    },
    "oomk8s": {
        "numbers": {"n": (512, 768, 1024), "n2": (1536, 2048), "rps": (300, 800, 1500)},
        "goal_sum": "Stop the «fn» pods from being OOMKilled and restarting under load.",
        "goal": {
            "en": ("`«fn»` pods restart every few hours with OOMKilled (⟦error_code:exit code 137⟧), always at peak "
                   "traffic (~«rps» rps). Fix the resources in ⟦path:«path_main»⟧.",),
            "zh": ("`«fn»` 的 Pod 每隔几个小时就因为 OOMKilled 重启（⟦error_code:exit code 137⟧），都是在高峰（约 «rps» rps）。"
                   "请修一下 ⟦path:«path_main»⟧ 里的资源配置。",),
            "ja": ("`«fn»` のPodがピーク時（約 «rps» rps）に OOMKilled（⟦error_code:exit code 137⟧）で数時間ごとに再起動します。"
                   "⟦path:«path_main»⟧ のリソース設定を直してください。",),
        },
        "constraints": (
            {"en": "Keep at least ⟦number:3 replicas⟧ during node drains.",
             "zh": "节点排空时至少保留 ⟦number:3 个副本⟧。",
             "ja": "ノードのドレイン中も ⟦number:3レプリカ⟧以上を維持してください。",
             "sum": "at least 3 replicas during node drains"},
        ),
        "decision": ("memory limit of «n»Mi with GOMEMLIMIT set to 90% of it", {
            "en": "the heap grows until the kernel kills it because the runtime does not know the cgroup limit",
            "zh": "运行时不知道 cgroup 的限制，堆会一直涨到被内核杀掉",
            "ja": "ランタイムが cgroup の上限を知らず、カーネルに殺されるまでヒープが伸びる"}),
        "change": {
            "user": {"en": "Capacity planning says we'll double traffic next month; go with ⟦number:«n2»Mi⟧ right "
                           "away.",
                     "zh": "容量规划说下个月流量会翻倍，直接用 ⟦number:«n2»Mi⟧ 吧。",
                     "ja": "来月トラフィックが倍になる見込みなので、最初から ⟦number:«n2»Mi⟧ にしてください。"},
            "decision": ("memory limit of «n2»Mi and an HPA on memory at 75%", {
                "en": "the traffic forecast doubles and scaling out is cheaper than ever-bigger pods",
                "zh": "流量预计翻倍，横向扩容比不断加大 Pod 更省钱",
                "ja": "トラフィックが倍増する見込みで、Pod を大きくし続けるよりスケールアウトの方が安い"}),
        },
        "failure": "k8s_oom",
        "next": ("Watch the memory graphs for a week and right-size the request.",),
        "patch": {
            "yaml": ("          resources:\n            limits:\n              memory: 256Mi\n",
                     "          resources:\n            requests:\n              cpu: 250m\n              memory: "
                     "512Mi\n            limits:\n              memory: «n»Mi\n          env:\n            - name: "
                     "GOMEMLIMIT\n              value: \"900MiB\"\n"),
        },
    },
    "gateway": {
        "numbers": {"n": (60, 90, 120), "t": (30, 45)},
        "goal_sum": "Fix the HTTP 502s the ingress returns for slow «entities» requests.",
        "goal": {
            "en": ("Clients get ⟦error_code:HTTP 502⟧ from the ingress on long `«entities»` report requests, but the "
                   "app logs show the requests succeeding. Find out why and fix ⟦path:«path_svc»⟧.",),
            "zh": ("客户端在请求比较慢的 `«entities»` 报表时会从 ingress 拿到 ⟦error_code:HTTP 502⟧，但应用日志显示请求是成功的。"
                   "请查清原因并修改 ⟦path:«path_svc»⟧。",),
            "ja": ("時間のかかる `«entities»` レポートで、アプリのログでは成功しているのにクライアントが ingress から "
                   "⟦error_code:HTTP 502⟧ を受け取ります。原因を調べて ⟦path:«path_svc»⟧ を直してください。",),
        },
        "constraints": (
            {"en": "Reports can legitimately take up to ⟦number:«t» seconds⟧.",
             "zh": "报表最长确实可能要 ⟦number:«t» 秒⟧。",
             "ja": "レポートは正常でも最大 ⟦number:«t»秒⟧かかることがあります。",
             "sum": "reports may take up to «t» seconds"},
        ),
        "decision": ("proxy-read-timeout of «n»s on the «entities» ingress only", {
            "en": "the default 60s upstream timeout is shared by all services and only this one needs more",
            "zh": "默认的上游超时是所有服务共用的，只有这个服务需要更长",
            "ja": "デフォルトのタイムアウトは全サービス共通で、延ばす必要があるのはこのサービスだけ"}),
        "failure": "http502",
        "next": ("Move the slow reports to an async job with a download link.",),
        "patch": {
            "yaml": ("  annotations:\n    kubernetes.io/ingress.class: nginx\n",
                     "  annotations:\n    kubernetes.io/ingress.class: nginx\n"
                     "    nginx.ingress.kubernetes.io/proxy-read-timeout: \"120\"\n"
                     "    nginx.ingress.kubernetes.io/proxy-send-timeout: \"120\"\n"),
        },
    },
    "esm": {
        "numbers": {"n": (18, 27, 42)},
        "goal_sum": "Finish migrating «name» to ES modules after upgrading «lib» to «v_new».",
        "goal": {
            "en": ("After bumping «lib» to «v_new» the service won't start: ⟦error_code:ERR_REQUIRE_ESM⟧. Finish the "
                   "migration to ES modules; there are ⟦number:«n» files⟧ still using require().",),
            "zh": ("把 «lib» 升到 «v_new» 之后服务起不来了：⟦error_code:ERR_REQUIRE_ESM⟧。请把 ES modules 迁移做完，"
                   "还有 ⟦number:«n» 个文件⟧在用 require()。",),
            "ja": ("«lib» を «v_new» に上げたらサービスが起動しません（⟦error_code:ERR_REQUIRE_ESM⟧）。ES modules への移行を"
                   "完了させてください。まだ ⟦number:«n»ファイル⟧が require() を使っています。",),
        },
        "constraints": (
            {"en": "Keep Node ⟦identifier:20.11⟧ as the runtime; the base image is shared.",
             "zh": "运行时保持 Node ⟦identifier:20.11⟧，基础镜像是共用的。",
             "ja": "ランタイムは Node ⟦identifier:20.11⟧ のままです。ベースイメージが共通なので。",
             "sum": "runtime stays on Node 20.11"},
        ),
        "decision": ("\"type\": \"module\" in package.json with explicit .js extensions in imports", {
            "en": "Node's ESM resolver does not add extensions, which is what causes ERR_MODULE_NOT_FOUND",
            "zh": "Node 的 ESM 解析器不会自动补扩展名，这正是 ERR_MODULE_NOT_FOUND 的原因",
            "ja": "Node の ESM リゾルバは拡張子を補完せず、それが ERR_MODULE_NOT_FOUND の原因"}),
        "failure": "node_module",
        "next": ("Remove the CommonJS shim in `«path_cfg»` after the next release.",),
        "patch": {
            "javascript": ("const fetch = require('node-fetch');\nconst { config } = require('./config');\n",
                           "import fetch from 'node-fetch';\nimport { config } from './config.js';\n"),
        },
    },
}
