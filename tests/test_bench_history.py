"""`ctxlab bench --history`: the generated history is written once and every part prints wall, CPU,
peak memory and its ratio to tokenizing the history once (a benchmark: no timing is asserted)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ctxlab.bench.history import Figure, history_file, line, run_history
from ctxlab.errors import CtxlabError

FIGURE = re.compile(r"[\d,.]+ s wall, [\d,.]+ s CPU, peak RSS [\d.]+ GiB = [\d.]+x wall / [\d.]+x CPU tokenize-once")


def test_the_history_is_written_once(tmp_path: Path) -> None:
    path = history_file(tmp_path, sessions=3, calls=30)
    first = path.read_bytes()
    assert len(first.splitlines()) == 3
    assert history_file(tmp_path, sessions=3, calls=30).read_bytes() == first  # reused, not rewritten
    assert history_file(tmp_path, sessions=3, calls=36).read_bytes() != first  # another size: written anew


def test_a_figure_names_its_ratios_and_its_goal() -> None:
    base = Figure("baseline", 2.0, 1.0, 2**30)
    assert line(Figure("final", 5.0, 2.0, 2**30), base, ("ratio", 3.0)).startswith(
        "final: 5.0 s wall, 2.0 s CPU, peak RSS 1.00 GiB = 2.5x wall / 2.0x CPU tokenize-once; meets the goal")
    assert "misses the goal (120 s" in line(Figure("tune", 130.0, 90.0, 2**30), base, ("wall", 120.0))
    assert "misses" in line(Figure("recommend", 10.0, 9.0, 5 * 2**30), base, ("wall", 900.0))  # over 4 GiB


def test_run_history_prints_each_part_against_tokenizing_once(tmp_path: Path) -> None:
    path = history_file(tmp_path, sessions=4, calls=80)
    lines = list(run_history(tmp_path, workers=0, window=16_000, path=str(path), parts=("final", "live", "tune"),
                             echo=lambda _: None))
    assert lines[0].startswith("baseline: tokenize the history's distinct messages once")
    assert any(x.startswith("final: ctxlab replay --mode final") for x in lines)
    assert any(x.startswith("live: a knob change of pi at 16,000 (median), from a sample of ") for x in lines)
    assert any(x.startswith("live refine: that setting extended in the background") for x in lines)
    # four sessions: no halving, so the first pick is the whole search's, said so, and then the whole search
    first, whole = [x for x in lines if x.startswith("tune: pi's knobs at 16,000")]
    assert "first pick (no other contender left: the whole search)" in first and "misses the goal" not in whole
    assert "the whole search" in whole and "4 sessions" in whole and "pick {" in whole
    for text in lines:
        assert FIGURE.search(text), text
    with pytest.raises(CtxlabError, match="unknown bench part"):
        list(run_history(tmp_path, path=str(path), parts=("warp",), echo=lambda _: None))
