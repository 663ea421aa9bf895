"""Summary quality: ROUGE, compression, probe scores, drift over repeated compactions, and cost."""

import streamlit as st

from ctxlab.analysis import logs as L
from ctxlab.analysis import plots as P
from ctxlab.analysis import tables as A
from dashboard import data, ui

db, run_id, dataset, results, mode = ui.run_results("Summary quality")
summaries = data.summaries(db, run_id, dataset)

figure = st.radio("Figure", ["ROUGE and compression", "Drift along the session", "Drift by compaction cycle", "Cost"],
                  horizontal=True, key="sum_figure")
if figure == "ROUGE and compression":
    table = A.summary_quality(summaries[summaries["mode"] == mode] if not summaries.empty else summaries)
    fig = P.summary_quality(table)
    st.caption("ROUGE-L against the dataset's reference summary and against the messages the summary replaced; "
               "compression = summary tokens / compacted tokens.")
elif figure == "Drift along the session":
    table = A.drift_by_progress(results)
    fig = P.drift_progress(table)
    st.caption("Per-turn mode: the context is compressed before every model call and carried forward.")
elif figure == "Drift by compaction cycle":
    table = A.drift_by_cycle(results)
    fig = P.drift_cycles(table)
else:
    cost = A.cost_table(results)
    table = cost[cost["mode"] == mode]
    fig = P.cost_latency(table)
png = ui.show(fig)
st.dataframe(table, hide_index=True, width="stretch")
probes = A.probe_columns(summaries)
if not probes:
    st.caption("No probe-QA scores in this run (probes need an LLM judge; see docs/summaries.md).")
ui.downloads(table, png, "summaries")

if not summaries.empty:
    st.subheader("Read a summary")
    pick = summaries[summaries["mode"] == mode] if (summaries["mode"] == mode).any() else summaries
    options = list(range(min(len(pick), 200)))
    i = st.selectbox("Summary", options, key="sum_pick", format_func=lambda i: (
        f"{pick.iloc[i]['label']} [{pick.iloc[i]['counter']}] window {pick.iloc[i]['window']}, "
        f"{pick.iloc[i]['dataset']} #{pick.iloc[i]['seq']} turn {pick.iloc[i]['turn']}"))
    st.text(pick.iloc[i]["summary"])

recorded = data.recorded_compactions(db, run_id, dataset)
if not recorded.empty:
    st.subheader("Recorded compactions: the agent's summary beside ctxlab's")
    st.caption(L.COMPACTION_NOTE)
    summary = L.compaction_summary(recorded)
    st.dataframe(summary, hide_index=True, width="stretch",
                 column_config=ui.percent_columns(summary, ["fact_recall", "best_recall_share"]))
    side = L.compaction_side_by_side(recorded)
    st.dataframe(side, hide_index=True, width="stretch",
                 column_config=ui.percent_columns(side, [c for c in side.columns if c.endswith(" recall")]))
    ui.downloads(side, None, "recorded-compactions")
