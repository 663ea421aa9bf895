"""Tuning: an agent's own knobs as sliders, every change re-run per turn over the chosen sessions in
this process (`ctxlab.tune.live`), beside the agent's default and the searched front."""

import os
from pathlib import Path

import streamlit as st

from ctxlab.analysis import plots as P
from ctxlab.errors import CtxlabError
from ctxlab.tune import evaluations_frame, knobs_for
from ctxlab.tune import live as L
from ctxlab.tune.widgets import LOGS_WINDOW
from dashboard import data, ui

LANGUAGES = {"json": "json", "toml": "toml", "yaml": "yaml", "env": "bash", "cli": "bash", "python": "python"}
PRICED = ("claude-sonnet-4-5", "gpt-5")

st.title("Tune your agent's settings")
db = ui.require_db()
source = st.sidebar.radio("Sessions", ["a run's dataset", "a log folder"], key="tune_source", horizontal=True)
if source == "a log folder":
    folder = st.sidebar.text_input("Agent logs (folder or file)", value=os.environ.get("CTXLAB_TUNE_LOGS", ""),
                                   key="tune_folder")
    if not folder or not Path(folder).exists():
        st.info("Give the folder (or file) of your agent's session logs in the sidebar, or tune a run's dataset.")
        st.stop()
    tuner, window_default, models = data.folder_tuner(folder, Path(folder).stat().st_mtime), LOGS_WINDOW, []
else:
    run_id = ui.pick_run(db)
    info = data.run_info(db, run_id)
    dataset = st.sidebar.selectbox("Dataset", data.datasets(db, run_id), key="tune_dataset")
    if dataset is None:
        st.info("This run has no dataset to tune on.")
        st.stop()
    tuner = data.run_tuner(db, run_id, dataset)
    window_default = max(info.get("config", {}).get("windows") or [8000])
    models = list(info.get("config", {}).get("price_models") or [])
if not tuner.sessions.items:
    st.info("No sessions to tune on here: this run stored no conversation records (replay with records kept), or "
            "the logs held none.")
    st.stop()
presets = L.tunable()
preset = st.sidebar.selectbox("Policy", presets, index=presets.index("pi") if "pi" in presets else 0,
                              key="tune_policy", format_func=lambda p: f"{knobs_for(p).agent} ({p})")
window = int(st.sidebar.number_input("Window (tokens)", min_value=1000, value=int(window_default), step=1000,
                                     key="tune_window"))
options = ["tokens sent + refetch", *dict.fromkeys([*models, *PRICED])]
cost = st.sidebar.selectbox("Cost", options, key="tune_cost", format_func=lambda o: o if o == options[0] else f"$ with {o}")
price_model = None if cost == options[0] else cost
x = "effective_usd" if price_model else "effective_tokens"

st.caption(f"{len(tuner.sessions):,} session(s), {tuner.sessions.calls:,} calls, replayed call by call at a "
           f"{window:,}-token window each time a knob moves; the agent's own names, its default in each knob's help "
           "and as the square on the chart.")
try:
    knobs = L.sliders(preset, window)
except CtxlabError as exc:  # e.g. Anthropic's compaction trigger cannot go under 50,000 tokens
    st.warning(ui.md(str(exc)))
    st.stop()
for name, why in L.fixed(preset, window).items():
    st.caption(f"{ui.md(name)} stays at the agent's value: {ui.md(why)}")
values = {}
columns = st.columns(2)
for i, knob in enumerate(knobs):
    cast = int if knob.kind == "int" else float
    values[knob.name] = columns[i % 2].slider(
        knob.name, min_value=cast(knob.low), max_value=cast(knob.high), value=cast(knob.default),
        step=cast(knob.step), key=f"knob-{preset}-{window}-{knob.name}",
        help=f"{knob.note} (default {cast(knob.default)} {knob.unit})".strip())
try:
    current = tuner.point(preset, window, values, price_model)
    default = tuner.default(preset, window, price_model)
except CtxlabError as exc:
    st.warning(str(exc))
    st.stop()

now, base = current.scored.row, default.scored.row
cells = st.columns(5)
cells[0].metric("needed-context recall", f"{now['needed_recall']:.1%}", f"{now['needed_recall'] - base['needed_recall']:+.1%}",
                help=f"95% CI {now['needed_low']:.1%}-{now['needed_high']:.1%} over sessions; delta: against the default")
