"""The order of an agent session's phases, the mid-session phases, and the record builder.

Long sessions chain several tasks, which is what repeated-compaction drift
measurements need; one session in six reads a tool output over 50,000 characters.
"""

from __future__ import annotations

from . import outputs
from .agent import GIANT, PATCH_TARGET, AgentSession
from .bigout import big_output
from .phrases import QUESTIONS, REQUIREMENTS, P
from .projects import PROJECT_KEYS, PROJECTS
from .session import Call
from .summary import MIN_FACTS, reference_summary, select_facts
from .tools import tool_definitions
from .util import bounded_lognormal, every_nth, fill, pick, pick_lang, record_rng, rint, schedule, strip_markers

# 13/20 English, 4/20 Chinese, 2/20 Japanese, 1/20 both (see util.schedule).
AGENT_LANGS = ("en",) * 13 + ("zh",) * 4 + ("ja",) * 2 + ("mixed",)
GIANT_PERIOD = 6  # one session in 6 carries a tool output over 50,000 characters
LONG_PERIOD = 16  # one session in 16 runs past 100 messages (repeated-compaction drift)
MAX_CHARS = 240_000
MAX_MESSAGES = 150


def interject(s: AgentSession) -> None:
    """The user changes their mind about the decision, or adds a requirement."""
    lang = s.user_lang()
    change = s.task.get("change")
    if change and s.flags.get("decided") and not s.flags.get("changed") and s.rng.random() < 0.65:
        old = s.decisions[-1]
        s.say("user", [(change["user"][lang], s.tslots)],
              note=("constraints", "Changed mid-session: " + strip_markers(fill(change["user"]["en"], s.tslots))))
        for note in s.notes:
            if note.section == "decisions" and note.text.startswith(old):
                note.text = "Initially: " + note.text
        phrase, why = change["decision"]
        new = fill(phrase, s.tslots)
        s.say("assistant", [(s.phrase("ack_change"), dict(s.tslots, decision=new, why=fill(why[s.alang()], s.tslots)))],
              note=("decisions", f"{new}, because {fill(why['en'], s.tslots)} (replaces: {old})."))
        s.decisions[-1] = new
        s.flags["changed"] = True
        return
    free = [i for i in range(len(REQUIREMENTS)) if i not in s.used_reqs]
    if not free:
        question(s)
        return
    req = REQUIREMENTS[pick(s.rng, free)]
    s.used_reqs.append(REQUIREMENTS.index(req))
    s.say("user", [(req[lang], s.slots)], note=("constraints", fill(req["sum"], s.slots) + " (added mid-session)"))
    s.say("assistant", [(s.phrase("ack_req"), {})])


def question(s: AgentSession) -> None:
    """The user asks something in passing and the agent answers (no facts)."""
    qa = pick(s.rng, QUESTIONS)
    s.say("user", [(qa[s.user_lang()][0], s.slots)])
    s.say("assistant", [(qa[s.alang()][1], s.slots)])


def fetch(s: AgentSession) -> None:
    """Look up the documentation page relevant to the project."""
    url, page = outputs.fetch_doc(s.rng, s.project)
    s.flags["fetched"] = True
    s.call((s.phrase("fetch"), {"url": url}),
           [s.tool_or_shell("web_fetch", {"url": url}, f"curl -sL '{url}' | html2text | head -n 60", page)],
           note=("progress", f"Checked the documentation at {url}."))


def lint(s: AgentSession) -> None:
    """A clean run of the project's linter."""
    cmd = s.slots["lint_cmd"]
    call = Call("run_shell", {"command": cmd}, outputs.lint_clean(s.project, s.slots, cmd))
    s.call((s.phrase("lint"), {"cmd": cmd}), [call], note=("progress", f"`{cmd}` is clean."))


def git(s: AgentSession) -> None:
    """Review the diff or the status before wrapping up."""
    cmd, out = outputs.git_output(s.rng, s.slots, s.edited)
    s.call((s.phrase("git"), {}), [Call("run_shell", {"command": cmd}, out)])


