"""Strategy comparison: retained ratio, real fit, tool integrity and fact recall per window."""

import streamlit as st

from ctxlab.analysis import plots as P
from ctxlab.analysis import tables as A
from dashboard import data, ui

db, run_id, dataset, results, mode = ui.run_results("Strategy comparison")
refs = sorted(results["reference"].dropna().unique())
reference = st.sidebar.selectbox("Reference tokenizer", refs, key="reference",
                                 index=refs.index("o200k_base") if "o200k_base" in refs else 0) if refs else None
labels = sorted(results["label"].unique())
chosen = st.sidebar.multiselect("Strategies", labels, default=labels, key="strategies")
windows = sorted(int(b) for b in results["window"].unique())
window = st.select_slider("Window (tokens)", windows, value=windows[len(windows) // 2], key="window")

table = data.headline(db, run_id, dataset, mode)
table = table[table["label"].isin(chosen)]
shown = table[table["window"] == window].drop(columns=["mode"]).reset_index(drop=True)
fit_col = f"real_fit_{reference}" if reference else None
compressing = shown[shown["label"] != "noop"]  # noop keeps everything: the baseline, not a contender
if not compressing.empty:
    best = compressing.sort_values("fact_recall", ascending=False).iloc[0]
    c1, c2, c3 = st.columns(3)
    c1.metric("Best fact recall", f"{best['fact_recall']:.1%}", f"{best['label']} [{best['counter']}]",
              delta_color="off", delta_arrow="off")
    if fit_col in compressing:
        worst = compressing.sort_values(fit_col).iloc[0]
        c2.metric(f"Lowest real fit ({reference})", f"{worst[fit_col]:.1%}",
                  f"{worst['label']} [{worst['counter']}]", delta_color="off", delta_arrow="off")
    c3.metric("Mean retained ratio", f"{compressing['retained_ratio'].mean():.1%}")

figure = st.radio("Figure", ["Retained ratio vs window", "Real overflow", "Tool integrity", "Fact recall vs tokens"],
                  horizontal=True, key="figure")
mine = results[(results["mode"] == mode) & results["label"].isin(chosen)]
if figure == "Retained ratio vs window":
    ci = data.retained_ci(db, run_id, dataset, mode)
    fig = P.retained_ratio_curves(ci[ci["label"].isin(chosen)])
elif figure == "Real overflow":
    fig = P.overflow_heatmap(A.fit_rates(mine[mine["reference"] == reference] if reference else mine))
elif figure == "Tool integrity":
    fig = P.tool_integrity_heatmap(A.tool_integrity(mine))
else:
    fig = P.pareto(A.pareto_points(mine))
png = ui.show(fig)

st.subheader(f"At {window:,} tokens ({mode})")
st.dataframe(shown, hide_index=True, width="stretch",
             column_config=ui.percent_columns(shown, ["retained_ratio", "retained_low", "retained_high",
                                                       "believed_fit", "fact_recall", "tool_integrity",
                                                       *[c for c in shown.columns if c.startswith("real_fit_")]]))
st.caption("believed_fit: the strategy's own counter says it fits; real_fit_<tokenizer>: it really fits. "
           "Intervals are 95% bootstrap intervals over conversations.")
ui.downloads(shown, png, f"comparison-{window}")
