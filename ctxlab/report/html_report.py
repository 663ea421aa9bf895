"""The shareable report: one self-contained HTML file a teammate opens without Python.

    from ctxlab.report import write_report
    write_report("ctxlab.duckdb", "reports/report.html")

For each run (or the one given): its spec (name, config, versions, dataset fingerprints), the
headline table, the figures of notebooks 1-4, skipped inputs, and example conversations showing
what a few strategies kept, truncated, dropped or summarized. Figures are base64 PNG, styles are
inline, there is no JavaScript, and every piece of dataset text is escaped (`ctxlab.report.htmlkit`).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ctxlab import store
from ctxlab.analysis import frames
from ctxlab.analysis import logs as L
from ctxlab.analysis import plots as P
from ctxlab.analysis import tables as A
from ctxlab.analysis.standin import StandinGap
from ctxlab.analysis.standin_shipped import stored_gap
from ctxlab.analysis.verdicts import RunPolicies, run_policies
from ctxlab.errors import CtxlabError
from ctxlab.report import htmlkit as H
from ctxlab.report.examples import example_conversations, examples_section
from ctxlab.report.policy_sections import costs_section, policies_section
from ctxlab.report.run_spec import spec_section
from ctxlab.report.verdicts import named, verdict_section

TARGET_RECALL = 0.95
MAX_OVERFLOW = 0.0
# The mode is each table's own (one per mode); needed recall, the quality measure, comes first.
HEADLINE = {"label": "strategy", "counter": "counter", "window": "window", "units": "units",
            "needed": "needed recall [95% CI]", "retained": "retained [95% CI]", "believed_fit": "fits (own counter)"}
HEADLINE_KINDS = {"window": "int", "units": "int", "believed_fit": "pct", "tool_integrity": "pct",
                  "fact_recall": "pct", "p50_latency_ms": "ms"}


@dataclass
class RunData:
    """Everything the report shows about one run, read in one short read-only session."""

    info: dict[str, Any]
    results: pd.DataFrame
    estimators: pd.DataFrame
    summaries: pd.DataFrame
    skips: pd.DataFrame
    conversations: pd.DataFrame
    variants: pd.DataFrame
    session_costs: pd.DataFrame
    unit_costs: pd.DataFrame
    standin: StandinGap | None = None


def load_run(con: Any, run_id: str) -> RunData:
    """Read one run's frames (the per-call costs of the first price model only: one session is shown)."""
    sessions = store.session_costs(con, run_id)
    first = sorted(sessions["price_model"].unique())[0] if not sessions.empty else None
    units = store.unit_costs(con, run_id, price_model=first) if first else sessions.iloc[0:0]
    return RunData(frames.run_info(con, run_id), frames.results(con, run_id), frames.estimator_rows(con, run_id),
                   store.summaries(con, run_id), store.skips(con, run_id), store.conversations(con, run_id),
                   frames.variants(con, run_id), sessions, units, stored_gap(con))


def write_report(db_path: str | Path, out_path: str | Path, *, run_id: str | None = None) -> Path:
    """Write the HTML report of a database.

    Args:
        db_path: the DuckDB file written by `ctxlab replay` / `ctxlab demo`.
        out_path: the HTML file to write (a directory gets ``report.html`` inside it).
        run_id: one run (id, id prefix or name); None reports every run, oldest first, but the
            runs `ctxlab tune` stores one per evaluated setting (counted in a line; name one to see it).

    Returns:
        The path written.

    Raises:
        CtxlabError: no database, no runs, or an unknown run.
    """
    out = Path(out_path)
    if out.is_dir() or not out.suffix:
        out = out / "report.html"
    with store.reading(db_path) as con:
        ids = [store.resolve_run(con, run_id)] if run_id is not None else frames.run_ids(con)
        if not ids:
            store.resolve_run(con, None)  # raises the store's "no runs yet" message
        tuned = [rid for rid in ids if run_id is None and "tune" in (frames.run_info(con, rid).get("config") or {})]
        runs = [load_run(con, rid) for rid in ids if rid not in tuned or len(tuned) == len(ids)]
    records = _records(db_path, runs)
    found = {named(run)[0]: run_policies(run.results, run.session_costs, standin=run.standin) for run in runs}
    body = [*_header(db_path, runs, len(ids) - len(runs)),
            *verdict_section([(*named(run), v.verdicts if (v := found[named(run)[0]]) else []) for run in runs]),
            *_contents(runs)]
    seen_estimators: dict[str, str] = {}
    for run in runs:
        rid = named(run)[0]
        body += _run_section(run, seen_estimators, records.get(rid, {}), found[rid])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(H.page("ctxlab report", body), encoding="utf-8")
    return out


