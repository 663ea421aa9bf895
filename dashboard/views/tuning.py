"""Window tuning: the smallest window meeting a fact-recall target with no real overflow."""

import streamlit as st

from ctxlab.analysis import plots as P
from ctxlab.analysis import tables as A
from dashboard import ui

_, _, _, results, mode = ui.run_results("Window tuning")
left, right = st.columns(2)
target = left.slider("Target fact recall", 0.5, 1.0, 0.95, 0.01, key="target_recall")
overflow = right.slider("Allowed real overflow", 0.0, 0.5, 0.0, 0.01, key="max_overflow")
main = results[results["mode"] == mode]
chosen = A.smallest_window(main, target_recall=target, max_overflow=overflow)
best = A.recommend_variant(chosen)
variants = sorted({(str(a), str(b)) for a, b in zip(chosen["label"], chosen["counter"], strict=False)})
pick = st.selectbox("Strategy [counter]", variants, index=variants.index(best) if best in variants else 0,
                    format_func=lambda v: f"{v[0]} [{v[1]}]", key="tuning_variant")
grid = A.window_grid(main)
part = grid[(grid["label"] == pick[0]) & (grid["counter"] == pick[1])]
mine = chosen[(chosen["label"] == pick[0]) & (chosen["counter"] == pick[1])]
for row in mine.itertuples():
    st.write(f"**{ui.md(row.dataset)}**: {ui.md(row.verdict)}")
fig = P.window_tuning(part, target_recall=target, max_overflow=overflow, chosen=mine)
png = ui.show(fig)
st.dataframe(chosen, hide_index=True, width="stretch",
             column_config=ui.percent_columns(chosen, ["fact_recall", "overflow_rate"]))
ui.downloads(chosen, png, "window-tuning")
