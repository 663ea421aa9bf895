"""The store's tables as data, and the ordered migrations that create them.

Each table is declared once as ``(column, DuckDB type)`` pairs; the DDL and the Arrow schema the
replay workers build their rows with both derive from it, so the two never drift apart. A
migration runs once, in order, inside a transaction, and is recorded in `schema_version`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import duckdb
import pyarrow as pa

Columns = tuple[tuple[str, str], ...]

RUNS: Columns = (
    ("run_id", "VARCHAR"), ("name", "VARCHAR"), ("config", "JSON"), ("versions", "JSON"),
    ("fingerprints", "JSON"), ("notes", "JSON"), ("started_at", "TIMESTAMP"),
    ("finished_at", "TIMESTAMP"), ("status", "VARCHAR"), ("conversations", "BIGINT"),
    ("units", "BIGINT"), ("errors", "BIGINT"), ("skips", "BIGINT"), ("wall_s", "DOUBLE"),
)
CONVERSATIONS: Columns = (
    ("run_id", "VARCHAR"), ("dataset", "VARCHAR"), ("seq", "BIGINT"), ("conversation_id", "VARCHAR"),
    ("n_messages", "INTEGER"), ("tokens", "JSON"), ("meta", "JSON"), ("record", "JSON"),
)
RESULT_ROWS: Columns = (
    ("run_id", "VARCHAR"), ("dataset", "VARCHAR"), ("seq", "BIGINT"), ("unit", "INTEGER"),
    ("conversation_id", "VARCHAR"), ("strategy", "VARCHAR"), ("label", "VARCHAR"), ("params", "JSON"),
    ("counter", "VARCHAR"), ("window", "INTEGER"), ("mode", "VARCHAR"), ("turn", "INTEGER"),
    ("messages_in", "INTEGER"), ("input_messages", "INTEGER"), ("tokens_before", "INTEGER"),
    ("tokens_input", "INTEGER"), ("tokens_after", "INTEGER"), ("retained_ratio", "DOUBLE"),
    ("fits", "BOOLEAN"), ("reason", "VARCHAR"), ("messages_kept", "INTEGER"),
    ("messages_truncated", "INTEGER"), ("messages_dropped", "INTEGER"), ("messages_added", "INTEGER"),
    ("tool_pairs_intact", "BOOLEAN"), ("orphan_calls", "INTEGER"), ("orphan_results", "INTEGER"),
    ("system_kept", "BOOLEAN"), ("newest_user_kept", "BOOLEAN"), ("fact_recall", "DOUBLE"),
    ("facts_total", "INTEGER"), ("facts_kept", "INTEGER"), ("facts_missing", "JSON"),
    ("has_summary", "BOOLEAN"), ("summary_tokens", "INTEGER"), ("llm_calls", "INTEGER"),
    ("llm_input_tokens", "BIGINT"), ("llm_output_tokens", "BIGINT"), ("llm_cost_usd", "DOUBLE"),
    ("llm_latency_ms", "DOUBLE"), ("latency_ms", "DOUBLE"), ("status", "VARCHAR"), ("error", "VARCHAR"),
    ("metric_error", "VARCHAR"),
)
RESULT_REFS: Columns = (
    ("run_id", "VARCHAR"), ("dataset", "VARCHAR"), ("seq", "BIGINT"), ("unit", "INTEGER"),
    ("reference", "VARCHAR"), ("reference_tokens_before", "INTEGER"),
    ("reference_tokens_after", "INTEGER"), ("fits_reference", "BOOLEAN"),
)
ESTIMATOR_ROWS: Columns = (
    ("run_id", "VARCHAR"), ("dataset", "VARCHAR"), ("seq", "BIGINT"), ("conversation_id", "VARCHAR"),
    ("message_id", "VARCHAR"), ("role", "VARCHAR"), ("content_kind", "VARCHAR"), ("language", "VARCHAR"),
    ("chars", "INTEGER"), ("counter", "VARCHAR"), ("reference", "VARCHAR"), ("estimated", "INTEGER"),
    ("actual", "INTEGER"),
)
ESTIMATOR_CONVERSATIONS: Columns = (
    ("run_id", "VARCHAR"), ("dataset", "VARCHAR"), ("seq", "BIGINT"), ("conversation_id", "VARCHAR"),
    ("counter", "VARCHAR"), ("reference", "VARCHAR"), ("estimated", "BIGINT"), ("actual", "BIGINT"),
)
SUMMARIES: Columns = (
    ("run_id", "VARCHAR"), ("dataset", "VARCHAR"), ("seq", "BIGINT"), ("unit", "INTEGER"),
    ("conversation_id", "VARCHAR"), ("strategy", "VARCHAR"), ("label", "VARCHAR"), ("counter", "VARCHAR"),
    ("window", "INTEGER"), ("mode", "VARCHAR"), ("turn", "INTEGER"), ("summary", "VARCHAR"),
    ("summary_tokens", "INTEGER"), ("metrics", "JSON"),
)
RECORDED_COMPACTIONS: Columns = (
    ("run_id", "VARCHAR"), ("dataset", "VARCHAR"), ("seq", "BIGINT"), ("conversation_id", "VARCHAR"),
    ("compaction", "INTEGER"), ("cut_index", "INTEGER"), ("at_index", "INTEGER"), ("strategy", "VARCHAR"),
    ("counter", "VARCHAR"), ("tokens_before", "BIGINT"), ("recorded_tokens_before", "BIGINT"), ("window", "INTEGER"),
    ("tokens_after", "INTEGER"), ("summary_tokens", "INTEGER"), ("fits", "BOOLEAN"), ("fact_recall", "DOUBLE"),
    ("facts_total", "INTEGER"), ("facts_kept", "INTEGER"), ("facts_missing", "JSON"), ("summary", "VARCHAR"),
    ("error", "VARCHAR"),
)
RESULT_COSTS: Columns = (
    ("run_id", "VARCHAR"), ("dataset", "VARCHAR"), ("seq", "BIGINT"), ("unit", "INTEGER"),
    ("price_model", "VARCHAR"), ("prompt_tokens", "INTEGER"), ("input_tokens", "INTEGER"),
    ("cache_read_tokens", "INTEGER"), ("cache_write_tokens", "INTEGER"), ("output_tokens", "INTEGER"),
    ("summarizer_cost_usd", "DOUBLE"), ("cost_usd", "DOUBLE"),
)
AGREEMENT_ROWS: Columns = (
    ("run_id", "VARCHAR"), ("dataset", "VARCHAR"), ("seq", "BIGINT"), ("conversation_id", "VARCHAR"),
    ("call", "INTEGER"), ("strategy", "VARCHAR"), ("label", "VARCHAR"), ("params", "JSON"), ("counter", "VARCHAR"),
    ("window", "INTEGER"), ("model", "VARCHAR"), ("tokens_sent", "INTEGER"), ("fits", "BOOLEAN"),
    ("recorded_calls", "JSON"), ("recorded_name", "VARCHAR"), ("proposed_name", "VARCHAR"),
    ("proposed_arguments", "VARCHAR"), ("proposed_calls", "INTEGER"), ("proposed_text", "VARCHAR"),
    ("text_answer", "BOOLEAN"), ("name_match", "BOOLEAN"), ("arg_exact", "DOUBLE"), ("arg_overlap", "DOUBLE"),
    ("arg_tokens", "DOUBLE"), ("input_tokens", "INTEGER"), ("output_tokens", "INTEGER"), ("cost_usd", "DOUBLE"),
    ("latency_ms", "DOUBLE"), ("cached", "BOOLEAN"), ("error", "VARCHAR"),
)
AGREEMENT_RUNS: Columns = (
    ("run_id", "VARCHAR"), ("name", "VARCHAR"), ("config", "JSON"), ("versions", "JSON"), ("notes", "JSON"),
    ("started_at", "TIMESTAMP"), ("finished_at", "TIMESTAMP"), ("status", "VARCHAR"), ("sessions", "BIGINT"),
    ("calls", "BIGINT"), ("errors", "BIGINT"), ("wall_s", "DOUBLE"),
)
_GROUNDED_COUNTS = (
    "needed_total", "needed_kept", "needed_kept_in_context", "needed_old_total", "needed_old_kept",
    "needed_old_kept_in_context", "needed_regex_total", "needed_regex_kept", "needed_regex_kept_in_context",
    "needed_path_total", "needed_path_kept", "needed_identifier_total", "needed_identifier_kept",
    "needed_number_total", "needed_number_kept", "needed_other_total", "needed_other_kept", "refetch_tokens",
    "refetch_messages", "instructions_total", "instructions_kept",
)
RESULT_GROUNDED_V6: Columns = (
    ("run_id", "VARCHAR"), ("dataset", "VARCHAR"), ("seq", "BIGINT"), ("unit", "INTEGER"),
    *((c, "INTEGER") for c in _GROUNDED_COUNTS), ("needed_lost", "JSON"), ("instructions_lost", "JSON"),
)
# Migration 10 (issue 29): the hindsight limit at the unit's own tokens (`ctxlab.metrics.limit`).
LIMIT_COLUMNS: Columns = (("limit_kept", "INTEGER"),)
RESULT_GROUNDED: Columns = (*RESULT_GROUNDED_V6, *LIMIT_COLUMNS)
# `ctxlab tune` (issue 24): a search of one preset's knobs, and each setting it evaluated; the
# setting's rows are an ordinary run (`run_id`), these say which runs one search compared and how.
TUNE_SEARCHES: Columns = (
    ("search_id", "VARCHAR"), ("name", "VARCHAR"), ("preset", "VARCHAR"), ("window", "INTEGER"), ("scope", "JSON"),
    ("sources", "JSON"), ("method", "VARCHAR"), ("goal", "JSON"), ("knobs", "JSON"), ("trials", "INTEGER"),
    ("seed", "INTEGER"), ("pick_row", "INTEGER"), ("evidence", "VARCHAR"), ("created_at", "TIMESTAMP"),
    ("wall_s", "DOUBLE"),
)
TUNE_EVALUATIONS: Columns = (
    ("search_id", "VARCHAR"), ("evaluation", "INTEGER"), ("setting_key", "VARCHAR"), ("run_id", "VARCHAR"),
    ("label", "VARCHAR"), ("knob_values", "JSON"), ("params", "JSON"), ("measures", "JSON"), ("front", "JSON"),
    ("on_front", "BOOLEAN"), ("ties", "JSON"), ("is_default", "BOOLEAN"), ("picked", "BOOLEAN"), ("cached", "BOOLEAN"),
)
# `ctxlab compactions --db` (issue 28): each recorded compaction graded by what came after it, the
# agent's own context and each stand-in at the same call; one grading per command run.
COMPACTION_GRADES: Columns = (
    ("grading_id", "VARCHAR"), ("created_at", "TIMESTAMP"), ("counter", "VARCHAR"),
    ("conversation_id", "VARCHAR"), ("compaction", "INTEGER"), ("index", "INTEGER"), ("at", "INTEGER"),
    ("agent", "VARCHAR"), ("trigger", "VARCHAR"), ("candidate", "VARCHAR"), ("calls", "INTEGER"), ("needed", "INTEGER"),
    ("needed_kept", "INTEGER"), ("needed_in_context", "INTEGER"), ("needed_recall", "DOUBLE"),
    ("in_context_recall", "DOUBLE"), ("non_regex", "INTEGER"), ("non_regex_kept", "INTEGER"),
    ("non_regex_recall", "DOUBLE"), ("instructions", "INTEGER"), ("instructions_kept", "INTEGER"),
    ("instruction_survival", "DOUBLE"), ("summary_tokens", "INTEGER"), ("context_tokens", "INTEGER"),
    ("refetch_observed_calls", "INTEGER"), ("refetch_observed_tokens", "BIGINT"),
    ("refetch_model_tokens", "BIGINT"), ("lost", "JSON"), ("error", "VARCHAR"),
)
# `ctxlab learn` (issue 29): one fitted model, the sessions on each side of its split and what the
# judged policies scored there; the judging replay is an ordinary run (`run_id`).
LEARN_RUNS: Columns = (
    ("learn_id", "VARCHAR"), ("name", "VARCHAR"), ("sources", "JSON"), ("options", "JSON"), ("train", "JSON"),
    ("test", "JSON"), ("model_path", "VARCHAR"), ("model_sha256", "VARCHAR"), ("model", "JSON"), ("fit", "JSON"),
    ("results", "JSON"), ("run_id", "VARCHAR"), ("created_at", "TIMESTAMP"), ("wall_s", "DOUBLE"), ("cpu_s", "DOUBLE"),
)
SKIPS: Columns = (("run_id", "VARCHAR"), ("dataset", "VARCHAR"), ("where", "VARCHAR"), ("reason", "VARCHAR"))
DONE: Columns = (("run_id", "VARCHAR"), ("dataset", "VARCHAR"), ("seq", "BIGINT"), ("units", "INTEGER"))
LLM_CALLS: Columns = (
    ("key", "VARCHAR PRIMARY KEY"), ("model", "VARCHAR"), ("prompt_name", "VARCHAR"), ("params", "JSON"),
    ("input_hash", "VARCHAR"), ("response", "VARCHAR"), ("input_tokens", "INTEGER"),
    ("output_tokens", "INTEGER"), ("cost_usd", "DOUBLE"), ("latency_ms", "DOUBLE"), ("error", "VARCHAR"),
    ("created_at", "TIMESTAMP"),
)

RUN_KEY = ("run_id", "dataset", "seq")  # the columns the replay adds to every metric row


class EstimatorRow(NamedTuple):
    """One message (or provider delta span) counted by an estimator and by a reference."""

    conversation_id: str
    message_id: str
    role: str
    content_kind: str
    language: str
    chars: int
    counter: str
    reference: str
    estimated: int
    actual: int


class EstimatorConversationRow(NamedTuple):
    """One whole request (messages and tool definitions) counted by an estimator and a reference."""

    conversation_id: str
    counter: str
    reference: str
    estimated: int
    actual: int


class RecordedCompactionRow(NamedTuple):
    """An agent's own compaction, or a ctxlab strategy at the same cut (None where not applicable)."""

    conversation_id: str
    compaction: int
    cut_index: int | None = None
    at_index: int | None = None
    strategy: str | None = None
    counter: str | None = None
    tokens_before: int | None = None
    recorded_tokens_before: int | None = None
    window: int | None = None
    tokens_after: int | None = None
    summary_tokens: int | None = None
    fits: bool | None = None
    fact_recall: float | None = None
    facts_total: int | None = None
    facts_kept: int | None = None
    facts_missing: str | None = None
    summary: str | None = None
    error: str | None = None


