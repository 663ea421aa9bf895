"""ctxlab dashboard: navigation only. Start it with `ctxlab dashboard --db PATH`.

Each page lives in `dashboard/views/`; queries are in `dashboard/data.py`, shared widgets in
`dashboard/ui.py`, numbers and figures in `ctxlab.analysis.tables` and `ctxlab.analysis.plots`.
"""

from __future__ import annotations

import sys
from pathlib import Path

# `streamlit run dashboard/app.py` puts dashboard/ on the path, not the folder holding it.
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

# Not "pages/": Streamlit treats a pages/ folder beside the main script as a legacy multipage app
# until st.navigation has run once, so a first request deep-linking to a page would skip this file.
PAGES = Path(__file__).resolve().parent / "views"

st.set_page_config(page_title="ctxlab", page_icon=":material/compress:", layout="wide")
page = st.navigation([
    st.Page(PAGES / "runs.py", title="Runs", icon=":material/list:", default=True),
    st.Page(PAGES / "comparison.py", title="Strategy comparison", icon=":material/compare_arrows:"),
    st.Page(PAGES / "estimators.py", title="Estimator error", icon=":material/straighten:"),
    st.Page(PAGES / "summaries.py", title="Summary quality", icon=":material/summarize:"),
    st.Page(PAGES / "tuning.py", title="Tuning", icon=":material/tune:"),
    st.Page(PAGES / "policies.py", title="Which policy", icon=":material/recommend:"),
    st.Page(PAGES / "costs.py", title="Session cost", icon=":material/payments:"),
    st.Page(PAGES / "explorer.py", title="Conversation explorer", icon=":material/forum:"),
])
page.run()
