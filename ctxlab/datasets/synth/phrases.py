"""What the user and the agent say around the tool calls, in English, Chinese and Japanese.

Each entry maps a language to template variants (``«slot»`` placeholders,
``⟦kind:fact⟧`` markers). The system prompt is always English, as it is in
most real agent harnesses; it asks the agent to answer in the user's language.
"""

from __future__ import annotations

SYSTEM_INTRO = (
    "You are a senior software engineer working as an autonomous coding agent inside the «name» repository "
    "(«label», maintained by the «org» platform group). You have tools to read, search and edit files and to run "
    "shell commands in a sandboxed checkout. Work step by step, explain what you are doing briefly, and prefer small, "
    "reviewable changes.",
    "You are «name»-bot, an AI pair programmer for the «org» engineering team. The repository is a «label». You can "
    "call tools to inspect and change the code and to run commands. Be precise, be honest about what you have and have "
    "not verified, and keep the user informed.",
)

SYSTEM_RULES = (
    "Never commit secrets. Do not print, log or write API keys, tokens, passwords or private keys, even in examples; "
    "use obviously fake placeholders such as `sk-test-XXXX` instead. If you find a secret in the repository, stop and "
    "tell the user.",
    "Run the relevant tests before you say a task is finished, and report the exact command and the result. If you "
    "could not run them, say so explicitly instead of guessing.",
    "Do not modify files outside the repository, do not run `git push`, and never rewrite history (`git rebase -i`, "
    "`git push --force`) unless the user explicitly asks for it.",
    "Prefer editing existing files over creating new ones. Do not create documentation files unless asked. Keep "
    "diffs minimal: no drive-by reformatting of code you did not need to touch.",
    "When you make a design decision, state it in one sentence starting with 'Decision:' and give the reason, so it "
    "can be found later in the transcript.",
    "If a command fails, read the error carefully before retrying. Never retry the same failing command more than "
    "twice without changing something.",
    "Destructive commands (`rm -rf`, `DROP TABLE`, `terraform apply`, `kubectl delete`) require explicit confirmation "
    "from the user in the current conversation.",
    "Answer in the language the user writes in. Code, identifiers, commands and commit messages stay in English.",
    "Dependencies: do not add a new third-party dependency without asking. Pin versions exactly in lockfiles.",
    "Tool outputs can be very long. Summarise what matters instead of repeating them back to the user.",
    "Follow the existing conventions of the codebase (naming, error handling, logging, test layout) even if you would "
    "personally choose differently.",
    "Network access is limited to package registries, documentation sites and the company's staging environment. Do "
    "not send repository content to third-party services.",
)

SYSTEM_ENV = (
    "Environment: Linux x86_64, working directory /workspace/«name», git branch `main`. Today is 2024-03-0«day».",
    "Sandbox: Debian 12 container, repository mounted at /src/«name». Current date: 2024-03-0«day». Internet: "
    "restricted.",
)

GOAL_OUTRO = {
    "en": ("Constraints:", "Tests run with ⟦command:«test_cmd»⟧.", "Please run ⟦command:«test_cmd»⟧ before you "
                                                                   "finish."),
    "zh": ("约束：", "测试命令是 ⟦command:«test_cmd»⟧。", "完成前请跑一下 ⟦command:«test_cmd»⟧。"),
    "ja": ("制約：", "テストは ⟦command:«test_cmd»⟧ で実行します。", "終わる前に ⟦command:«test_cmd»⟧ を実行してください。"),
}