class CompactionGradeRow(NamedTuple):
    """One recorded compaction and one candidate (``agent``: the recorded summary and kept messages;
    else a preset run at the same call) graded over the calls up to the next compaction
    (`ctxlab.metrics.compaction_grades`); `agent` is the log's format, `trigger` the record's
    (Claude Code: auto or manual; None when the log does not say); counts are None with `error`. Recalls are None when the
    calls needed nothing only the summarized part held; `lost` is a JSON list (first 50);
    `refetch_observed_*` are the agent's (None for a stand-in, which made no calls)."""

    conversation_id: str
    compaction: int
    index: int | None = None  # type: ignore[assignment]  # the record's own name, shadowing tuple.index on purpose
    at: int | None = None
    agent: str | None = None
    trigger: str | None = None
    candidate: str = "agent"
    calls: int | None = None
    needed: int | None = None
    needed_kept: int | None = None
    needed_in_context: int | None = None
    needed_recall: float | None = None
    in_context_recall: float | None = None
    non_regex: int | None = None
    non_regex_kept: int | None = None
    non_regex_recall: float | None = None
    instructions: int | None = None
    instructions_kept: int | None = None
    instruction_survival: float | None = None
    summary_tokens: int | None = None
    context_tokens: int | None = None
    refetch_observed_calls: int | None = None
    refetch_observed_tokens: int | None = None
    refetch_model_tokens: int | None = None
    lost: str | None = None
    error: str | None = None


