"""ctxlab's DuckDB store: schema and ordered migrations, bulk writes, queries, the LLM call cache.

    from ctxlab import store
    with store.reading("ctxlab.duckdb") as con:
        df = store.strategy_summary(con, store.resolve_run(con, None))

Users' own SQL should read the two stable views, `results` and `estimator_errors` (see
docs/store.md); the tables behind them may change between migrations.
"""

from __future__ import annotations

from ctxlab.store.agreement import agreement_rows, agreement_runs, save_agreement_run
from ctxlab.store.connect import (
    DEFAULT_DB,
    connect,
    default_db,
    is_lock_error,
    reading,
    transaction,
    writing,
)
from ctxlab.store.learn import learn_runs, save_learn
from ctxlab.store.llm_cache import LLMCache, default_llm_cache, get_llm_call, open_llm_cache, put_llm_call
from ctxlab.store.queries import (
    compare_runs,
    conversation,
    conversations,
    estimator_summary,
    recorded_compactions,
    resolve_run,
    results,
    runs,
    session_costs,
    skips,
    stored_conversations,
    strategy_summary,
    summaries,
    unit_costs,
)
from ctxlab.store.schema import LATEST, MIGRATIONS, ROW_TABLES, arrow_schema, current_version, migrate
from ctxlab.store.tune import clear_run_rows, run_status, save_search, tune_evaluations, tune_searches
from ctxlab.store.write import (
    copy_llm_calls,
    done_keys,
    finish_run,
    insert_arrow,
    start_run,
    write_batch,
)

__all__ = [
    "DEFAULT_DB", "LATEST", "LLMCache", "MIGRATIONS", "ROW_TABLES", "agreement_rows", "agreement_runs",
    "arrow_schema", "clear_run_rows", "compare_runs", "connect", "conversation", "conversations", "copy_llm_calls",
    "current_version", "default_db", "default_llm_cache", "done_keys", "estimator_summary", "finish_run",
    "get_llm_call", "insert_arrow", "is_lock_error", "learn_runs", "migrate", "open_llm_cache", "put_llm_call", "reading",
    "recorded_compactions", "resolve_run", "results", "run_status", "runs", "save_agreement_run", "save_learn", "save_search",
    "session_costs", "skips", "start_run", "stored_conversations", "strategy_summary", "summaries", "transaction",
    "tune_evaluations", "tune_searches", "unit_costs", "write_batch", "writing",
]