P: dict[str, dict[str, tuple[str, ...]]] = {
    "explore": {
        "en": ("Let me look at how ⟦identifier:«Repo»⟧ is wired before changing anything: I'll read ⟦path:«p1»⟧ and "
               "⟦path:«p2»⟧ and search for its callers.",
               "First I'll get oriented, reading ⟦path:«p1»⟧ and ⟦path:«p2»⟧ in parallel.",
               "I'll start with ⟦path:«p1»⟧, since that's where the request enters, plus ⟦path:«p2»⟧."),
        "zh": ("先看一下 ⟦identifier:«Repo»⟧ 是怎么接起来的：我并行读取 ⟦path:«p1»⟧ 和 ⟦path:«p2»⟧，再搜一下调用方。",
               "我先熟悉一下代码，同时打开 ⟦path:«p1»⟧ 和 ⟦path:«p2»⟧。"),
        "ja": ("変更する前に ⟦identifier:«Repo»⟧ の使われ方を確認します。⟦path:«p1»⟧ と ⟦path:«p2»⟧ を並行して読み、呼び出し元も検索します。",
               "まずは ⟦path:«p1»⟧ と ⟦path:«p2»⟧ を読んで全体像を把握します。"),
    },
    "plan": {
        "en": ("Plan:\n1. Reproduce with ⟦command:«test_cmd»⟧.\n2. Fix the root cause in `«target»`.\n3. Add or update "
               "tests in `«path_test»`.\n4. Run the full suite and the linter before handing back.",
               "Here's how I'll approach it:\n- confirm the current behaviour with ⟦command:«test_cmd»⟧\n- change "
               "`«target»` with the smallest possible diff\n- cover the new behaviour in `«path_test»`"),
        "zh": ("计划：\n1. 用 ⟦command:«test_cmd»⟧ 复现。\n2. 在 `«target»` 里修复根因。\n3. 在 `«path_test»` 补充测试。\n4. 跑全量测试和 "
               "lint。",),
        "ja": ("計画：\n1. ⟦command:«test_cmd»⟧ で再現する。\n2. `«target»` で根本原因を直す。\n3. `«path_test»` にテストを追加する。"
               "\n4. 全テストと lint を実行する。",),
    },
    "observe": {
        "en": ("`«Repo»` is only constructed in `«path_main»`; the tests build it with a fake, so the change stays "
               "local.",
               "Interesting: `«path_svc»` already has a TODO about this from last year, so this was a known gap.",
               "The module is bigger than I expected. I'll keep the change confined to `«fn»` and not refactor around "
               "it.",
               "Nothing else imports `«fn»` directly, which keeps the blast radius small.",
               "The existing tests only cover the happy path; I'll add the failing case as a regression test."),
        "zh": ("`«Repo»` 只在 `«path_main»` 里构造，测试用的是 fake，所以改动影响范围很小。",
               "有意思：`«path_svc»` 里去年就留了一个相关的 TODO，这是已知问题。",
               "现有测试只覆盖了正常路径，我会把失败的情况补成回归测试。"),
        "ja": ("`«Repo»` は `«path_main»` でしか生成されておらず、テストはフェイクを使っているので影響範囲は小さいです。",
               "`«path_svc»` に去年からこの件の TODO が残っていました。既知の問題だったようです。",
               "既存のテストは正常系しか見ていないので、失敗ケースを回帰テストとして追加します。"),
    },
    "branch": {
        "en": ("I'll work on a separate branch: ⟦identifier:«branch»⟧.", "Creating a branch first "
                                                                         "(⟦identifier:«branch»⟧)."),
        "zh": ("先切一个新分支：⟦identifier:«branch»⟧。",),
        "ja": ("作業用ブランチを切ります：⟦identifier:«branch»⟧。",),
    },
    "run_tests": {
        "en": ("Let me get a baseline with ⟦command:«cmd»⟧.", "Running ⟦command:«cmd»⟧ to reproduce.",
               "Now the tests: ⟦command:«cmd»⟧."),
        "zh": ("先跑一下 ⟦command:«cmd»⟧ 看看现状。", "用 ⟦command:«cmd»⟧ 复现一下。"),
        "ja": ("まず ⟦command:«cmd»⟧ で現状を確認します。", "⟦command:«cmd»⟧ で再現させます。"),
    },
    "probe": {
        "en": ("Let me reproduce it directly: ⟦command:«cmd»⟧.", "Running ⟦command:«cmd»⟧ to see the actual error.",
               "Checking ⟦command:«cmd»⟧ first."),
        "zh": ("直接复现一下：⟦command:«cmd»⟧。", "先执行 ⟦command:«cmd»⟧ 看看具体报错。"),
        "ja": ("直接再現してみます：⟦command:«cmd»⟧。", "⟦command:«cmd»⟧ で実際のエラーを確認します。"),
    },
    "rerun": {
        "en": ("Re-running ⟦command:«cmd»⟧.", "Let me run ⟦command:«cmd»⟧ again.", "Checking with ⟦command:«cmd»⟧."),
        "zh": ("再跑一遍 ⟦command:«cmd»⟧。", "重新执行 ⟦command:«cmd»⟧ 确认一下。"),
        "ja": ("もう一度 ⟦command:«cmd»⟧ を実行します。", "⟦command:«cmd»⟧ で確認します。"),
    },
    "analysis": {
        "en": ("The run fails with ⟦«ck»:«code»⟧ in ⟦path:«where»⟧: «explain»",
               "Found it: ⟦«ck»:«code»⟧ at ⟦path:«where»⟧, because «explain»",
               "So the failure is ⟦«ck»:«code»⟧ (⟦path:«where»⟧). Root cause: «explain»"),
        "zh": ("失败原因是 ⟦path:«where»⟧ 里的 ⟦«ck»:«code»⟧：«explain»", "找到了：⟦path:«where»⟧ 报 ⟦«ck»:«code»⟧。«explain»"),
        "ja": ("⟦path:«where»⟧ で ⟦«ck»:«code»⟧ が出ています。原因：«explain»", "見つけました。⟦«ck»:«code»⟧（⟦path:«where»⟧）。«explain»"),
    },
    "decision": {
        "en": ("Decision: ⟦decision:«decision»⟧, because «why».", "I'll go with ⟦decision:«decision»⟧: «why».",
               "Decision: ⟦decision:«decision»⟧. Why: «why»."),
        "zh": ("决定：采用 ⟦decision:«decision»⟧，因为«why»。", "方案定了：⟦decision:«decision»⟧。原因是«why»。"),
        "ja": ("方針：⟦decision:«decision»⟧ にします。理由：«why»。", "⟦decision:«decision»⟧ で進めます。理由：«why»。"),
    },
    "edit": {
        "en": ("Applying the change to ⟦path:«path»⟧.", "Editing ⟦path:«path»⟧ now.", "Here's the patch for "
                                                                                      "⟦path:«path»⟧."),
        "zh": ("修改 ⟦path:«path»⟧。", "开始改 ⟦path:«path»⟧。"),
        "ja": ("⟦path:«path»⟧ を修正します。", "⟦path:«path»⟧ に変更を入れます。"),
    },
    "pass": {
        "en": ("All green: ⟦number:«passed»⟧ with ⟦command:«cmd»⟧.", "Tests pass now (⟦number:«passed»⟧).",
               "⟦command:«cmd»⟧ is green, ⟦number:«passed»⟧."),
        "zh": ("测试全部通过：⟦number:«passed»⟧。", "⟦command:«cmd»⟧ 通过了，⟦number:«passed»⟧。"),
        "ja": ("テストが通りました（⟦number:«passed»⟧）。", "⟦command:«cmd»⟧ が通りました。⟦number:«passed»⟧ です。"),
    },
    "ack_change": {
        "en": ("Got it, switching to ⟦decision:«decision»⟧, since «why».", "Makes sense. New plan: "
                                                                           "⟦decision:«decision»⟧ («why»)."),
        "zh": ("明白，改成 ⟦decision:«decision»⟧，因为«why»。",),
        "ja": ("了解しました。⟦decision:«decision»⟧ に変更します。理由：«why»。",),
    },
    "ack_req": {
        "en": ("Noted, I'll keep that in mind.", "Understood, I'll factor that in before finishing.", "Sure, adding "
                                                                                                      "that to the "
                                                                                                      "plan."),
        "zh": ("好的，我会注意这一点。", "收到，收尾前会一并处理。"),
        "ja": ("承知しました。対応に含めます。", "了解です。最後に合わせて対応します。"),
    },
    "fetch": {
        "en": ("Let me double-check the documented behaviour at ⟦url:«url»⟧.", "Quick check of the docs: ⟦url:«url»⟧."),
        "zh": ("查一下文档确认：⟦url:«url»⟧。",),
        "ja": ("ドキュメントで挙動を確認します：⟦url:«url»⟧",),
    },
    "big_intro": {
        "en": ("This will be long, but I need the full output.", "Let me look at the raw output."),
        "zh": ("输出会很长，不过我需要完整的结果。",),
        "ja": ("出力は長くなりますが、全体を確認します。",),
    },
    "big_comment": {
        "en": ("The important bit in there: ⟦«hk»:«hl»⟧. The rest is noise.", "Skimming that output, what matters is "
                                                                              "⟦«hk»:«hl»⟧.",
               "Noted: ⟦«hk»:«hl»⟧. I'll keep that in mind for the fix."),
        "zh": ("这段输出里关键的是 ⟦«hk»:«hl»⟧，其余都是噪音。", "记下了：⟦«hk»:«hl»⟧，修复时会考虑进去。"),
        "ja": ("出力の中で重要なのは ⟦«hk»:«hl»⟧ です。残りはノイズです。", "メモ：⟦«hk»:«hl»⟧。修正時に考慮します。"),
    },
    "generated": {
        "en": ("⟦path:«hl»⟧ is generated code (see its header). I won't edit it by hand; if it needs to change I'll "
               "regenerate it.",
               "Note that ⟦path:«hl»⟧ is generated, so any fix has to go into the generator input, not this file."),
        "zh": ("⟦path:«hl»⟧ 是生成的代码，我不会手改，需要的话重新生成。",),
        "ja": ("⟦path:«hl»⟧ は生成コードなので手で編集せず、必要なら再生成します。",),
    },
    "lint": {
        "en": ("Running the linter as well: ⟦command:«cmd»⟧.", "And the static checks: ⟦command:«cmd»⟧."),
        "zh": ("再跑一下静态检查：⟦command:«cmd»⟧。",),
        "ja": ("静的チェックも実行します：⟦command:«cmd»⟧。",),
    },
    "git": {"en": ("Let me review what changed.", "Checking the diff before wrapping up."), "zh": ("看一下改动。",),
            "ja": ("変更内容を確認します。",)},
    "user_go": {
        "en": ("Go ahead.", "Sounds good, go for it.", "OK, proceed.", "Yes, do that."),
        "zh": ("好的，继续。", "可以，就这么做。", "没问题，继续吧。"),
        "ja": ("はい、進めてください。", "それでお願いします。", "問題ありません。続けてください。"),
    },
    "user_next": {"en": ("Nice work. Next thing on my list:", "Thanks. Another one while you're in there:"),
                  "zh": ("不错。下一个任务：", "谢谢。顺便再处理一个："), "ja": ("ありがとうございます。次のタスクです：", "ついでにもう一つお願いします：")},
    "user_thanks": {"en": ("Thanks, that's all for now.", "Great, I'll open the PR."), "zh": ("谢谢，先这样。", "好的，我去提 PR。"),
                    "ja": ("ありがとうございます。PRを出します。", "助かりました。今日はここまでで大丈夫です。")},
    "final_head": {"en": ("Done. Summary of the changes:", "Wrapping up. What changed:"), "zh": ("完成了。改动总结：",),
                   "ja": ("完了しました。変更点のまとめ：",)},
    "final_file": {"en": ("- `«path»`: updated",), "zh": ("- `«path»`：已修改",), "ja": ("- `«path»`：修正済み",)},
    "final_tail": {"en": ("Tests: ⟦number:«passed»⟧. Decisions: «decisions». Next: «next»",),
                   "zh": ("测试：⟦number:«passed»⟧。决策：«decisions»。后续：提交 PR 并请 «org» 团队 review。",),
                   "ja": ("テスト：⟦number:«passed»⟧。決定事項：«decisions»。次は PR を出して «org» チームにレビューを依頼します。",)},
}