class ResultCostRow(NamedTuple):
    """One per-turn unit priced by one model with prompt caching (`ctxlab.cost`): its prompt split
    into uncached input, cache reads and cache writes, its output, and its dollars (the summarizer's
    own LLM calls included, also shown apart)."""

    unit: int
    price_model: str
    prompt_tokens: int
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    summarizer_cost_usd: float
    cost_usd: float


class AgreementRow(NamedTuple):
    """One sampled agent call, one policy: what the model proposed from what the policy sent, scored
    against the recorded call (`ctxlab.metrics.agreement`); scores are None when `error` is set."""

    conversation_id: str
    call: int
    strategy: str
    label: str
    params: str
    counter: str
    window: int
    model: str
    tokens_sent: int | None = None
    fits: bool | None = None
    recorded_calls: str | None = None
    recorded_name: str | None = None
    proposed_name: str | None = None
    proposed_arguments: str | None = None
    proposed_calls: int | None = None
    proposed_text: str | None = None
    text_answer: bool | None = None
    name_match: bool | None = None
    arg_exact: float | None = None
    arg_overlap: float | None = None
    arg_tokens: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    latency_ms: float | None = None
    cached: bool | None = None
    error: str | None = None


class GroundedRow(NamedTuple):
    """One per-turn unit's grounded measures (`ctxlab.metrics.grounded.CallMeasures`): needed strings
    of the recorded next action (all, old-only, regex-found, by kind) and how many the call kept,
    kept with their context, the refetch cost of the lost ones, and the user's instructions kept.
    ``needed_lost`` and ``instructions_lost`` are JSON lists (first 50)."""

    unit: int
    needed_total: int
    needed_kept: int
    needed_kept_in_context: int
    needed_old_total: int
    needed_old_kept: int
    needed_old_kept_in_context: int
    needed_regex_total: int
    needed_regex_kept: int
    needed_regex_kept_in_context: int
    needed_path_total: int
    needed_path_kept: int
    needed_identifier_total: int
    needed_identifier_kept: int
    needed_number_total: int
    needed_number_kept: int
    needed_other_total: int
    needed_other_kept: int
    refetch_tokens: int
    refetch_messages: int
    instructions_total: int
    instructions_kept: int
    needed_lost: str
    instructions_lost: str
    limit_kept: int | None = None


