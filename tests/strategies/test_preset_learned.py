"""`learned`: recommended with a need model ranking what survives a fold. Model files are JSON and
checked (a tampered, foreign, pickled or other-version file fails in one line and runs nothing);
the policy never reads past the call it compresses; rescued outputs stay whole beside the fold and
the policy compacts as often as recommended."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from ctxlab.errors import CtxlabError
from ctxlab.messages import Conversation, Message
from ctxlab.replay.steps import replay_steps
from ctxlab.strategies import get_strategy
from ctxlab.strategies.mechanics import need, rescue
from ctxlab.strategies.mechanics.need_model import FORMAT, VERSION, NeedModel, digest
from ctxlab.tokens import get_counter
from tests.builders import Convo, prose

O200K = get_counter("o200k_base")


def output(tag: str, lines: int = 30) -> str:
    return "\n".join(f"{prose(120, i)} src/{tag}/mod_{i}.py defines Handler{tag.capitalize()}{i}" for i in range(lines))


def session(steps: int = 30) -> Conversation:
    """Reads of many files; later steps go back to the names of a few early ones."""
    c = Convo().system().user("Fix the failing import in src/app.py.")
    for step in range(steps):
        mention = f" Going back to HandlerS{step % 3}2 in src/s{step % 3}/mod_2.py." if step > 5 else ""
        c.tools(("read_file", output(f"s{step}")), text=f"Step {step}: reading.{mention}")
    return Conversation("learned", c.assistant("Found it: src/s1/mod_2.py.").build())


def model_file(tmp_path: Path, *, digested: bool = True, **changes: object) -> Path:
    """The shipped model with `changes`, its digest written again for them unless not `digested`
    (a file edited by hand) or `changes` set one: with it, each check below the digest is reached."""
    data = json.loads(NeedModel.default().to_json())
    data.update(changes)
    if digested and "sha256" not in changes:
        data["sha256"] = digest({k: v for k, v in data.items() if k != "sha256"})
    path = tmp_path / "model.json"
    path.write_text(json.dumps(data))
    return path


def test_the_shipped_model_loads_and_ranks_every_feature():
    model = NeedModel.default()
    assert model.features == need.FEATURES and len(model.coef) == len(need.FEATURES)
    assert model.about["trained_on"]  # the files it was fitted on are named in it
    assert json.loads(model.to_json())["format"] == FORMAT and NeedModel.load(NeedModel.default_path()) == model


@pytest.mark.parametrize("changes, reason", [
    ({"coef": "not numbers"}, "not a valid learned model"),
    ({"intercept": float("nan")}, "not a valid learned model"),
    ({"scale": [0.0] * len(need.FEATURES)}, "scales above 0"),
    ({"features": ["age_calls"]}, "features differ"),
    ({"extra": "import os; os.system('touch /tmp/x')"}, "not a valid learned model"),
    ({"format": "something-else"}, "not a ctxlab learned model"),
    ({"version": VERSION + 1}, f"a learned model of version {VERSION + 1}"),
    ({"version": 1}, "this ctxlab reads version 2: fit it again"),
    ({"sha256": 1}, "not a valid learned model (sha256"),
])
def test_a_tampered_or_foreign_model_fails_in_one_line(tmp_path, changes, reason):
    path = model_file(tmp_path, **changes)
    with pytest.raises(CtxlabError) as err:
        get_strategy(f"learned:model={path}")
    assert reason in str(err.value) and "\n" not in str(err.value) and str(path) in str(err.value)


def test_a_model_edited_after_learn_wrote_it_fails_in_one_line(tmp_path):
    coef = list(NeedModel.default().coef)
    coef[0] += 1.0  # still a valid model, but not the one that was fitted
    path = model_file(tmp_path, digested=False, coef=coef)
    with pytest.raises(CtxlabError) as err:
        get_strategy(f"learned:model={path}")
    assert "changed after `ctxlab learn` wrote it" in str(err.value) and "\n" not in str(err.value)
    relaid = tmp_path / "relaid.json"  # the same content laid out differently is the same model
    relaid.write_text(json.dumps(json.loads(NeedModel.default_path().read_text()), indent=4))
    assert NeedModel.load(relaid) == NeedModel.default()


class _Boom:
    def __reduce__(self) -> tuple:
        return (Path.touch, (Path(self.target),))  # type: ignore[attr-defined]


def test_a_pickle_is_never_unpickled(tmp_path):
    marker = tmp_path / "ran"
    boom = _Boom()
    boom.target = str(marker)  # type: ignore[attr-defined]
    path = tmp_path / "model.json"
    path.write_bytes(pickle.dumps(boom))
    with pytest.raises(CtxlabError, match="not JSON"):
        get_strategy(f"learned:model={path}")
    assert not marker.exists()
    with pytest.raises(CtxlabError, match="cannot read the model file"):
        get_strategy(f"learned:model={tmp_path / 'missing.json'}")


def test_it_never_reads_past_the_call_it_compresses(monkeypatch):
    """A spy on what the model's features read: only messages handed to the policy, never a later
    message of the session; and a different future gives the same calls."""
    conv = session()
    later: dict[int, set[str]] = {}
    seen: list[tuple[int, frozenset[str]]] = []
    original = rescue.item_features

    def spy(messages, counts, items):
        seen.append((len(messages), frozenset(m.text for m in messages)))
        return original(messages, counts, items)

    monkeypatch.setattr(rescue, "item_features", spy)
    strategy = get_strategy("learned:trigger_events=12")
    steps = list(replay_steps(strategy, conv, 6000, O200K, "per-turn"))
    assert seen, "the model was never asked"
    texts = [m.text for m in conv.messages]
    for step in steps:
        later[step.upto] = set(texts[step.upto:]) - set(texts[:step.upto])
    for upto, context in zip((s.upto for s in steps if s.upto is not None), (s.context for s in steps), strict=False):
        assert all(m.text not in later[upto] for m in context)
    other = Conversation("other", (*conv.messages[:-1], Message("assistant", "A different future: src/zzz/new.py.")))
    again = list(replay_steps(get_strategy("learned:trigger_events=12"), other, 6000, O200K, "per-turn"))
    assert [s.result.messages for s in steps[:-1]] == [s.result.messages for s in again[:-1]]


def test_rescued_outputs_stay_whole_and_it_compacts_as_often_as_recommended():
    conv = session(40)
    calls = {}
    for spec in ("recommended", "learned:trigger_events=60,rescue_share=0.3"):
        steps = list(replay_steps(get_strategy(spec), conv, 200_000, O200K, "per-turn"))
        calls[spec] = sum(any(e.name == "policy.compacted" for e in s.result.events) for s in steps)
        last = steps[-1].result
    assert calls["recommended"] == calls["learned:trigger_events=60,rescue_share=0.3"] > 0
    whole_old = [m for m in last.messages if m.role == "tool" and m.mark is None
                 and any(f"src/s{k}/" in m.text for k in range(3))]
    assert whole_old, "the early outputs the agent keeps going back to were folded"
    assert last.fits and last.messages[0].role == "system"
    assert get_strategy("learned").spec.to_mapping() == {"name": "learned", "params": {
        "model": "", "rescue_share": 0.1, "trigger_events": 60}}
    with pytest.raises(CtxlabError, match="rescue_share must be between 0 and 1"):
        get_strategy("learned:rescue_share=1.5")