def _records(db_path: str | Path, runs: list[RunData]) -> dict[str, dict[tuple[str, int], Any]]:
    """The stored conversations the examples re-run (a second short read, only what is needed)."""
    wanted = {run.info["run_id"]: example_conversations(run.conversations) for run in runs}
    out: dict[str, dict[tuple[str, int], Any]] = {}
    with store.reading(db_path) as con:
        for rid, rows in wanted.items():
            out[rid] = {}
            for dataset, seq, conversation_id in rows:
                try:
                    out[rid][(dataset, seq)] = store.conversation(con, rid, conversation_id, dataset=dataset)
                except CtxlabError:  # a run stored without records (store_records=False) has no examples
                    continue
    return out


def _header(db_path: str | Path, runs: list[RunData], tuned: int) -> list[str]:
    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    left_out = (f"; {tuned} run(s) ctxlab tune stored, one per setting it evaluated, are left out (the dashboard's "
                "Tuning page reads them; ctxlab report --run NAME reports one)") if tuned else ""
    return ["<h1>ctxlab report</h1>",
            H.para(f"Database {Path(db_path).name}, generated {now}, {len(runs)} run(s){left_out}.", "muted")]


def _contents(runs: list[RunData]) -> list[str]:
    toc = "".join(f'<li><a href="#run-{H.esc(r.info["run_id"])}">{H.esc(r.info.get("name") or r.info["run_id"])}</a>'
                  f' <span class="muted">({H.esc(r.info["run_id"])})</span></li>' for r in runs)
    return ['<h2 id="runs">The runs</h2>',
            H.para("Then, per run: what each context-compression strategy keeps at each token window, whether the "
                   "result really fits under real tokenizers, how wrong token estimators are, how good summaries "
                   "are, the smallest window that meets a target, and which policy to run. Numbers are means over "
                   "the replayed conversations; intervals are 95% bootstrap intervals over conversations."),
            f"<nav><ul>{toc}</ul></nav>"]


def _run_section(run: RunData, seen_estimators: dict[str, str], records: dict,
                 policies: RunPolicies | None) -> list[str]:
    info = run.info
    name = info.get("name") or info["run_id"]
    mode = A.pick_mode(run.results)
    main = run.results[run.results["mode"] == mode] if mode else run.results
    out = [f'<h2 id="run-{H.esc(info["run_id"])}">Run {H.esc(name)}</h2>', *spec_section(info, run.variants)]
    if run.results.empty:
        return [*out, H.para("This run has no results yet.", "warn"), *_skips(run)]
    out += _headline(run.results, mode)
    out += _comparison(run.results, main, mode)
    out += _estimators(run, seen_estimators, name)
    out += _summaries(run, main, mode)
    out += _tuning(main, mode)
    out += policies_section(policies)
    out += costs_section(run.session_costs, run.unit_costs)
    out += _skips(run)
    out += examples_section(run, records)
    return out


def headline_display(table: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, str], dict[str, str]]:
    """The headline table with the CI folded into one text column, and its headers and formats."""
    shown = table.assign(retained=_with_ci(table, "retained_ratio", "retained_low", "retained_high"),
                         needed=_with_ci(table, "needed_recall", "needed_low", "needed_high"))
    columns = dict(HEADLINE)
    kinds = dict(HEADLINE_KINDS)
    for col in [c for c in table.columns if c.startswith("real_fit_")]:
        columns[col] = f"really fits ({col.removeprefix('real_fit_')})"
        kinds[col] = "pct"
    columns |= {"tool_integrity": "tool pairs intact", "errors": "errors", "p50_latency_ms": "p50 ms",
                "fact_recall": "regex fact recall"}
    graded = "needed_recall" in table and table["needed_recall"].notna().any()  # final mode: nothing to grade by
    return shown, {k: v for k, v in columns.items() if k in shown and (graded or k != "needed")}, kinds


def _with_ci(table: pd.DataFrame, mean: str, low: str, high: str) -> list[str]:
    if mean not in table:
        return ["–"] * len(table)
    return [f"{100 * m:.1f}% [{100 * lo:.1f}-{100 * hi:.1f}]" if pd.notna(m) else "–"
            for m, lo, hi in zip(table[mean], table[low], table[high], strict=False)]


