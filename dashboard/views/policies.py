"""Which policy: every policy of a per-turn run at one window, the Pareto front of needed-context
recall against effective cost, and the verdict `ctxlab recommend`, the demo and the report give
(`ctxlab.analysis.wording`: the same lines on every face)."""

import streamlit as st

from ctxlab.analysis import plots as P
from ctxlab.analysis.limits import LIMIT_NOTE
from ctxlab.analysis.verdicts import with_standin
from ctxlab.analysis.wording import RULE, heading, lines
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
windows = sorted(int(b) for b in turns["window"].unique())
window = st.select_slider("Window (tokens)", windows, value=windows[-1], key="policy_window") \
    if len(windows) > 1 else windows[0]
models = sorted(data.session_costs(db, run_id, dataset)["price_model"].unique())
axis = st.radio("Cost axis", ["tokens sent + refetch", *(f"$ with {m}" for m in models)], horizontal=True,
                key="policy_axis")
price_model = models[[f"$ with {m}" for m in models].index(axis)] if axis.startswith("$") else None
# the stand-in gap rides in the verdict, as on every face (ctxlab.analysis.verdicts.with_standin)
found = with_standin(data.policies(db, run_id, dataset, reference, window, price_model), data.standin_gap(db))
front, verdict = found.front, found.verdict
if verdict is not None:
    st.success(f"**{ui.md(heading(verdict))}**\n\n" + "\n".join(f"- **{ui.md(line.key)}**: {ui.md(line.text)}"
                                                                  for line in lines(verdict)))
    for title, finding in verdict.findings():
        if finding.detail and finding.warn:
            st.warning(ui.md(finding.detail))
        elif finding.detail:
            with st.expander(title):
                st.write(ui.md(finding.detail))
    st.caption(f"{ui.md(verdict.evidence)} {ui.md(RULE)}")
x, xlabel = ("effective_usd", f"$ per session with prompt caching + refetch ({price_model})") if price_model else \
    ("effective_tokens", "tokens sent + refetch per session")
png = ui.show(P.policy_front(front, x=x, xlabel=xlabel, chosen=verdict.run.label if verdict else None))
first = ["label", "counter", "needed_recall", "needed_low", "needed_high", "limit_recall", "headroom_closed",
         "in_context_recall", "old_recall", "non_regex_recall", "instruction_survival", "effective_tokens", "tokens_sent",
         "refetch_tokens", "fact_recall"]
shown = front[[c for c in first if c in front] + [c for c in front if c not in first]].sort_values(
    "needed_recall", ascending=False).rename(columns={"fact_recall": "regex_fact_recall"})
st.dataframe(shown.round({"tokens_sent": 0, "refetch_tokens": 0, "effective_tokens": 0}), hide_index=True,
             width="stretch", column_config=ui.percent_columns(shown, [
                 "needed_recall", "needed_low", "needed_high", "in_context_recall", "old_recall", "non_regex_recall",
                 "instruction_survival", "regex_fact_recall", "orphan_rate", "overflow_rate", "failed_rate",
                 "rejected_rate", "limit_recall", "newest_share", "headroom_closed"]))
st.caption(f"Per session: tokens every call sends, counted with {reference}. Needed recall: the specific strings "
           "(paths, identifiers, numbers, flags) the agent's recorded next action used that only earlier history "
           "held, still sent, pooled over the calls (95% CI over sessions); in context: with the line they stood on; "
           "old: held by no message new since the previous call; non-regex: strings ctxlab's fact regexes would not "
           "extract; refetch: tokens of the smallest earlier message holding each lost string. Regex fact recall is "
           "ctxlab's own extractors, kept for comparison. Orphaned / over window / failed: requests a provider "
           f"rejects (rejected: any of them; docs/quality.md). {LIMIT_NOTE}")
ui.downloads(front, png, f"policies-{window}")
