"""Runs overview: every run in the database, and the spec of the one picked."""

import json

import pandas as pd
import streamlit as st

from ctxlab.report import run_spec as report
from dashboard import data, ui

st.title("Runs")
db = ui.require_db()
runs = data.runs(db)
st.caption(f"{len(runs)} run(s) in {ui.md(db.path)}")
st.dataframe(runs, hide_index=True, width="stretch")

run_id = ui.pick_run(db)
info = data.run_info(db, run_id)
config = info.get("config") or {}
st.subheader(f"Run {ui.md(info.get('name') or run_id)}")
cols = st.columns(5)
for col, (label, key) in zip(cols, [("Status", "status"), ("Conversations", "conversations"), ("Units", "units"),
                                    ("Errors", "errors"), ("Skipped inputs", "skips")], strict=False):
    value = info.get(key)
    col.metric(label, f"{value:,}" if isinstance(value, int) else str(value))

left, right = st.columns(2)
with left:
    st.markdown("**Run**")
    overview = report.run_overview(info)
    st.dataframe(pd.DataFrame({"setting": list(overview), "value": [str(v) for v in overview.values()]}),
                 hide_index=True, width="stretch")
    st.markdown("**Dataset fingerprints**")
    st.dataframe(pd.DataFrame(sorted((info.get("fingerprints") or {}).items()), columns=["dataset", "fingerprint"]),
                 hide_index=True, width="stretch")
with right:
    st.markdown("**Strategies** (spec: the parameters that differ from the strategy's defaults; the full spec "
                "rebuilds each exactly)")
    variants = data.variants(db, run_id)
    st.dataframe(variants.assign(spec=variants["params"].map(report.short_spec),
                                 full_spec=variants["params"].map(report.spec_text))[["label", "counter", "spec",
                                                                                      "full_spec"]],
                 hide_index=True, width="stretch")
    st.markdown("**Versions**")
    st.dataframe(pd.DataFrame(sorted((info.get("versions") or {}).items()), columns=["package", "version"]),
                 hide_index=True, width="stretch")
for note in info.get("notes") or []:
    st.info(str(note), icon=":material/info:")

st.subheader("Skipped inputs")
skips = data.skips(db, run_id)
if skips.empty:
    st.caption("None: every input record was valid.")
else:
    st.dataframe(skips, hide_index=True, width="stretch")
with st.expander("Full run config (JSON)"):
    st.code(json.dumps(config, indent=2, default=str), language="json")
ui.downloads(runs, None, "runs")
