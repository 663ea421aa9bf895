"""Task stories for the back-end projects (Flask API, data pipeline, Node, Go).

A task is a goal the user states, constraints, the decision the agent reaches,
an optional change of mind by the user (with its own decision and follow-ups),
next steps and a code patch per code
language. Templates use ``«slot»`` placeholders and ``⟦kind:fact⟧`` markers
(see ``util.render``).
"""

from __future__ import annotations

TASKS_BACKEND: dict[str, dict] = {
    "cache": {
        "numbers": {"n": (256, 512, 1024), "n2": (2048, 4096), "ttl": (60, 120, 300, 600), "mem": (64, 128, 256)},
        "goal_sum": "Add an in-process cache in front of «Repo» so repeated «entity» reads stop hitting the backend.",
        "goal": {
            "en": ("`«fn»` is at the top of our profiles: every request to `«endpoint»` goes through `«Repo»` and "
                   "reads the same «entity» again, even within one request. Please add a cache in front of "
                   "`«Repo»` in ⟦path:«path_repo»⟧.",
                   "We need caching for «entity» lookups. ⟦identifier:«Repo»⟧ is called six to eight times per "
                   "request with identical ids (see `«path_svc»`) and the DB team is complaining about load. Add an "
                   "in-process cache and wire it up."),
            "zh": ("最近压测发现 `«fn»` 是热点：每次请求 `«endpoint»` 都会经过 `«Repo»` 再读一次同一个 «entity»。"
                   "请在 ⟦path:«path_repo»⟧ 里给 `«Repo»` 前面加一层缓存。",
                   "«entity» 的查询需要加缓存。⟦identifier:«Repo»⟧ 在一次请求里会被同样的 id 调用六到八次"
                   "（见 `«path_svc»`），DBA 已经在抱怨负载了。请加一个进程内缓存并接好。"),
            "ja": ("プロファイルを見ると `«fn»` がトップです。`«endpoint»` へのリクエストは毎回 `«Repo»` を経由して、"
                   "同じ «entity» を何度も読み直しています。⟦path:«path_repo»⟧ の `«Repo»` の前にキャッシュを入れてください。",),
        },
        "constraints": (
            {"en": "Entries must expire after a ⟦number:TTL of «ttl»s⟧ at most, because prices change during the day.",
             "zh": "缓存过期时间不能超过 ⟦number:«ttl» 秒⟧，因为价格白天会变。",
             "ja": "有効期限は最大 ⟦number:«ttl»秒⟧にしてください。日中に価格が変わるためです。",
             "sum": "entries expire after a TTL of «ttl»s"},
            {"en": "Memory is tight on the pods, so keep the cache under ⟦number:«mem» MB⟧.",
             "zh": "Pod 内存比较紧，缓存占用要控制在 ⟦number:«mem» MB⟧ 以内。",
             "ja": "Podのメモリに余裕がないので、キャッシュは ⟦number:«mem» MB⟧ 以内に収めてください。",
             "sum": "cache memory stays under «mem» MB"},
        ),
        "decision": ("LRU cache with «n» entries", {
            "en": "the hot set is small (a few hundred «entities» account for most reads) and an LRU bounds memory "
                  "without any tuning",
            "zh": "热点数据很少（几百个 «entity» 占了大部分读取），LRU 不需要调参就能限制内存",
            "ja": "ホットな «entity» は数百件程度で読み込みの大半を占めており、LRU ならチューニングなしでメモリを抑えられる"}),
        "change": {
            "user": {"en": "Thinking about it more: ops says the pods have more headroom than I thought. Make it "
                           "⟦number:«n2» entries⟧ instead, and invalidate on writes.",
                     "zh": "我再想了一下：运维说 Pod 内存比我想的宽裕。改成 ⟦number:«n2» 条⟧，而且写入时要让缓存失效。",
                     "ja": "考え直しました。運用チームによるとメモリには余裕があるそうです。⟦number:«n2»件⟧に増やして、"
                           "書き込み時にはキャッシュを無効化してください。"},
            "decision": ("LRU cache with «n2» entries, invalidated on every write", {
                "en": "the budget went up and stale reads after an update are now the bigger risk",
                "zh": "内存预算提高了，更新后读到旧数据才是更大的风险",
                "ja": "メモリ予算が増え、更新後に古いデータを読むリスクの方が大きくなった"}),
        },
        "failure": None,
        "next": ("Add a cache hit-rate metric to the service dashboard.",
                 "Load-test `«endpoint»` again with the cache enabled and compare p95 latency."),
        "patch": {
            "python": ("    def «fn»(self, «entity»_id: int) -> «Entity» | None:\n"
                       "        return self._session.get(«Entity», «entity»_id)\n",
                       "    def «fn»(self, «entity»_id: int) -> «Entity» | None:\n"
                       "        cached = self._cache.get(«entity»_id)\n"
                       "        if cached is not None:\n"
                       "            return cached\n"
                       "        «entity» = self._session.get(«Entity», «entity»_id)\n"
                       "        if «entity» is not None:\n"
                       "            self._cache[«entity»_id] = «entity»\n"
                       "        return «entity»\n"),
            "go": ("func (s *«Repo») Get(ctx context.Context, id int64) (*«Entity», error) {\n"
                   "\treturn s.db.Get«Entity»(ctx, id)\n}\n",
                   "func (s *«Repo») Get(ctx context.Context, id int64) (*«Entity», error) {\n"
                   "\tif v, ok := s.cache.Get(id); ok {\n\t\treturn v, nil\n\t}\n"
                   "\tv, err := s.db.Get«Entity»(ctx, id)\n\tif err != nil {\n"
                   "\t\treturn nil, fmt.Errorf(\"get «entity» %d: %w\", id, err)\n\t}\n"
                   "\ts.cache.Add(id, v)\n\treturn v, nil\n}\n"),
            "javascript": ("export async function get«Entity»(id) {\n  return db.«entities».findById(id);\n}\n",
                           "const cache = new LRUCache({ max: config.cacheMaxEntries, ttl: config.cacheTtlMs });\n\n"
                           "export async function get«Entity»(id) {\n  const hit = cache.get(id);\n"
                           "  if (hit) return hit;\n  const «entity» = await db.«entities».findById(id);\n"
                           "  if («entity») cache.set(id, «entity»);\n  return «entity»;\n}\n"),
            "typescript": ("  const { data } = useQuery(['«entities»', page], () => fetch«Entities»(page));\n",
                           "  const { data } = useQuery({\n    queryKey: ['«entities»', page],\n    queryFn: () => "
                           "fetch«Entities»(page),\n    staleTime: 60_000,\n    gcTime: 5 * 60_000,\n  });\n"),
        },
    },
    "retry": {
        "numbers": {"n": (4, 5, 6), "n2": (2, 3), "t": (5, 10, 30), "budget": (20, 45, 60)},
        "goal_sum": "Make the upstream client in «path_svc» resilient to intermittent HTTP 502 responses.",
        "goal": {
            "en": ("The upstream «entities» service is flaky: about 2% of calls to `«endpoint»` fail with "
                   "⟦error_code:HTTP 502⟧ and the whole request errors out. Make the client in ⟦path:«path_svc»⟧ "
                   "resilient.",
                   "We keep getting paged for ⟦error_code:502 Bad Gateway⟧ errors from the «entities» upstream. "
                   "They are transient (a retry by hand always works). Please add proper retries to "
                   "⟦path:«path_svc»⟧."),
            "zh": ("上游的 «entities» 服务不太稳定：调用 `«endpoint»` 大约有 2% 会返回 ⟦error_code:HTTP 502⟧，"
                   "整个请求就直接失败了。请让 ⟦path:«path_svc»⟧ 里的客户端更健壮一些。",),
            "ja": ("上流の «entities» サービスが不安定で、`«endpoint»` の呼び出しの約2%が ⟦error_code:HTTP 502⟧ で失敗し、"
                   "リクエスト全体がエラーになります。⟦path:«path_svc»⟧ のクライアントにリトライを入れてください。",),
        },
        "constraints": (
            {"en": "Keep a ⟦number:timeout of «t»s⟧ per attempt; the caller's SLA is strict.",
             "zh": "每次尝试的超时保持 ⟦number:«t» 秒⟧，调用方的 SLA 很严格。",
             "ja": "1回の試行のタイムアウトは ⟦number:«t»秒⟧のままにしてください。呼び出し側のSLAが厳しいので。",
             "sum": "timeout of «t»s per attempt"},
            {"en": "All retries together must finish within ⟦number:«budget» seconds⟧.",
             "zh": "所有重试加起来必须在 ⟦number:«budget» 秒⟧内结束。",
             "ja": "リトライ全体で ⟦number:«budget»秒⟧以内に終わるようにしてください。",
             "sum": "total retry time below «budget» seconds"},
        ),
        "decision": ("exponential backoff with jitter, max «n» attempts", {
            "en": "the 502s come in short bursts during upstream deploys, so spreading retries out is what helps",
            "zh": "502 都是上游发布时的短暂抖动，把重试错开才有效",
            "ja": "502 は上流のデプロイ中に短時間まとまって発生するので、リトライを分散させるのが効果的"}),
        "change": {
            "user": {"en": "The payments team thinks «n» attempts is too many. Cap it at ⟦number:«n2» attempts⟧ "
                           "and add a circuit breaker instead.",
                     "zh": "支付组觉得重试 «n» 次太多了。最多 ⟦number:«n2» 次⟧，另外加一个熔断器。",
                     "ja": "決済チームから «n» 回は多すぎると言われました。⟦number:«n2»回⟧までにして、代わりにサーキットブレーカーを入れてください。"},
            "next": ("Alert on the circuit-breaker open rate instead of on individual 502s.",),
            "decision": ("max «n2» attempts plus a circuit breaker", {
                "en": "the breaker protects the upstream while it is down, so fewer retries are enough",
                "zh": "上游挂掉时熔断器能保护它，所以少重试几次就够了",
                "ja": "上流が落ちている間はブレーカーが守るので、リトライ回数は少なくてよい"}),
        },
        "failure": "http502",
        "next": ("Add a metric for retries per upstream call.",
                 "Ask the upstream team for a status page or deploy notifications."),
        "patch": {
            "python": ("session = requests.Session()\n",
                       "retry = Retry(total=MAX_ATTEMPTS, backoff_factor=0.5, backoff_jitter=0.3,\n"
                       "              status_forcelist=(502, 503, 504), allowed_methods=(\"GET\", \"PUT\"))\n"
                       "session = requests.Session()\nsession.mount(\"https://\", HTTPAdapter(max_retries=retry))\n"),
            "go": ("\tresp, err := c.http.Do(req)\n",
                   "\tvar resp *http.Response\n\terr := retry.Do(ctx, c.backoff, func() error {\n"
                   "\t\tvar err error\n\t\tresp, err = c.http.Do(req.Clone(ctx))\n"
                   "\t\tif err == nil && resp.StatusCode == http.StatusBadGateway {\n"
                   "\t\t\tresp.Body.Close()\n\t\t\treturn retry.Retryable(fmt.Errorf(\"upstream 502\"))\n\t\t}\n"
                   "\t\treturn err\n\t})\n"),
            "javascript": ("  const res = await fetch(url, { signal: AbortSignal.timeout(config.timeoutMs) });\n",
                           "  const res = await pRetry(\n    () => fetchOrThrow(url, { signal: "
                           "AbortSignal.timeout(config.timeoutMs) }),\n    { retries: config.maxRetries, factor: 2, "
                           "randomize: true },\n  );\n"),
        },
    },
    "ratelimit": {
        "numbers": {"n": (60, 120, 300, 600), "burst": (10, 20, 50)},
        "goal_sum": "Add per-API-key rate limiting to «endpoint».",
        "goal": {
            "en": ("Add rate limiting to ⟦identifier:«endpoint»⟧. One integration partner sent 40k requests in ten "
                   "minutes last night and took the database down with it.",
                   "We need a rate limiter on `«endpoint»` (handler in ⟦path:«path_main»⟧) before the public launch."),
            "zh": ("给 ⟦identifier:«endpoint»⟧ 加限流。昨晚有个合作方十分钟打了四万个请求，把数据库拖垮了。",),
            "ja": ("⟦identifier:«endpoint»⟧ にレート制限を追加してください。昨夜、ある連携先が10分で4万リクエストを送ってきてDBが落ちました。",),
        },
        "constraints": (
            {"en": "The limit is ⟦number:«n» requests per minute⟧ per API key, with bursts of «burst».",
             "zh": "每个 API key 限制为⟦number:每分钟 «n» 次⟧，允许 «burst» 次突发。",
             "ja": "APIキーごとに ⟦number:1分あたり«n»リクエスト⟧、バーストは «burst» までです。",
             "sum": "limit of «n» requests per minute per API key"},
            {"en": "Rejected calls must get ⟦error_code:HTTP 429⟧ with a Retry-After header.",
             "zh": "被拒绝的请求要返回 ⟦error_code:HTTP 429⟧ 并带上 Retry-After 头。",
             "ja": "拒否したリクエストには Retry-After ヘッダー付きで ⟦error_code:HTTP 429⟧ を返してください。",
             "sum": "rejected calls get HTTP 429 with Retry-After"},
        ),
        "decision": ("token bucket keyed by API key in Redis", {
            "en": "the API runs on several replicas, so the counters have to be shared",
            "zh": "API 跑在多个副本上，计数器必须共享",
            "ja": "API は複数レプリカで動いているので、カウンタを共有する必要がある"}),
        "change": {
            "user": {"en": "Bad news: we can't get a Redis instance approved before launch. Do it in-process for "
                           "now, per replica, and divide the limit by ⟦number:«burst» replicas⟧ max.",
                     "zh": "坏消息：上线前申请不到 Redis。先在进程内做，每个副本单独限流，按最多 ⟦number:«burst» 个副本⟧平分额度。",
                     "ja": "残念ながらリリース前にRedisの承認が下りません。当面はレプリカごとのプロセス内で、最大 ⟦number:«burst»レプリカ⟧で上限を割ってください。"},
            "next": ("Move the bucket to Redis once the instance is approved.",),
            "decision": ("in-process token bucket per replica", {
                "en": "Redis is not available yet and an approximate per-replica limit is good enough for launch",
                "zh": "暂时没有 Redis，上线阶段按副本近似限流就够了",
                "ja": "Redis がまだ使えず、リリース時点ではレプリカ単位の近似で十分"}),
        },
        "failure": None,
        "next": ("Load-test the limiter with a burst from a single API key.",
                 "Document the limits in the public API reference."),
        "patch": {
            "python": ("@bp.route(\"/«entities»\", methods=[\"POST\"])\n",
                       "@bp.route(\"/«entities»\", methods=[\"POST\"])\n@limiter.limit(RATE_LIMIT, "
                       "key_func=api_key_from_request)\n"),
            "javascript": ("router.post('/«entities»', validate(«Type»Schema), handler);\n",
                           "router.post(\n  '/«entities»',\n  rateLimit({ windowMs: 60_000, limit: "
                           "config.rateLimitPerMinute, keyGenerator: apiKeyOf }),\n  validate(«Type»Schema),\n  "
                           "handler,\n);\n"),
        },
    },
    "pagination": {
        "numbers": {"n": (50, 100, 200), "n2": (500, 1000), "rows": ("180,000", "240,000", "1.2 million")},
        "goal_sum": "Paginate «endpoint», which currently returns every «entity» in one response.",
        "goal": {
            "en": ("`«endpoint»` returns every «entity» in a single response. Our biggest tenant has "
                   "⟦number:«rows» «entities»⟧ and the call now takes 40 seconds. Add pagination.",),
            "zh": ("`«endpoint»` 现在一次返回所有 «entity»。最大的租户有 ⟦number:«rows» «entities»⟧，一次调用要 40 秒。请加分页。",),
            "ja": ("`«endpoint»` は全 «entity» を1レスポンスで返しています。最大のテナントは ⟦number:«rows» «entities»⟧ で、"
                   "1回の呼び出しに40秒かかります。ページネーションを追加してください。",),
        },
        "constraints": (
            {"en": "Use a ⟦number:default page size of «n»⟧.",
             "zh": "⟦number:默认每页 «n» 条⟧。",
             "ja": "⟦number:デフォルトのページサイズは«n»⟧ にしてください。",
             "sum": "default page size of «n»"},
            {"en": "Don't break ⟦identifier:«Type»⟧: old clients read it without the paging fields.",
             "zh": "不要破坏 ⟦identifier:«Type»⟧，老客户端读取时没有分页字段。",
             "ja": "⟦identifier:«Type»⟧ は壊さないでください。古いクライアントはページング項目なしで読んでいます。",
             "sum": "«Type» stays backward compatible"},
        ),
        "decision": ("cursor-based pagination keyed on (created_at, id)", {
            "en": "offsets get slow and skip rows when «entities» are inserted while a client pages",
            "zh": "用 offset 在翻页时如果有新 «entity» 插入会变慢还会漏数据",
            "ja": "オフセット方式はページング中に «entity» が追加されると遅くなり、行の取りこぼしも起きる"}),
        "change": {
            "user": {"en": "The export tool needs bigger pages: allow up to ⟦number:«n2» per page⟧.",
                     "zh": "导出工具需要更大的页：每页最多允许 ⟦number:«n2» 条⟧。",
                     "ja": "エクスポートツールが大きいページを必要としています。⟦number:最大«n2»件⟧まで許可してください。"},
            "decision": ("cursor pagination with a max page size of «n2»", {
                "en": "the export tool pages through everything and the DB handles «n2»-row pages fine with the index",
                "zh": "导出工具要遍历全部数据，有索引的情况下每页 «n2» 行数据库完全扛得住",
                "ja": "エクスポートは全件を走査し、インデックスがあれば«n2»行のページでもDBは問題ない"}),
        },
        "failure": None,
        "next": ("Add the composite index on (created_at, id) in a migration.", "Announce the new paging fields in the "
                                                                                "changelog."),
        "patch": {
            "python": ("    «entities» = «Repo»(db.session).list_all()\n",
                       "    cursor = decode_cursor(request.args.get(\"cursor\"))\n"
                       "    limit = min(int(request.args.get(\"limit\", PAGE_SIZE)), MAX_PAGE_SIZE)\n"
                       "    «entities», next_cursor = «Repo»(db.session).page(after=cursor, limit=limit)\n"),
            "typescript": ("  const { data } = useQuery(['«entities»'], fetchAll«Entities»);\n",
                           "  const query = useInfiniteQuery({\n    queryKey: ['«entities»'],\n    queryFn: ({ "
                           "pageParam }) => fetch«Entities»Page(pageParam),\n    initialPageParam: null as string | "
                           "null,\n    getNextPageParam: (last) => last.nextCursor,\n  });\n"),
        },
    },
}