def _headline(results: pd.DataFrame, mode: str | None) -> list[str]:
    table = A.headline(results)
    modes = sorted(table["mode"].unique())
    shown_open = "per-turn" if "per-turn" in modes else mode
    out = ["<h3>Headline</h3>",
           H.para("One row per strategy variant (strategy and the counter it trusted) and window. Needed recall: the "
                  "share of the strings the agent's next action used from earlier in the session that were still "
                  "sent (per-turn mode only: a final-mode result has no next action to grade it by). 'fits' is what "
                  "the strategy believed with its own counter; 'really fits' re-counts the result with a real "
                  "tokenizer: a gap between the two is an estimator overflowing a real context window. Regex fact "
                  "recall (ctxlab's own extractors) is kept for comparison.")]
    for m in modes:
        rows = table[table["mode"] == m].sort_values(["window", "needed_recall", "retained_ratio"],
                                                     ascending=[True, False, False], na_position="last")
        shown, columns, kinds = headline_display(rows)
        inner = H.table(shown, columns, kinds, left=("label", "counter"), scroll=True)
        graded = "" if "needed" in columns else ", no needed recall (no next action to grade a final result by)"
        out.append(H.details(f"mode {m}: {len(shown)} rows{graded}", inner, open_=m == shown_open))
    return out


def _figure(fig: Any, alt: str) -> str:
    return H.figure(P.png(fig), alt)


def _comparison(results: pd.DataFrame, main: pd.DataFrame, mode: str | None) -> list[str]:
    return ["<h3>1. Strategy comparison</h3>",
            H.para("Retained-token ratio: the share of the full history's tokens the result keeps (higher keeps more "
                   "context; a strategy should use its window, not waste it)."),
            _figure(P.retained_ratio_curves(A.retained_ci(results)), "retained ratio vs window"),
            H.para(f"Real fit in mode {mode}: a strategy that trusts a character estimator can believe it fits and "
                   "still overflow a real window."),
            _figure(P.overflow_heatmap(A.fit_rates(main)), "real overflow rate"),
            _figure(P.tool_integrity_heatmap(A.tool_integrity(main)), "tool integrity"),
            H.para("Fact recall (ground-truth facts of the conversation still present) against tokens kept; points on "
                   "the frontier are the best trade-offs."),
            _figure(P.pareto(A.pareto_points(main)), "fact recall vs retained ratio")]


def _estimators(run: RunData, seen: dict[str, str], name: str) -> list[str]:
    rows = run.estimators
    out = ["<h3>2. Estimator error</h3>"]
    if rows.empty:
        return [*out, H.para("No estimator rows (the run used --no-estimators).", "muted")]
    table = A.estimator_table(rows)
    key = table.to_csv()
    if key in seen:
        return [*out, H.para(f"Identical to run {seen[key]}'s estimator measurements (same conversations and "
                             "estimators); see there.", "note"), *_near(run.results)]
    seen[key] = name
    refs = L.order_references(rows["reference"].unique())
    ref = L.default_reference(refs)
    mine = rows[rows["reference"] == ref]
    out += [H.para("Per message, estimated tokens against a real tokenizer. Negative errors are undercounts: the "
                   "dangerous direction, where a strategy believes it fits and overflows. 'calibrated' is ctxlab's "
                   "fitted estimator; chars4, chars3, chars2 and ascii_cjk are the seeds' heuristics."),
            _figure(P.estimator_error_box(rows), "estimator error distribution"),
            _figure(P.estimator_heatmap(A.estimator_matrix(mine), title=f"Mean signed error by content kind ({ref})",
                                        xlabel="content kind"), "error by content kind"),
            _figure(P.estimator_heatmap(A.estimator_matrix(mine, columns="language"),
                                        title=f"Mean signed error by language ({ref})", xlabel="language"),
                    "error by language"),
            H.table(table, {"counter": "estimator", "reference": "reference", "n": "messages",
                            "mean_signed_error_pct": "mean signed error %", "mape_pct": "mean |error| %",
                            "p95_abs_error_pct": "p95 |error| %", "underestimate_share": "undercounts"},
                    {"n": "int", "mean_signed_error_pct": "ms", "mape_pct": "ms", "p95_abs_error_pct": "ms",
                     "underestimate_share": "pct"}, left=("counter", "reference"))]
    if L.has_provider(refs):  # agent logs: the provider's billed counts are a reference too
        out += [H.para(L.PROVIDER_NOTE.replace("`", "")),
                _figure(P.reference_heatmap(L.reference_matrix(rows)), "error by reference")]
    return out + _near(run.results)


