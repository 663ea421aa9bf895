"""Write the numbered notebooks, without outputs, from the cell sources below.

    python notebooks/build_notebooks.py

The notebooks are thin on purpose: they load frames with `ctxlab.analysis.frames`, compute with
`ctxlab.analysis.tables` and draw with `ctxlab.analysis.plots`; markdown cells say what to look at. Edit the
cells here and rerun, so the committed notebooks stay clean and reviewable.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from ctxlab.analysis.logs import PROVIDER_NOTE

HERE = Path(__file__).resolve().parent

PARAMETERS = '''# Parameters (papermill: -p db PATH -p run NAME -p dataset NAME)
import os

db = os.environ.get("CTXLAB_DB", "ctxlab.duckdb")  # the DuckDB file written by `ctxlab replay` / `ctxlab demo`
run = None  # a run id, id prefix or name; None means the newest run
dataset = None  # one dataset of the run; None means all of them'''

SETUP = '''%matplotlib inline
import pandas as pd
from IPython.display import display

from ctxlab import store
from ctxlab.analysis import frames, plots as P, tables as A

pd.set_option("display.max_rows", 120)
pd.set_option("display.width", 200)
pd.set_option("display.precision", 3)'''

LOAD_RESULTS = '''with store.reading(frames.locate_db(db)) as con:  # read-only, held briefly: a replay may be writing
    run_id = store.resolve_run(con, run)
    info = frames.run_info(con, run_id)
    results = frames.results(con, run_id, dataset=dataset)
mode = A.pick_mode(results)  # final when the run has it
main = results[results["mode"] == mode]
print(f"run {info['name']} ({run_id}), status {info['status']}: {len(A.per_unit(results)):,} units, "
      f"modes {sorted(results['mode'].unique())}, datasets {sorted(results['dataset'].unique())}; "
      f"figures for one mode use {mode!r}")'''


def md(text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_markdown_cell(text.strip())


def code(text: str, *tags: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(text.strip())
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


def head(title: str, intro: str, parameters: str = PARAMETERS) -> list[nbformat.NotebookNode]:
    return [md(f"# {title}\n\n{intro}"), code(parameters, "parameters"), code(SETUP)]


STRATEGY_COMPARISON = [
    *head("01 · Strategy comparison",
          "Which strategy keeps the most useful context at each window, and does its result really fit? "
          "Every number comes from the `results` view of the store; intervals are 95% bootstrap intervals "
          "over conversations (per-turn units of one conversation are not independent)."),
    code(LOAD_RESULTS),
    md("## Which policy: what the agent's next action used\n\nPer-turn units only (`ctxlab recommend`, or "
       "`ctxlab replay --mode per-turn`): every call is graded by the session's recorded next action. **Needed "
       "recall** is the share of the specific strings (paths, identifiers, numbers, flags) that action used and only "
       "earlier history held, still sent, pooled over the calls, with a 95% interval over sessions; **in context** "
       "counts a string only with the line it stood on. The cost axis adds to the tokens sent the **refetch** tokens "
       "(the smallest earlier message holding each lost string). Two policies tie when zero is inside the paired "
       "95% interval over sessions of their difference (ctxlab's one rule, the same in `ctxlab recommend`, `ctxlab "
       "tune`, the demo, the report and the dashboard); the policy to run is the cheapest of those tied with the best. "
       "Regex fact recall (ctxlab's own extractors) is a secondary column. Beside each policy, the **hindsight "
       "limit** at its own tokens and the share of the **headroom** it closes (printed below: a bound that uses the "
       "future, never a policy). Definitions and caveats: docs/quality.md; the `learned` policy and `ctxlab learn`: "
       "docs/learned.md."),
    code('''from ctxlab.analysis.limits import LIMIT_NOTE
from ctxlab.analysis.verdicts import stored
from ctxlab.analysis.wording import heading, lines

with store.reading(frames.locate_db(db)) as con:  # dollars under the run's first price model, as the report
    policies = stored(con, run_id, dataset=dataset)
if policies is None:
    print("No per-turn units in this run: `ctxlab recommend SOURCE --window N` replays sessions call by call.")
columns = ["label", "counter", "needed_recall", "needed_low", "needed_high", "limit_recall", "headroom_closed",
           "in_context_recall", "non_regex_recall", "instruction_survival", "tokens_sent", "effective_tokens",
           "fact_recall", "rejected_rate"]
print(LIMIT_NOTE)
for found in policies.windows if policies else []:
    v = found.verdict
    print("\\n".join([heading(v), *(f"  {line.key}: {line.text}" for line in lines(v))]) if v else "no verdict")
    if v is None or v.needs_compression:
        x = "effective_usd" if policies.model else "effective_tokens"
        display(P.policy_front(found.front, x=x, chosen=v.run.label if v else None))
    display(found.front[columns].sort_values("needed_recall", ascending=False).round(3))'''),
    md("## Retained-token ratio vs window\n\nThe share of the full history's tokens a result keeps. A good "
       "strategy uses its window: a curve far below its neighbours throws away context it was allowed to keep. "
       "Dashed lines are strategies counting with a character estimator (their seed's counter); solid ones count "
       "with a real tokenizer."),
    code("P.retained_ratio_curves(A.retained_ci(results))"),
    md("## Real fit under each reference tokenizer\n\n`fits` is what the strategy believed with its own counter; "
       "the heatmap re-counts each result with a real tokenizer. Red cells are context windows that would really "
       "overflow. `noop` (keep everything) shows how often the window is exceeded at all."),
    code("fits = A.fit_rates(main)\nP.overflow_heatmap(fits)"),
    md("Variants that believed they fit and still overflowed (the dangerous case):"),
    code('fits[fits["false_fit"] > 0].sort_values("false_fit", ascending=False)'),
    md("## Tool integrity\n\nA tool result kept without the assistant message that called it (or the reverse) is "
       "an invalid request for most APIs. Every cell should be 100%."),
    code("P.tool_integrity_heatmap(A.tool_integrity(main))"),
    md("## Regex fact recall vs retained ratio\n\nGround-truth facts and the facts ctxlab's own regexes extract, "
       "still present, against tokens kept, per variant and window (final mode has no next action to grade by). Points on the frontier (ringed) keep the most facts for their size; anything below it is beaten "
       "by another strategy or window."),
    code("points = A.pareto_points(main)\nP.pareto(points)"),
    code('points[points["on_front"]].sort_values("retained_ratio")'),
    md("## Headline table\n\nEverything above in one table (`real_fit_<reference>` columns per tokenizer)."),
    code("A.headline(results)"),
]

ESTIMATOR_ERROR = [
    *head("02 · Estimator error",
          "How wrong are the token estimators strategies trust (the seeds' `chars4`, `chars3`, `chars2`, "
          "`ascii_cjk`, and ctxlab's `calibrated`) against real tokenizers? Errors are per message, with the "
          "per-message overhead, as % of the real count: positive overcounts (wasted window), negative "
          "undercounts (overflow risk)."),
    code('''from ctxlab.analysis import logs as L

with store.reading(frames.locate_db(db)) as con:
    run_id = store.resolve_run(con, run)
    rows = frames.estimator_rows(con, run_id, dataset=dataset)
    requests = frames.request_errors(con, run_id, dataset=dataset)
    results = frames.results(con, run_id, dataset=dataset)
references = L.order_references(rows["reference"].unique())  # tokenizers, then provider:<model>
reference = L.default_reference(references)
print(f"run {run_id}: {len(rows):,} message rows, references {references}; heatmaps use {reference!r}")'''),
    md("## Per estimator and reference"),
    code("A.estimator_table(rows)"),
    code("P.estimator_error_box(rows)"),
    md("## By content kind\n\nChinese and Japanese text, JSON and code are where character heuristics go wrong. "
       "Look for strongly red (negative) cells: the estimator undercounts that kind of content."),
    code('''mine = rows[rows["reference"] == reference]
P.estimator_heatmap(A.estimator_matrix(mine), title=f"Mean signed error by content kind ({reference})",
                    xlabel="content kind")'''),
    md("## By language"),
    code('''P.estimator_heatmap(A.estimator_matrix(mine, columns="language"),
                    title=f"Mean signed error by language ({reference})", xlabel="language")'''),
    code('A.estimator_table(rows, by=("counter", "reference", "content_kind", "language"))'),
    md("## Calibrated vs the seeds' estimators\n\nMean absolute error (%) per content kind: the calibrated "
       "estimator should be close to the real tokenizer on every kind, where each seed heuristic is tuned to one."),
    code('A.estimator_matrix(mine, value="mape_pct").round(1)'),
    md("Whole requests (tool definitions and reply priming included; the seeds' estimators ignore tool schemas):"),
    code("A.estimator_table(requests)"),
    md("## Against the provider's billed counts\n\nEvery estimator against every reference, side by side: "
       "tokenizers first, then `provider:<model>` references from agent logs, when the run has them. "
       + PROVIDER_NOTE),
    code('''if not L.has_provider(references):
    print("No provider:<model> reference in this run: replay agent logs (records with meta.provider_calls) to see "
          "estimators, and the reference tokenizers themselves, against what the provider billed.")
L.reference_matrix(rows, value="mape_pct").round(1)  # MAPE % per estimator (rows) and reference (columns)'''),
    code("P.reference_heatmap(L.reference_matrix(rows))"),
    md("## Underestimates near the window\n\nAn undercounting estimator is harmless far below the window. It "
       "overflows a real window when the strategy packs the context close to the limit it believes in: among "
       "results filled to within 10% of the window, how many are really over it?"),
    code("near = A.near_window(results)\nP.near_window_bars(near)"),
    code("near"),
]

SUMMARY_QUALITY = [
    *head("03 · Summary quality",
          "How good are the summaries compaction strategies write, how does recall decay when a session is "
          "compacted again and again (per-turn mode), and what does it cost?"),
    code(LOAD_RESULTS.replace("    results = frames.results(con, run_id, dataset=dataset)",
                              "    results = frames.results(con, run_id, dataset=dataset)\n"
                              "    summaries = frames.summaries(con, run_id, dataset=dataset)")),
    md("## ROUGE and compression\n\nROUGE-L against the dataset's reference summary (when it has one) and "
       "against the messages the summary replaced, and summary tokens per compacted token. Higher ROUGE against the "
       "reference with a small compression ratio is the goal."),
    code('quality = A.summary_quality(summaries[summaries["mode"] == mode] if not summaries.empty else summaries)\n'
         "P.summary_quality(quality)"),
    code("quality"),
    md("## Probe scores\n\nProbe QA (an LLM answers questions about what the compression removed and a judge "
       "scores the answers) appears here when a run recorded probe scores."),
    code('''probes = A.probe_columns(summaries)
if probes:
    display(A.summary_quality(summaries)[[*A.KEYS, *probes]])
else:
    print("no probe scores in this run (probes need an LLM judge: see docs/summaries.md)")'''),
    md("## Fact recall per strategy and window"),
    code('A.headline(main).pivot_table(index=["label", "counter"], columns="window", values="fact_recall")'),
    md("## Drift over repeated compactions\n\nPer-turn mode compresses before every model call and carries the "
       "result forward, as an agent lives it. Recall that keeps falling as the session goes on means facts stated "
       "early are lost as summaries are summarized again."),
    code("P.drift_progress(A.drift_by_progress(results))"),
    code("P.drift_cycles(A.drift_by_cycle(results))"),
    md("## Cost\n\nLLM calls, tokens and dollars of the summarizers (cached calls are free), and each strategy's "
       "own latency per unit."),
    code('cost = A.cost_table(results)\nP.cost_latency(cost[cost["mode"] == mode])'),
    code("cost"),
    md("## One summary, read in full"),
    code('''if summaries.empty:
    print("no summaries in this run")
else:
    sample = summaries.sort_values(["window", "seq"]).iloc[0]
    print(f"{sample['label']} [{sample['counter']}] at window {sample['window']}, "
          f"{sample['dataset']} #{sample['seq']}:\\n")
    print(sample["summary"])'''),
]

TUNING_PARAMETERS = PARAMETERS + '''
logs = None  # a folder (or file) of your agent's session logs; None tunes on the run's stored sessions
policy = "pi"  # the agent preset whose own knobs move (`ctxlab strategies --details`; docs/tuning.md)
window = None  # your model's context window in tokens; None: the run's largest window (64,000 for logs)
price_model = None  # a litellm model to bill with prompt caching (dollars); None: tokens sent + refetch
settings = {}  # knob (the agent's name) -> value for the setting shown; the others stay at the agent's default
search = True  # run the tuner over the sessions (writes nothing; settings `ctxlab tune` stored are read back)'''

AGENT_TUNING = [
    *head("04 · Tune your agent's settings",
          "Your agent's own compaction knobs (pi's `reserveTokens`, Codex's `model_auto_compact_token_limit`, ...) "
          "replayed call by call over sessions, each setting scored by needed-context recall (with its 95% interval "
          "over sessions), instruction survival, effective cost and rejected calls, beside the agent's default; then "
          "the tuner's searched front and, at the end, sliders that re-run the policy on every change. The dashboard's "
          "Tuning page and `ctxlab tune` do the same (docs/tuning.md).", TUNING_PARAMETERS),
    code('''from ctxlab.tune import evaluations_frame
from ctxlab.tune import live as L
from ctxlab.tune import widgets as W

tuner, start = W.open_tuner(db, run, dataset, logs)
window = int(window or start)
print(f"{len(tuner.sessions)} session(s), {tuner.sessions.calls:,} calls from {', '.join(tuner.sessions.sources)}; "
      f"{policy} at a {window:,}-token window; knobs: "
      + "; ".join(f"{k.name} {k.low:g}..{k.high:g} {k.unit} (default {k.default:g})" for k in L.sliders(policy, window)))
for name, why in L.fixed(policy, window).items():
    print(f"{name} stays at the agent's value: {why}")'''),
    md("## One setting beside the agent's default\n\nChange `settings` (the agent's knob names) and rerun, or use "
       "the sliders at the end. The chart: needed-context recall against effective cost, the default a square, the "
       "setting a star."),
    code('current = W.show(tuner, policy, window, settings, price_model)'),
    md("## The tuner's search\n\nA grid for up to two knobs, optuna (seeded) beyond. Black points are on the front "
       "(nothing else keeps as much for less, differences inside the intervals named as ties)."),
    code('''outcome = tuner.search(policy, window, price_model, db=frames.locate_db(db)) if search else None
points = evaluations_frame(outcome) if outcome is not None else None
if outcome is not None:
    print(f"{len(outcome.result.evaluations)} settings, {outcome.replayed} replayed, {outcome.reused} read back")
    print(outcome.result.pick.evidence if outcome.result.pick is not None else "no pick (no needed strings)")
    x = "effective_usd" if price_model else "effective_tokens"
    display(P.tuning_front(points, x=x, default=points.iloc[0], title=f"{policy} at {window:,} tokens: the search"))
    display(points[[c for c in (*W.SHOWN[1:], "on_front", "pick") if c in points]])'''),
    md("## Sliders\n\nEach change re-runs the policy over the sessions in this kernel (a setting seen before answers "
       "from memory) and redraws the numbers, the chart with the searched front, and the snippet to paste."),
    code('W.panel(tuner, policy, window, price_model, points)'),
]

IN_YOUR_AGENT = [
    md("# 05 · Run a policy in your agent\n\n`ctxlab.apply` runs a policy on plain OpenAI or Anthropic message lists; "
       "`ContextPolicyMiddleware` runs it in a LangChain v1 agent. Both send at every call what ctxlab's per-turn replay "
       "measured for the policy (docs/integrations.md). Nothing here needs a database or a network."),
    code('''# Parameters (papermill: -p policy SPEC -p window N)
policy = "recommended"  # any spec ctxlab.get_strategy takes (pi, observation_masking, a spec string)
window = 4000  # the model's context window in tokens''', "parameters"),
    md("## A session, call by call\n\nOne bundled agent session, as OpenAI dicts. Before each model call the agent "
       "hands `apply` its whole history; the state carries what the policy sent last time. *Kept as given* counts the "
       "messages that came back as the very objects passed in."),
    code('''%matplotlib inline
import pandas as pd
import ctxlab

session = next(ctxlab.load_conversations("sample:agent_sessions"))
history = [m.to_openai() for m in session.messages]
state, rows = ctxlab.ApplyState(), []
for upto in [i for i, m in enumerate(history) if m["role"] == "assistant" and i]:
    send = ctxlab.apply(history[:upto], policy, window, state=state, tools=session.tools)
    done, counter = state.result, ctxlab.get_counter(state.result.counter)
    rows.append({"call": state.calls, "history tokens": counter.count_messages(history[:upto], session.tools),
                 "tokens sent": done.tokens_after, "messages sent": len(send),
                 "kept as given": sum(any(s is h for h in history) for s in send),
                 "events": ", ".join(e.name for e in done.events)})
calls = pd.DataFrame(rows).set_index("call")
ax = calls[["history tokens", "tokens sent"]].plot(marker="o", title=f"{policy} at a {window:,}-token window")
ax.axhline(window, color="grey", linestyle="--", label="window")
ax.legend()
calls'''),
    md("## Anthropic Messages\n\nThe system prompt goes in as the first message and comes back first; "
       "`split_system` parts it for `client.messages.create(system=..., messages=...)`. Here every tool output but the "
       "newest is masked: the masked `tool_result` keeps its block with the placeholder, the thinking block stays."),
    code('''from ctxlab.integrations.anthropic import split_system

def turn(n):
    return [{"role": "assistant", "content": [{"type": "thinking", "thinking": "Read it.", "signature": "s"},
                                              {"type": "tool_use", "id": f"t{n}", "name": "read_file", "input": {"path": f"f{n}.py"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": "x = 1\\n" * 400}]}]

claude = [{"role": "system", "content": "You are a careful coding agent."}, {"role": "user", "content": "Read both files."},
          *turn(1), *turn(2)]
send = ctxlab.apply(claude, "observation_masking:attention_window=1", 200_000, format="anthropic")
system, messages = split_system(send)
print(system)
[(m["role"], [(b["type"], str(b.get("content", ""))[:60]) for b in m["content"]] if isinstance(m["content"], list)
  else m["content"], m is original) for m, original in zip(messages, claude[1:])]'''),
    md("## A LangChain agent\n\n`create_agent` with the middleware. A scripted model (langchain-core's fake chat model, "
       "bound to the tool) stands in for yours; the callback collects the `ctxlab_context` event every call sends. The "
       "thread's stored history stays whole: only what the model receives is compressed."),
    code('''from langchain.agents import create_agent
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

from ctxlab.integrations.langchain import ContextPolicyMiddleware

class ScriptedModel(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self

class Events(BaseCallbackHandler):
    def __init__(self):
        self.records = []
    def on_custom_event(self, name, data, **kwargs):
        self.records.append(data)

@tool
def read_file(path: str) -> str:
    """Read a file."""
    return "\\n".join(f"{path}:{i}: value = {i * 7}" for i in range(60))

replies = [AIMessage("", tool_calls=[{"name": "read_file", "args": {"path": f"src/m{i}.py"}, "id": f"c{i}"}]) for i in range(8)]
agent = create_agent(ScriptedModel(messages=iter([*replies, AIMessage("All eight files read.")])), [read_file],
                     system_prompt="You are a careful coding agent.",
                     middleware=[ContextPolicyMiddleware(policy, window=window)])
events = Events()
final = agent.invoke({"messages": [{"role": "user", "content": "Read src/m0.py to src/m7.py."}]}, {"callbacks": [events]})
print(f"the thread keeps {len(final['messages'])} messages")
columns = ["call", "messages_before", "messages_after", "tokens_before", "tokens_after", "fits", "events"]
pd.DataFrame(events.records).assign(events=lambda f: f["events"].map(lambda found: ", ".join(e["name"] for e in found)))[columns]'''),
]

NOTEBOOKS = {
    "01_strategy_comparison.ipynb": STRATEGY_COMPARISON,
    "02_estimator_error.ipynb": ESTIMATOR_ERROR,
    "03_summary_quality.ipynb": SUMMARY_QUALITY,
    "04_agent_tuning.ipynb": AGENT_TUNING,
    "05_in_your_agent.ipynb": IN_YOUR_AGENT,
}


def build(folder: Path = HERE) -> list[Path]:
    """Write every notebook into `folder`; returns their paths."""
    written = []
    for name, cells in NOTEBOOKS.items():
        nb = nbformat.v4.new_notebook()
        nb.cells = cells
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nb.metadata["language_info"] = {"name": "python"}
        for i, cell in enumerate(nb.cells):
            cell["id"] = f"{name[:2]}-{i:02d}"  # stable ids keep diffs small
        path = folder / name
        nbformat.write(nb, path)
        written.append(path)
    return written


if __name__ == "__main__":
    for path in build():
        print(path)
