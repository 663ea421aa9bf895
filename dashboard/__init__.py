"""ctxlab's Streamlit dashboard: `ctxlab dashboard --db PATH` (or `streamlit run dashboard/app.py`)."""
