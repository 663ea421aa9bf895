"""Session cost: what each policy's sessions cost under a price model with prompt caching, and one
session call by call, with the cache writes a moving prompt front causes."""

import streamlit as st

from ctxlab.analysis import costs as C
from ctxlab.analysis import plots as P
from dashboard import data, ui

db, run_id, dataset, results, _ = ui.run_results("Session cost", pick_mode_too=False)
sessions = data.session_costs(db, run_id, dataset)
if sessions.empty:
    st.info("This run priced nothing. Replay turn by turn with a price model, e.g. `ctxlab replay SOURCE --mode "
            "per-turn --price-model claude-sonnet-4-5 --price-model gpt-5` (or `ctxlab demo`).")
    st.stop()
model = st.sidebar.selectbox("Price model", sorted(sessions["price_model"].unique()), key="cost_model")
windows = sorted(int(b) for b in sessions["window"].unique())
window = st.select_slider("Window (tokens)", windows, value=windows[-1], key="cost_window") \
    if len(windows) > 1 else windows[0]
mine = sessions[(sessions["price_model"] == model) & (sessions["window"] == window)]
table = C.variant_costs(mine).drop(columns=["price_model"]).sort_values("cost_usd")
best = table.iloc[0]
st.metric("Cheapest policy per session", f"${best['cost_usd']:,.4f}", f"{best['label']} [{best['counter']}]",
          delta_color="off", delta_arrow="off")
st.dataframe(table, hide_index=True, width="stretch",
             column_config={**ui.percent_columns(table, ["cache_read_share"]),
                            "cost_usd": st.column_config.NumberColumn("cost_usd", format="$%.4f")})
st.caption("Means per session. input: uncached prompt tokens; cache_read / cache_write: billed at the model's "
           "cache prices (Anthropic writes cost 1.25x input, reads 0.1x; OpenAI reads at a discount, no write "
           "premium). A policy that changes the front of its prompt every call pays writes again.")

choices = mine[["dataset", "seq", "conversation_id"]].drop_duplicates().reset_index(drop=True)
labels = {f"{r.conversation_id} ({r.dataset})": i for i, r in choices.iterrows()}
row = choices.loc[labels[st.selectbox("Session", list(labels), key="cost_session")]]
labels_shown = sorted(mine["label"].unique())
cheapest_five = list(dict.fromkeys(table["label"]))[:5]
chosen = st.multiselect("Policies in the figure", labels_shown, key="cost_labels",
                        default=[*cheapest_five, *(["noop"] if "noop" in labels_shown else [])])
calls = data.unit_costs(db, run_id, row["dataset"], model)
calls = C.cumulative(calls[(calls["seq"] == row["seq"]) & (calls["window"] == window) & calls["label"].isin(chosen)])
png = ui.show(P.session_cost(calls, price_model=model))
ui.downloads(table, png, f"costs-{model}")