# Which table each typed metric row goes to; its fields are that table's columns after `RUN_KEY`.
ROW_TYPES: dict[type[Any], str] = {EstimatorRow: "estimator_rows",
                                   EstimatorConversationRow: "estimator_conversations",
                                   RecordedCompactionRow: "recorded_compactions",
                                   ResultCostRow: "result_costs", AgreementRow: "agreement_rows",
                                   GroundedRow: "result_grounded"}

# The tables replay workers fill; the order is the order a batch is written in.
ROW_TABLES: dict[str, Columns] = {
    "conversations": CONVERSATIONS, "result_rows": RESULT_ROWS, "result_refs": RESULT_REFS,
    "estimator_rows": ESTIMATOR_ROWS, "estimator_conversations": ESTIMATOR_CONVERSATIONS,
    "summaries": SUMMARIES, "recorded_compactions": RECORDED_COMPACTIONS, "result_costs": RESULT_COSTS,
    "agreement_rows": AGREEMENT_ROWS, "result_grounded": RESULT_GROUNDED, "done": DONE,
}


def _check_row_types() -> None:
    """Fail at import if a typed row drifts from its table's columns."""
    for row_type, table in ROW_TYPES.items():
        columns = tuple(c for c, _ in ROW_TABLES[table] if c not in RUN_KEY)
        if row_type._fields != columns:
            raise AssertionError(f"{row_type.__name__} fields {row_type._fields} != {table} columns {columns}")


