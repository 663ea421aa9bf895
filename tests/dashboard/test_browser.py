"""The dashboard in a real headless Chromium (`make test-browser`): every page loads, screenshots
are saved to ``screenshots/`` (env ``CTXLAB_SCREENSHOTS`` overrides), and moving the window
slider with the keyboard changes the numbers shown."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# Page path and a text that appears only once the page has rendered its data (a cold app is slow).
PAGES = (("", "Dataset fingerprints", "runs"), ("comparison", "Mean retained ratio", "comparison"),
         ("estimators", "Break down by", "estimators"), ("summaries", "Read a summary", "summaries"),
         ("tuning", "own terms", "tuning"), ("explorer", "Read messages that were", "explorer"),
         ("policies", "requests a provider rejects", "policies"), ("costs", "pays writes again", "costs"))
RENDER_TIMEOUT_MS = 90_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(demo_db: Path) -> Iterator[str]:
    """`streamlit run dashboard/app.py` on a free local port, stopped after the module."""
    port = free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "dashboard" / "app.py"), "--server.headless", "true",
           "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false"]
    proc = subprocess.Popen(cmd, env={**os.environ, "CTXLAB_DB": str(demo_db)}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"streamlit did not start: {proc.stderr.read().decode()[-2000:]}") from None
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium is not installed (make browser-deps)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    yield context.new_page()
    context.close()


def shots() -> Path:
    folder = Path(os.environ.get("CTXLAB_SCREENSHOTS") or ROOT / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def open_page(page: object, url: str, text: str) -> None:
    page.goto(url)
    page.get_by_text(text).first.wait_for(timeout=RENDER_TIMEOUT_MS)
    page.wait_for_load_state("networkidle")
    assert page.locator('[data-testid="stException"]').count() == 0


@pytest.mark.parametrize(("path", "text", "name"), PAGES)
def test_page_loads(path: str, text: str, name: str, server: str, page: object):
    open_page(page, f"{server}/{path}", text)
    page.wait_for_timeout(800)  # let images and grids paint before the screenshot
    page.screenshot(path=str(shots() / f"{name}.png"), full_page=True)


def test_xss_conversation_stays_text(server: str, page: object):
    open_page(page, f"{server}/explorer", "Read messages that were")
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.locator('[data-testid="stSelectbox"]').filter(has_text="Conversation").first.click()
    page.get_by_role("option").filter(has_text="xss").first.click()
    page.wait_for_function("() => [...document.querySelectorAll('input[role=combobox]')]"
                           ".some(e => e.value.includes('xss-<script>'))", timeout=RENDER_TIMEOUT_MS)
    page.wait_for_timeout(1500)  # the rerun with the new conversation
    # A strategy that writes a summary at the default budget (the first variant may not compact).
    page.locator('[data-testid="stSelectbox"]').filter(has_text="Strategy [counter]").first.click()
    page.get_by_role("option").filter(has_text="codex [").first.click()
    page.wait_for_timeout(1500)
    expander = page.locator('[data-testid="stExpander"]').filter(has_text="added").first
    expander.locator("summary").click()
    expander.get_by_text("<script>alert(1)</script>", exact=False).first.wait_for(timeout=RENDER_TIMEOUT_MS)
    page.wait_for_timeout(500)
    assert not dialogs, "a dataset script ran"
    assert page.locator("main script, main img[onerror]").count() == 0
    page.screenshot(path=str(shots() / "explorer-xss.png"), full_page=True)


def move_slider(page: object, metric_label: str, slider_name: str, key: str, wait_s: float = 30) -> str:
    """Press `key` on a slider and wait until the metric shows another value; returns the slider's new value."""
    value = page.locator('[data-testid="stMetric"]').filter(has_text=metric_label).locator(
        '[data-testid="stMetricValue"]')
    before = value.inner_text()
    slider = page.get_by_role("slider", name=slider_name)
    start = slider.get_attribute("aria-valuetext")
    slider.focus()
    page.keyboard.press(key)
    deadline = time.monotonic() + wait_s
    while value.inner_text() == before and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    assert slider.get_attribute("aria-valuetext") != start
    assert value.inner_text() != before, f"moving {slider_name} must change the numbers shown"
    return slider.get_attribute("aria-valuetext")


def test_window_slider_keyboard_changes_numbers(server: str, page: object):
    open_page(page, f"{server}/comparison", "Mean retained ratio")
    window = move_slider(page, "Mean retained ratio", "Window (tokens)", "ArrowLeft")
    page.get_by_text(f"At {int(window):,} tokens").wait_for()
    page.screenshot(path=str(shots() / "comparison-after-slider.png"), full_page=True)


def test_tuning_knob_keyboard_re_runs_the_policy(server: str, page: object):
    """Moving an agent's knob re-runs its policy over the run's sessions and changes the numbers;
    the screenshot after the move is the one docs/screenshots/tuning.png shows."""
    page.set_viewport_size({"width": 1400, "height": 2000})  # the page scrolls inside: show all of it
    open_page(page, f"{server}/tuning", "own terms")
    page.get_by_test_id("stButton").get_by_role("button", name="Search").click()  # not a table's search icon
    page.get_by_text("Search pick").first.wait_for(timeout=RENDER_TIMEOUT_MS)
    move_slider(page, "needed-context recall", "compaction.keepRecentTokens", "Home", wait_s=60)  # the smallest tail
    page.get_by_text("setting: pi:keep_tokens=").first.wait_for(timeout=RENDER_TIMEOUT_MS)
    page.wait_for_timeout(800)
    page.screenshot(path=str(shots() / "tuning-after-slider.png"), full_page=True)