QUESTIONS = (
    {"en": ("Before you continue, is `«path_cfg»` affected by this at all?",
            "No. `«path_cfg»` only reads the values at startup; nothing there needs to change."),
     "zh": ("继续之前问一下，`«path_cfg»` 会受影响吗？", "不会。`«path_cfg»` 只在启动时读取配置，这里不需要改。"),
     "ja": ("続ける前に確認ですが、`«path_cfg»` は影響を受けますか？", "いいえ。`«path_cfg»` は起動時に値を読むだけなので、変更は不要です。")},
    {"en": ("How long will the full test suite take? CI is slow today.",
            "Locally about a minute. I'm running the focused subset first and the full suite once at the end."),
     "zh": ("全量测试要跑多久？今天 CI 很慢。", "本地大约一分钟。我先跑相关的子集，最后再跑一次全量。"),
     "ja": ("全テストはどのくらいかかりますか？今日はCIが遅いので。", "ローカルで1分ほどです。まず関連するテストだけ回し、最後に全体を1回実行します。")},
    {"en": ("Will this need a database migration?", "No schema change is needed, so no migration."),
     "zh": ("这个需要做数据库迁移吗？", "不需要改表结构，所以不用迁移。"),
     "ja": ("DBマイグレーションは必要ですか？", "スキーマ変更はないので、マイグレーションは不要です。")},
    {"en": ("Is `«Repo»` used anywhere outside this service?",
            "Only in `«path_main»` and the tests; the grep above shows no other callers."),
     "zh": ("`«Repo»` 在这个服务之外还有地方用到吗？", "只有 `«path_main»` 和测试里用到，上面的搜索结果没有其他调用方。"),
     "ja": ("`«Repo»` はこのサービス以外でも使われていますか？", "`«path_main»` とテストだけです。上の検索結果に他の呼び出し元はありません。")},
)