_check_row_types()
GRADING_KEY = ("grading_id", "created_at", "counter")  # what `ctxlab compactions --db` adds to each row
if CompactionGradeRow._fields != tuple(c for c, _ in COMPACTION_GRADES if c not in GRADING_KEY):
    raise AssertionError("CompactionGradeRow drifted from the compaction_grades columns")
_ARROW_TYPES = {"VARCHAR": pa.string(), "JSON": pa.string(), "BIGINT": pa.int64(), "INTEGER": pa.int32(),
                "DOUBLE": pa.float64(), "BOOLEAN": pa.bool_(), "TIMESTAMP": pa.timestamp("us")}
_DICTIONARY = pa.dictionary(pa.int32(), pa.string())


def arrow_schema(columns: Columns, *, dictionary: bool = False) -> pa.Schema:
    """The Arrow schema of a table's columns (JSON travels as strings); with `dictionary`, its string
    columns dictionary-encoded (how replay rows travel: a session repeats its labels, specs,
    summaries and missing facts from one call to the next)."""
    types = {name: _ARROW_TYPES[kind.split()[0]] for name, kind in columns}
    if dictionary:
        types = {name: _DICTIONARY if kind == pa.string() else kind for name, kind in types.items()}
    return pa.schema(list(types.items()))


def decoded(schema: pa.Schema) -> pa.Schema:
    """`schema` with its dictionary-encoded columns as their plain value types."""
    return pa.schema([(f.name, f.type.value_type if pa.types.is_dictionary(f.type) else f.type) for f in schema])


