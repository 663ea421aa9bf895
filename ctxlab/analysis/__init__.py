"""Reading results back: frames from the DuckDB store, tables computed from them, figures, and
re-running one stored unit to see what happened to each message.

- `frames`  — the store's views as pandas DataFrames (only the columns the analyses need).
- `tables`  — pure DataFrame functions: confidence intervals, fit rates, Pareto fronts, tuning.
- `plots`   — matplotlib figures of those tables (CJK-capable fonts, one colour per strategy).
- `explain` — rebuild a stored strategy spec and show each message's fate (kept, dropped, ...).
- `ties`    — the one rule for a tie (the paired interval over sessions of a difference) and the pick.
- `sessions` — per policy and session: sums every recall pools, rejected calls (the one definition).
- `recommend`, `verdict`, `wording` — the front, the verdict on it and the words every face prints.

The notebooks, the dashboard and the HTML report all draw from here, so a number on one of them
is the same number on the others.
"""
