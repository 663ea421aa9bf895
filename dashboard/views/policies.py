"""Which policy: every policy of a per-turn run at one window, the Pareto front of fact recall
against tokens sent, and the recommendation `ctxlab recommend` would print."""

import streamlit as st

from ctxlab.analysis import plots as P
from ctxlab.analysis import recommend as R
from dashboard import data, ui

db, run_id, dataset, results, _ = ui.run_results("Which policy", pick_mode_too=False)
turns = results[results["mode"] == "per-turn"]
if turns.empty:
    st.info("This run has no per-turn results. `ctxlab recommend SOURCE --window N` (or `ctxlab replay "
            "--mode per-turn`) replays sessions call by call, which this page needs.")
    st.stop()
refs = sorted(turns["reference"].dropna().unique())
reference = st.sidebar.selectbox("Reference tokenizer", refs, key="policy_reference",
                                 index=refs.index("o200k_base") if "o200k_base" in refs else 0)
windows = sorted(int(b) for b in turns["budget"].unique())
window = st.select_slider("Window (tokens)", windows, value=windows[-1], key="policy_window") \
    if len(windows) > 1 else windows[0]
models = sorted(data.session_costs(db, run_id, dataset)["price_model"].unique())
axis = st.radio("Cost axis", ["tokens sent", *(f"$ with {m}" for m in models)], horizontal=True, key="policy_axis")
price_model = models[[f"$ with {m}" for m in models].index(axis)] if axis != "tokens sent" else None
front = data.policy_front(db, run_id, dataset, reference, window, price_model)
choice = R.recommend(front)
if choice is not None:
    st.success(f"**Recommended: {ui.md(choice.label)}** ({ui.md(choice.counter)}). {ui.md(choice.evidence)}")
x, xlabel = ("cost_usd", f"$ per session ({price_model}, prompt caching)") if price_model else \
    ("tokens_sent", "tokens sent per session")
png = ui.show(P.policy_front(front, x=x, xlabel=xlabel, chosen=choice.label if choice else None))
st.dataframe(front, hide_index=True, width="stretch",
             column_config=ui.percent_columns(front, ["fact_recall", "recall_low", "recall_high", "orphan_rate",
                                                      "overflow_rate"]))
st.caption(f"Per session: tokens every call sends, counted with {reference}; fact recall pooled over the calls; "
           "orphaned: calls with a tool call or result missing its pair; over window: calls larger than the "
           "window under the reference tokenizer. Both are requests a provider rejects.")
ui.downloads(front, png, f"policies-{window}")