def create_table(name: str, columns: Columns, extra: str = "") -> str:
    cols = ", ".join(f'"{c}" {t}' for c, t in columns)
    return f"CREATE TABLE IF NOT EXISTS {name} ({cols}{', ' + extra if extra else ''})"


def first_row(result: duckdb.DuckDBPyConnection) -> tuple | None:
    """The first row of an executed query, or None (DuckDB 2.0 leaves a result half-read after
    `fetchone`, which blocks the connection's next statement, so the rows are read in full)."""
    rows = result.fetchall()
    return rows[0] if rows else None


# Migration 7 renamed `budget` to `window` (issue 21). Migrations 1-6 still build the tables and
# views as they were, so a new store and one written by any older ctxlab reach the same schema by the
# same steps. SQL must write the new name "window" (quoted: DuckDB reserves it) or r.window.
BEFORE_V7 = {"window": "budget"}  # name now -> name in stores before migration 7


def _before_v7(columns: Columns) -> Columns:
    return tuple((BEFORE_V7.get(c, c), t) for c, t in columns)


def _view_before_v7(sql: str) -> str:
    return sql.replace("r.window", "r.budget")


RESULTS_VIEW = """
CREATE OR REPLACE VIEW results AS
SELECT r.run_id, r.dataset, r.seq, r.unit, r.conversation_id, r.strategy, r.label, r.params, r.counter,
       r.window, r.mode, r.turn, r.messages_in, r.input_messages, r.tokens_before, r.tokens_input,
       r.tokens_after, r.retained_ratio, r.fits, r.reason, f.reference, f.reference_tokens_before,
       f.reference_tokens_after, f.fits_reference, r.messages_kept, r.messages_truncated,
       r.messages_dropped, r.messages_added, r.tool_pairs_intact, r.orphan_calls, r.orphan_results,
       r.system_kept, r.newest_user_kept, r.fact_recall, r.facts_total, r.facts_kept, r.facts_missing,
       r.has_summary, r.summary_tokens, r.llm_calls, r.llm_input_tokens, r.llm_output_tokens,
       r.llm_cost_usd, r.llm_latency_ms, r.latency_ms, r.status, r.error, r.metric_error
FROM result_rows r LEFT JOIN result_refs f USING (run_id, dataset, seq, unit)
"""
ESTIMATOR_VIEW = """
CREATE OR REPLACE VIEW estimator_errors AS
SELECT run_id, dataset, seq, conversation_id, message_id, role, content_kind, language, chars, counter,
       reference, estimated, actual, estimated - actual AS error,
       CASE WHEN actual > 0 THEN 100.0 * (estimated - actual) / actual END AS error_pct
FROM estimator_rows
"""
ESTIMATOR_CONVERSATIONS_VIEW = """
CREATE OR REPLACE VIEW estimator_conversation_errors AS
SELECT *, estimated - actual AS error,
       CASE WHEN actual > 0 THEN 100.0 * (estimated - actual) / actual END AS error_pct
FROM estimator_conversations
"""