def _near(results: pd.DataFrame) -> list[str]:
    near = A.near_window(results)
    return ["<h4>Underestimates near the window</h4>",
            H.para("Results the strategy filled to within 10% of the window and believed to fit: how often the real "
                   "tokenizer counts more, and how often the result is really over the window."),
            _figure(P.near_window_bars(near), "near-window overflow"),
            H.table(near, {"counter": "counter", "reference": "reference", "units": "results",
                           "underestimate_rate": "undercounted", "overflow_rate": "really over window",
                           "mean_gap_pct": "mean gap %"},
                    {"units": "int", "underestimate_rate": "pct", "overflow_rate": "pct", "mean_gap_pct": "ms"},
                    left=("counter", "reference"))]


def _summaries(run: RunData, main: pd.DataFrame, mode: str | None) -> list[str]:
    summaries = run.summaries
    quality = A.summary_quality(summaries[summaries["mode"] == mode] if not summaries.empty else summaries)
    out = ["<h3>3. Summary quality, drift and cost</h3>",
           H.para("ROUGE of each summary against the messages it replaced and against the dataset's reference "
                  "summary, and how much it compressed them."),
           _figure(P.summary_quality(quality), "summary quality")]
    if not quality.empty:
        kinds = {c: "float" for c in quality.columns if c not in A.KEYS}
        out.append(H.table(quality, kinds=kinds | {"summaries": "int", "window": "int"},
                           left=("label", "counter", "mode"), scroll=True))
    probes = A.probe_columns(summaries)
    out.append(H.para(f"Probe QA scores: {', '.join(probes)}." if probes else
                      "No probe-QA scores in this run (probes need an LLM judge; see docs/summaries.md).", "muted"))
    drift = A.drift_by_progress(run.results)
    if drift.empty:
        out.append(H.para("No per-turn results, so no drift: replay with --mode per-turn to see how recall decays "
                          "as a session is compacted again and again.", "muted"))
    else:
        out += [H.para("Drift (per-turn mode): the context is compressed before every model call and the result is "
                       "carried forward, as an agent lives it."),
                _figure(P.drift_progress(drift), "drift by progress"),
                _figure(P.drift_cycles(A.drift_by_cycle(run.results)), "drift by compaction cycle")]
    cost = A.cost_table(main)
    out += [_figure(P.cost_latency(cost), "cost and latency"),
            H.table(cost, kinds={"units": "int", "llm_calls": "int", "llm_input_tokens": "int",
                                 "llm_output_tokens": "int", "llm_cost_usd": "float", "mean_summary_tokens": "ms",
                                 "p50_latency_ms": "ms", "p95_latency_ms": "ms", "cost_per_1k_units_usd": "float"},
                    left=("label", "counter", "mode"), scroll=True)]
    return out


def _tuning(main: pd.DataFrame, mode: str | None) -> list[str]:
    chosen = A.smallest_window(main, target_recall=TARGET_RECALL, max_overflow=MAX_OVERFLOW)
    out = ["<h3>4. Window tuning</h3>",
           H.para(f"The smallest window tried (mode {mode}) at which mean fact recall is at least "
                  f"{TARGET_RECALL:.0%} and no result overflows under any reference tokenizer. Run notebook 4 or the "
                  "dashboard for other targets.")]
    if chosen.empty:
        return [*out, H.para("No results to tune.", "muted")]
    best = A.recommend_variant(chosen)
    if best is not None:
        label, counter = best
        grid = A.window_grid(main)
        part = grid[(grid["label"] == label) & (grid["counter"] == counter)]
        mine = chosen[(chosen["label"] == label) & (chosen["counter"] == counter)]
        out.append(H.para(f"Shown: {label} [{counter}], the variant meeting the target at the smallest window "
                          "(else with the best recall)."))
        out.append(_figure(P.window_tuning(part, target_recall=TARGET_RECALL, max_overflow=MAX_OVERFLOW, chosen=mine),
                           "window tuning"))
    out.append(H.table(chosen, {"label": "strategy", "counter": "counter", "dataset": "dataset", "mode": "mode",
                                "window": "smallest window", "fact_recall": "fact recall",
                                "overflow_rate": "real overflow", "windows_tried": "windows tried",
                                "verdict": "verdict"},
                       {"window": "int", "fact_recall": "pct", "overflow_rate": "pct"},
                       left=("label", "counter", "dataset", "mode", "windows_tried", "verdict"), scroll=True))
    return out


def _skips(run: RunData) -> list[str]:
    out = ["<h3>Skipped inputs</h3>"]
    if run.skips.empty:
        return [*out, H.para("None: every input record was valid.", "muted")]
    return [*out, H.table(run.skips, {"dataset": "dataset", "where": "where", "reason": "reason"},
                          left=("dataset", "where", "reason"), scroll=True)]