def big(s: AgentSession, giant: bool) -> None:
    """Read or run something with a huge output, then quote the one line that matters."""
    kind = pick(s.rng, PROJECTS[s.project]["big"] + ("big_source",))
    if giant:
        upper = 140_000 if s.rng.random() < 0.1 else 58_000
        size = rint(s.rng, GIANT + 1_000, max(GIANT + 2_000, min(upper, MAX_CHARS - s.chars - 12_000)))
    else:
        size = min(30_000, s.out_size(2.0, 5.0))
    res = big_output(s.rng, kind, s.project, s.slots, size)
    while giant and len(res.text) <= GIANT:  # estimates of record sizes can undershoot
        size = int(size * 1.3)
        res = big_output(s.rng, kind, s.project, s.slots, size)
    shell = res.args.get("command") or f"curl -s '{res.args.get('url')}'"
    narr: tuple[str, dict[str, str]] | None = (s.phrase("big_intro"), {}) if s.rng.random() < 0.5 else None
    s.call(narr, [s.tool_or_shell(res.tool, res.args, shell, res.text)])
    if giant:
        s.giant_chars += len(res.text)
        s.flags["giant_done"] = True
    s.flags["big_done"] = True
    comment = pick_lang(s.rng, P["generated"], s.alang()) if kind == "big_source" else s.phrase("big_comment")
    s.say("assistant", [(comment, {"hl": res.hl, "hk": res.hl_kind})], note=("progress", res.sum))


def next_steps(s: AgentSession) -> list[str]:
    """The current task's follow-ups, including those a change of mind brought in."""
    steps = list(s.task["next"])
    if s.flags.get("changed"):
        steps = list(s.task["change"].get("next", ())) + steps
    return [fill(step, s.tslots) for step in steps]


def close_task(s: AgentSession) -> None:
    """Green run for the current task and its next steps in the summary."""
    if not s.flags.get("patched"):
        s.edit()
    if not s.flags.get("green"):
        s.test(fail=False)
    for step in next_steps(s):
        s.add_note("next", step)


def branch(s: AgentSession, key: str) -> None:
    """Create a work branch named after the task."""
    name = f"{pick(s.rng, ('fix', 'feat', 'chore'))}/{s.slots['entities']}-{key}"
    s.call((s.phrase("branch"), {"branch": name}),
           [Call("run_shell", {"command": f"git switch -c {name}"}, f"Switched to a new branch '{name}'\n")],
           note=("progress", f"Working on branch {name}."))


def start_task(s: AgentSession, key: str, first: bool) -> None:
    """Goal, exploration, optional plan, first failure, decision and first edit."""
    s.goal(key, first)
    if first and s.rng.random() < 0.5:
        branch(s, key)
    s.explore()
    if s.rng.random() < 0.5:
        target = s.slots[PATCH_TARGET[key]]
        s.say("assistant", [(s.phrase("plan"), dict(s.slots, target=target))],
              note=("progress", f"Planned the fix in {target} with tests in {s.slots['path_test']}."))
    s.test(fail=True)
    if not s.flags.get("decided"):
        s.decide()
    s.edit()


def finish(s: AgentSession) -> None:
    """Close the last task, maybe lint and review the diff, then summarise for the user."""
    close_task(s)
    if s.rng.random() < 0.35:
        lint(s)
    if s.rng.random() < 0.3:
        git(s)
    lang = s.alang()
    passed = s.last_passed
    files = [(pick_lang(s.rng, P["final_file"], lang), {"path": p}) for p in dict.fromkeys(s.edited)]
    tail = (pick_lang(s.rng, P["final_tail"], lang),
            dict(s.tslots, passed=passed, decisions="; ".join(s.decisions), next=next_steps(s)[0]))
    s.say("assistant", [(s.phrase("final_head"), {}), *files, tail], sep="\n", note=s.last_pass)
    if s.rng.random() < 0.4:
        s.say("user", [(s.phrase("user_thanks", s.user_lang()), {})])


def observe(s: AgentSession) -> None:
    """A remark about the code that carries no fact."""
    s.say("assistant", [(s.phrase("observe"), s.slots)])


def failing_run(s: AgentSession) -> None:
    """Re-run after edits; in this state the run still fails."""
    s.test(fail=True)
    s.flags["dirty"] = False