def _v1_tables(con: duckdb.DuckDBPyConnection) -> None:
    """Every table; only small ones get keys (an index slows bulk inserts of the big ones)."""
    con.execute(create_table("runs", RUNS, "PRIMARY KEY (run_id)"))
    con.execute(create_table("done", DONE, "PRIMARY KEY (run_id, dataset, seq)"))
    con.execute(create_table("llm_calls", LLM_CALLS))
    con.execute(create_table("skips", SKIPS))
    for name in ("conversations", "result_rows", "result_refs", "estimator_rows",
                 "estimator_conversations", "summaries"):
        con.execute(create_table(name, _before_v7(ROW_TABLES[name])))


def _v2_views(con: duckdb.DuckDBPyConnection) -> None:
    for view in (RESULTS_VIEW, ESTIMATOR_VIEW, ESTIMATOR_CONVERSATIONS_VIEW):
        con.execute(_view_before_v7(view))


def _v3_recorded_compactions(con: duckdb.DuckDBPyConnection) -> None:
    """Agent logs' own compactions beside ctxlab's strategies at the same cut (issue 7)."""
    con.execute(create_table("recorded_compactions", _before_v7(RECORDED_COMPACTIONS)))


UNIT_COSTS_VIEW = """
CREATE OR REPLACE VIEW unit_costs AS
SELECT r.run_id, r.dataset, r.seq, r.unit, r.conversation_id, r.strategy, r.label, r.counter, r.window, r.mode,
       r.turn, c.price_model, c.prompt_tokens, c.input_tokens, c.cache_read_tokens, c.cache_write_tokens,
       c.output_tokens, c.summarizer_cost_usd, c.cost_usd
FROM result_rows r JOIN result_costs c USING (run_id, dataset, seq, unit)
"""


def _v4_costs(con: duckdb.DuckDBPyConnection) -> None:
    """Per-turn units priced with prompt caching (issue 15), and their stable view."""
    con.execute(create_table("result_costs", RESULT_COSTS))
    con.execute(_view_before_v7(UNIT_COSTS_VIEW))


def _v5_agreement(con: duckdb.DuckDBPyConnection) -> None:
    """Next-action agreement (`ctxlab agree`, issue 20): its runs, kept apart from replay runs so
    that "the newest run" still means a replay, and one row per run x policy x session x call."""
    con.execute(create_table("agreement_runs", AGREEMENT_RUNS, "PRIMARY KEY (run_id)"))
    con.execute(create_table("agreement_rows", _before_v7(AGREEMENT_ROWS)))


GROUNDED_COLUMNS = (*_GROUNDED_COUNTS, "needed_lost", "instructions_lost")
RESULTS_VIEW_V6 = RESULTS_VIEW.replace(
    ", r.metric_error\n", ", r.metric_error, " + ", ".join(f"g.{c}" for c in GROUNDED_COLUMNS) + "\n").replace(
    "USING (run_id, dataset, seq, unit)\n",
    "USING (run_id, dataset, seq, unit)\nLEFT JOIN result_grounded g USING (run_id, dataset, seq, unit)\n")
if "result_grounded" not in RESULTS_VIEW_V6 or "g.needed_total" not in RESULTS_VIEW_V6:
    raise AssertionError("the results view of migration 6 no longer derives from RESULTS_VIEW")


