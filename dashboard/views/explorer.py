"""Conversation explorer: a stored conversation against what a strategy keeps, re-run live.

Moving the window or a parameter re-runs the strategy in this process on the stored record
(`ctxlab.analysis.explain`); with the run's own spec and window it reproduces the stored unit exactly.
"""

import json

import streamlit as st

from ctxlab.analysis import explain
from ctxlab.report.examples import pick_window
from dashboard import data, ui

MAX_TEXT = 20_000

st.title("Conversation explorer")
db = ui.require_db()
run_id = ui.pick_run(db)
dataset = ui.pick_dataset(db, run_id)
convs = data.conversations(db, run_id)
if dataset is not None:
    convs = convs[convs["dataset"] == dataset]
variants = data.variants(db, run_id)
if convs.empty or variants.empty:
    st.info("This run stored no conversations or results yet.")
    st.stop()
convs = convs.reset_index(drop=True)
sizes = [max(json.loads(t or "{}").values(), default=0) for t in convs["tokens"]]
i = st.selectbox("Conversation", range(len(convs)), key="conversation", format_func=lambda i: (
    f"{convs.at[i, 'dataset']} #{convs.at[i, 'seq']}: {convs.at[i, 'conversation_id']} "
    f"({convs.at[i, 'n_messages']} messages, {sizes[i]:,} tokens)"))
v = st.selectbox("Strategy [counter]", range(len(variants)), key="variant",
                 format_func=lambda v: f"{variants.at[v, 'label']} [{variants.at[v, 'counter']}]")
row, variant = convs.iloc[i], variants.iloc[v]
conversation = data.conversation(db, run_id, row["dataset"], row["conversation_id"])
stored = json.loads(variant["params"]).get("params", {})
strategy_name = variant["strategy"]

windows = sorted(int(b) for b in data.results(db, run_id, row["dataset"])["window"].unique())
# Room above the conversation's size: strategies with a reserve (window_guard) need window + reserve.
top = -(-max(max(windows), 2 * sizes[i], 4000) // 1000) * 1000
left, right = st.columns(2)
window = left.slider("Window (tokens)", 100, top, pick_window(windows, sizes[i]), step=100, key="explorer_window")
n = len(conversation.messages)
upto = right.slider("History up to message", 1, n, n, key="explorer_upto") if n > 1 else n
with st.expander("Strategy parameters"):
    overrides = ui.param_controls(strategy_name, stored, key=f"p-{variant['label']}")

strategy = explain.build_strategy(variant["params"], overrides)
if explain.uses_llm(strategy) and not st.checkbox("Re-run with its LLM summarizer (calls the model; cached)",
                                                  key="allow_llm"):
    st.warning("This strategy's summarizer calls an LLM; tick the box to re-run it.")
    st.stop()
result = explain.rerun(conversation, variant["params"], window=window, counter=variant["counter"],
                       params=overrides, upto=upto if upto < n else None)
fates = explain.message_fates(conversation.messages[:upto], result)
counts = explain.fate_counts(fates)

cols = st.columns(6)
cols[0].metric("tokens", f"{result.tokens_after:,}", f"{result.tokens_after - result.tokens_before:,}",
               delta_color="off", help=f"before: {result.tokens_before:,} ({variant['counter']})")
cols[1].metric("fits", "yes" if result.fits else "no")
for col, fate in zip(cols[2:], ("kept", "truncated", "dropped"), strict=False):
    col.metric(fate, counts[fate])
cols[5].metric("added", counts["summary"] + counts["marker"])
if result.reason:
    st.caption(f"reason: {ui.md(result.reason)}")
unit = data.stored_unit(db, run_id, row["dataset"], row["conversation_id"], variant["label"], variant["counter"],
                        window)
if not unit.empty and not overrides and upto == n:
    same = int(unit.iloc[0]["tokens_after"]) == result.tokens_after
    st.caption(f"Stored result for this window: {int(unit.iloc[0]['tokens_after']):,} tokens "
               f"({'reproduced exactly' if same else 'differs from the live run'}).")

table = fates.assign(preview=fates["text"].str.slice(0, 160))
st.dataframe(table[["position", "role", "fate", "tokens", "kept_tokens", "preview"]], hide_index=True,
             width="stretch", column_config={
                 "tokens": st.column_config.ProgressColumn("tokens", format="%d", min_value=0,
                                                           max_value=int(max(table["tokens"].max(), 1))),
                 "kept_tokens": st.column_config.ProgressColumn("kept", format="%d", min_value=0,
                                                                max_value=int(max(table["tokens"].max(), 1)))})
ui.downloads(fates, None, "explorer-messages")

show = st.multiselect("Read messages that were", list(explain.FATES), default=["truncated", "summary", "marker"],
                      key="explorer_fates")
for r in fates[fates["fate"].isin(show)].itertuples():
    where = "added" if r.position < 0 else f"#{r.position}"
    with st.expander(f"{where} {r.role}: {r.fate}, {r.tokens:,} tokens"):
        st.text(r.text[:MAX_TEXT])
        if r.fate == "truncated":
            st.caption("kept:")
            st.text(r.kept_text[:MAX_TEXT])
if result.summary:
    st.subheader("Summary")
    st.text(result.summary[:MAX_TEXT])