def interjection(s: AgentSession) -> None:
    """At most two interjections per task."""
    s.flags["interjections"] = s.flags.get("interjections", 0) + 1
    interject(s)


_PHASES = {
    "explore": AgentSession.explore, "edit": AgentSession.edit, "decide": AgentSession.decide,
    "test": failing_run, "pass": lambda s: s.test(fail=False), "interject": interjection,
    "question": question, "observe": observe, "lint": lint, "git": git, "fetch": fetch,
    "big": lambda s: big(s, giant=False),
}


def _middle_phase(s: AgentSession, medium_big: bool) -> None:
    """Run one weighted-random phase; the weights follow the session's state."""
    flags = s.flags
    weights = {
        "explore": 2.0 if len(set(s.read)) < 5 else 0.8, "edit": 2.5, "question": 0.6, "observe": 0.8,
        "lint": 0.5, "git": 0.4, "pass": 0.6,
        "test": 2.5 if flags.get("dirty") else 0.4,
        "decide": 0.0 if flags.get("decided") else 3.0,
        "interject": 1.3 if flags.get("interjections", 0) < 2 else 0.0,
        "fetch": 0.0 if flags.get("fetched") else 0.8,
        "big": 0.8 if medium_big and not flags.get("big_done") else 0.0,
    }
    names = list(weights)
    _PHASES[s.rng.choices(names, weights=[weights[n] for n in names])[0]](s)


def build_agent_record(seed: int, index: int) -> dict:
    """Build agent session ``index`` of the dataset with ``seed``.

    Returns:
        ``{"id", "messages", "tools", "meta"}`` as described in data/README.md.
    """
    rng = record_rng(seed, "agent", index)
    lang = schedule(AGENT_LANGS, index, seed)
    project = pick(rng, PROJECT_KEYS)
    long = every_nth(index, seed + 7, LONG_PERIOD)
    giant = every_nth(index, seed, GIANT_PERIOD)
    if long:
        target_msgs = rint(rng, 106, 136)
    else:
        target_msgs = int(rng.triangular(12, 50, 18) if giant else rng.triangular(12, 90, 28))
    # Giant sessions get a smaller ordinary budget: the giant output comes on top.
    target_chars = bounded_lognormal(rng, 6_000 if giant else 41_000, 0.3, 5_000, 120_000)
    if long:
        target_chars = max(target_chars, target_msgs * 950)
    s = AgentSession(rng, project, lang, target_msgs, target_chars)
    n_tasks = 3 if long else (2 if target_msgs > 60 and rng.random() < 0.3 else 1)
    tasks = rng.sample(PROJECTS[project]["tasks"], min(n_tasks, len(PROJECTS[project]["tasks"])))
    s.system()
    start_task(s, tasks[0], first=True)
    big_at = rint(rng, len(s), max(len(s), target_msgs - 10)) if giant else 10**9
    medium_big = rng.random() < 0.35
    done_tasks = 1
    while len(s) < target_msgs - 8 and s.chars < MAX_CHARS - 20_000:
        if len(s) >= big_at and not s.flags.get("giant_done"):
            big(s, giant=True)
            big_at = 10**9
        elif done_tasks < len(tasks) and len(s) >= target_msgs * done_tasks / len(tasks):
            close_task(s)
            start_task(s, tasks[done_tasks], first=False)
            done_tasks += 1
        else:
            _middle_phase(s, medium_big)
    if big_at < 10**9:
        big(s, giant=True)
    # Short sessions can end up thin on facts; keep working until there are enough.
    while len({c[0] for c in s.candidates}) < MIN_FACTS + 2 and len(s) < 130:
        _middle_phase(s, medium_big)
    finish(s)
    if len(s) > MAX_MESSAGES:
        raise RuntimeError(f"agent session {index} has {len(s)} messages")
    facts = select_facts(rng, s.candidates, len(s))
    return {
        "id": f"agent-{index + 1:04d}",
        "messages": s.messages,
        "tools": tool_definitions(s.tools),
        "meta": {"kind": "agent", "project": project, "project_name": s.slots["name"], "language": lang,
                 "tasks": tasks, "facts": [d["fact"] for d in facts], "facts_detail": facts,
                 "reference_summary": reference_summary(s.notes, facts)},
    }