REQUIREMENTS = (
    {"en": "One more thing: don't touch ⟦path:«path_cfg»⟧, the platform team owns it.",
     "zh": "还有一点：不要动 ⟦path:«path_cfg»⟧，那是平台组负责的。",
     "ja": "もう一点：⟦path:«path_cfg»⟧ は触らないでください。プラットフォームチームの管轄です。",
     "sum": "do not modify «path_cfg» (owned by the platform team)"},
    {"en": "Also make sure ⟦command:«lint_cmd»⟧ passes, CI runs it on every PR.",
     "zh": "另外确保 ⟦command:«lint_cmd»⟧ 能通过，CI 每个 PR 都会跑。",
     "ja": "あと ⟦command:«lint_cmd»⟧ も通るようにしてください。CIが全PRで実行します。",
     "sum": "«lint_cmd» must pass"},
    {"en": "Please add an entry to ⟦path:CHANGELOG.md⟧ under Unreleased.",
     "zh": "请在 ⟦path:CHANGELOG.md⟧ 的 Unreleased 下面加一条记录。",
     "ja": "⟦path:CHANGELOG.md⟧ の Unreleased にエントリを追加してください。",
     "sum": "add a CHANGELOG.md entry under Unreleased"},
    {"en": "Put the new behaviour behind the ⟦identifier:«FLAG»⟧ feature flag, default off.",
     "zh": "新行为要放在 ⟦identifier:«FLAG»⟧ 这个 feature flag 后面，默认关闭。",
     "ja": "新しい挙動は ⟦identifier:«FLAG»⟧ フィーチャーフラグの裏に置き、デフォルトはオフにしてください。",
     "sum": "new behaviour behind the «FLAG» feature flag (default off)"},
    {"en": "Line coverage must stay above ⟦number:«cov»%⟧, the gate is enforced in CI.",
     "zh": "行覆盖率必须保持在 ⟦number:«cov»%⟧ 以上，CI 里有门禁。",
     "ja": "行カバレッジは ⟦number:«cov»%⟧ 以上を維持してください。CIでチェックされます。",
     "sum": "line coverage stays above «cov»%"},
    {"en": "Heads-up: the release branch is cut ⟦number:Thursday at 16:00 UTC⟧, so keep the change small.",
     "zh": "提醒一下：发布分支在⟦number:周四 16:00 UTC⟧ 切，改动尽量小。",
     "ja": "補足：リリースブランチは⟦number:木曜 16:00 UTC⟧ に切るので、変更は小さめにお願いします。",
     "sum": "release branch is cut Thursday at 16:00 UTC; keep the change small"},
)