def _v6_grounded(con: duckdb.DuckDBPyConnection) -> None:
    """Per-turn units' grounded measures (issue 20), joined into the `results` view."""
    con.execute(create_table("result_grounded", RESULT_GROUNDED_V6))
    con.execute(_view_before_v7(RESULTS_VIEW_V6))


def _v7_window(con: duckdb.DuckDBPyConnection) -> None:
    """``budget`` renamed ``window`` in every table that has it (issue 21: one word for the window
    from the CLI to the store), and the views that show it recreated over the new name."""
    for table, columns in ROW_TABLES.items():
        for new, old in BEFORE_V7.items():
            if new in dict(columns):
                con.execute(f'ALTER TABLE {table} RENAME COLUMN "{old}" TO "{new}"')
    con.execute(RESULTS_VIEW_V6)
    con.execute(UNIT_COSTS_VIEW)


def _v8_tune(con: duckdb.DuckDBPyConnection) -> None:
    """`ctxlab tune` searches and the settings each evaluated (issue 24)."""
    con.execute(create_table("tune_searches", TUNE_SEARCHES, "PRIMARY KEY (search_id)"))
    con.execute(create_table("tune_evaluations", TUNE_EVALUATIONS))


def _v9_compaction_grades(con: duckdb.DuckDBPyConnection) -> None:
    """Recorded compactions graded by what came after them, beside the stand-ins (issue 28)."""
    con.execute(create_table("compaction_grades", COMPACTION_GRADES))


RESULTS_VIEW_V10 = RESULTS_VIEW_V6.replace(", g.instructions_lost\n", ", g.instructions_lost, g.limit_kept\n")
if "g.limit_kept" not in RESULTS_VIEW_V10:
    raise AssertionError("the results view of migration 10 no longer derives from RESULTS_VIEW_V6")


def _v10_limit_learn(con: duckdb.DuckDBPyConnection) -> None:
    """The hindsight limit per per-turn unit, in the `results` view, and `ctxlab learn` runs (issue 29)."""
    for name, kind in LIMIT_COLUMNS:
        con.execute(f"ALTER TABLE result_grounded ADD COLUMN {name} {kind}")
    con.execute(RESULTS_VIEW_V10)
    con.execute(create_table("learn_runs", LEARN_RUNS, "PRIMARY KEY (learn_id)"))


MIGRATIONS: tuple[tuple[int, str, Callable[[duckdb.DuckDBPyConnection], None]], ...] = (
    (1, "tables", _v1_tables),
    (2, "views", _v2_views),
    (3, "recorded compactions", _v3_recorded_compactions),
    (4, "costs", _v4_costs),
    (5, "next-action agreement", _v5_agreement),
    (6, "grounded measures", _v6_grounded),
    (7, "window", _v7_window),
    (8, "tune searches", _v8_tune),
    (9, "compaction grades", _v9_compaction_grades),
    (10, "hindsight limit and learn runs", _v10_limit_learn),
)
LATEST = MIGRATIONS[-1][0]


def current_version(con: duckdb.DuckDBPyConnection) -> int:
    """The newest migration applied to this database (0 for an empty one)."""
    exists = con.execute("SELECT count(*) FROM information_schema.tables "
                         "WHERE table_name = 'schema_version'").fetchall()[0][0]
    if not exists:
        return 0
    return con.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchall()[0][0]


def migrate(con: duckdb.DuckDBPyConnection) -> int:
    """Apply the migrations this database lacks, each once and in order; returns the version."""
    con.execute("CREATE TABLE IF NOT EXISTS schema_version "
                "(version INTEGER PRIMARY KEY, name VARCHAR, applied_at TIMESTAMP)")
    version = current_version(con)
    for number, name, apply in MIGRATIONS:
        if number <= version:
            continue
        con.execute("BEGIN TRANSACTION")
        try:
            apply(con)
            con.execute("INSERT INTO schema_version VALUES (?, ?, current_timestamp)", [number, name])
            con.execute("COMMIT")
        except Exception:
            con.execute("ROLLBACK")
            raise
        version = number
    return version
