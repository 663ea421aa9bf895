"""Estimator error: how far the seeds' token estimators and the calibrated one are from real tokenizers,
and from what a provider billed (agent logs)."""

import streamlit as st

from ctxlab.analysis import logs as L
from ctxlab.analysis import plots as P
from ctxlab.analysis import tables as A
from dashboard import data, ui

st.title("Estimator error")
db = ui.require_db()
run_id = ui.pick_run(db)
dataset = ui.pick_dataset(db, run_id)
rows = data.estimator_rows(db, run_id, dataset)
if rows.empty:
    st.info("This run recorded no estimator errors (it was replayed with --no-estimators).")
    st.stop()
refs = L.order_references(rows["reference"].unique())
reference = st.sidebar.selectbox("Reference", refs, index=refs.index(L.default_reference(refs)), key="est_reference",
                                 help="A real tokenizer, or provider:<model>: what the provider billed (agent logs).")
group = st.radio("Break down by", ["content_kind", "language", "role"], horizontal=True, key="est_group",
                 format_func=lambda g: g.replace("_", " "))
mine = rows[rows["reference"] == reference]
st.caption("Error = (estimated - actual) / actual per message. Negative is an undercount: a strategy trusting the "
           "estimator believes it fits and overflows the real window.")
if L.has_provider(refs):
    st.info(L.PROVIDER_NOTE)

figure = st.radio("Figure", ["Mean signed error (heatmap)", "Every reference side by side", "Distribution per estimator",
                             "Near the window"], horizontal=True, key="est_figure")
if figure == "Every reference side by side":
    fig = P.reference_heatmap(L.reference_matrix(rows))
    table = A.estimator_table(rows)
elif figure == "Mean signed error (heatmap)":
    fig = P.estimator_heatmap(A.estimator_matrix(mine, columns=group),
                              title=f"Mean signed error by {group.replace('_', ' ')} ({reference})",
                              xlabel=group.replace("_", " "))
    table = A.estimator_table(mine, by=("counter", group))
elif figure == "Distribution per estimator":
    fig = P.estimator_error_box(mine)
    table = A.estimator_table(mine)
else:
    near = A.near_window(data.results(db, run_id, dataset))
    fig = P.near_window_bars(near)
    table = near
png = ui.show(fig)
st.dataframe(table, hide_index=True, width="stretch",
             column_config=ui.percent_columns(table, ["underestimate_share", "underestimate_rate", "overflow_rate"]))
ui.downloads(table, png, f"estimators-{reference}")