cells[1].metric("in context", f"{now['in_context_recall']:.1%}", f"{now['in_context_recall'] - base['in_context_recall']:+.1%}")
cells[2].metric("instructions kept", f"{now['instruction_survival']:.1%}" if now["instruction_survival"] == now["instruction_survival"] else "-")
cost_text = (lambda v: f"${v:,.4f}") if price_model else (lambda v: f"{v:,.0f}")
cells[3].metric("$ / session + refetch" if price_model else "tokens + refetch / session", cost_text(now[x]),
                f"{(now[x] - base[x]) / base[x]:+.1%}" if base[x] else None, delta_color="inverse")
cells[4].metric("rejected calls", f"{now['rejected_rate']:.1%}",
                help="calls a provider would reject: an orphaned tool call or result, a prompt over the window, or "
                     "a failed compression (docs/quality.md)")
for who, row in (("The agent's default", base), ("This setting", now))[:1 if current.setting.key == default.setting.key
                                                                         else 2]:
    if row["rejected_rate"] > 0:
        st.warning(f"{who} has {row['rejected_rate']:.1%} of its calls rejected at {window:,} "
                   "tokens (over the window, orphaned or failed): a provider refuses them, so its recall is not what the "
                   "agent would get.")
st.caption("the agent's default" if current.setting.key == default.setting.key
           else f"setting: {ui.md(current.label)}")


@st.fragment(run_every=2)
def refined() -> None:
    """The sample's numbers are refined on every session in the background; the page reruns when done."""
    job = tuner.refine_in_background(preset, window, values, price_model)
    if job.error is not None:
        st.caption(f"refining stopped: {ui.md(str(job.error))}")
    elif job.done:
        st.rerun()
    else:
        st.caption(f"refining in the background: {job.sessions:,} of {job.total:,} sessions so far")


if not current.complete:
    st.caption(f"From a stratified sample of {current.sessions:,} of {current.total:,} sessions (short and long ones "
               f"alike, about {L.LIVE_CALLS:,} calls), so a knob change answers at once.")
    refined()

search_key = f"tune-search|{preset}|{window}|{price_model}|{tuner.sessions.scope(tuner.reference, price_model)}"
if st.button("Search", key="tune_search", help="Search every knob (a grid for up to two, optuna beyond) over these "
             "sessions; settings `ctxlab tune` stored for them are read back, nothing is written."):
    with st.spinner("Searching..."):
        st.session_state[search_key] = tuner.search(preset, window, price_model, db=db.path)
outcome = st.session_state.get(search_key)
if outcome is not None:
    points, note = evaluations_frame(outcome), f"searched here: {len(outcome.result.evaluations)} settings"
else:
    scope = tuner.evaluator(window, price_model).scope
    stored = L.matching_search(data.tune_searches(db), preset, window, scope)
    points = L.stored_points(data.tune_evaluations(db, stored)) if stored else None
    note = f"stored search {stored}" if stored else "no search yet: press Search"
png = ui.show(P.tuning_front(points, x=x, xlabel=("$ per session with prompt caching + refetch" if price_model
                                                   else "tokens sent + refetch per session"),
                             default=base, current=now, title=f"{preset} at {window:,} tokens: {note}"))
if outcome is not None and outcome.result.pick is not None:
    st.success(f"**Search pick: #{outcome.result.pick.row}.** {ui.md(outcome.result.pick.evidence)}")

st.subheader(f"In {knobs_for(preset).agent}'s own terms")
for snippet in current.snippets:
    st.caption(f"{ui.md(snippet.title)} (names from {ui.md(snippet.source)})")
    st.code(snippet.text, language=LANGUAGES.get(snippet.kind, "text"))
COLUMNS = ("evaluation", "label", "needed_recall", "needed_low", "needed_high", "in_context_recall",
           "instruction_survival", "tokens_sent", x, "rejected_rate", "orphan_rate", "overflow_rate", "on_front")
PERCENT = ["needed_recall", "needed_low", "needed_high", "in_context_recall", "instruction_survival", "rejected_rate",
           "orphan_rate", "overflow_rate"]
beside = L.beside(default, current).round({"tokens_sent": 0, "effective_tokens": 0, "effective_usd": 4})
st.dataframe(beside[[c for c in ("setting", *COLUMNS) if c in beside]], hide_index=True, width="stretch",
             column_config=ui.percent_columns(beside, PERCENT))
if points is not None and len(points):
    st.caption("Searched settings (the front flagged):")
    shown = points[[c for c in COLUMNS if c in points]].round({"tokens_sent": 0, "effective_tokens": 0,
                                                                "effective_usd": 4})
    st.dataframe(shown, hide_index=True, width="stretch", column_config=ui.percent_columns(shown, PERCENT))
ui.downloads(points if points is not None and len(points) else beside, png, f"tuning-{preset}-{window}")
