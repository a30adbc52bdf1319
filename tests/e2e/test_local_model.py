"""The browser UI on the local model (``provider=local``), on a machine measured too slow for
it to be the default: the selector says what a turn costs here and keeps the offline engine
as the default; a conversation that chooses the model is shown only checked statements, each
of which the final answer contains (nothing shown is taken back); and a model stopped by its
time limit mid-answer leaves the offline answer, which says so first, under a badge naming
the offline engine."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Locator, Page, expect

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.adapters.llm.machine_speed import Speed, keep, speed_file
from tests.chat.local_model.conftest import local_settings
from tests.e2e.conftest import e2e_settings, needs_chromium, serve
from tests.e2e.documents import AML_RULES, make_pdf
from tests.e2e.helpers import Tab, new_email, open_tab, sign_up, upload
from tests.e2e.test_journey import ask, mention

pytestmark = needs_chromium
TITLE = "ADGM AML Rules"
QUESTION = " How long must customer due diligence records be kept?"
MODEL_ANSWER_TIMEOUT_MS = 300_000  # a CPU model under a loaded CI machine
# A machine measured slow (a typical turn's first token at 45 s): offline stays the default.
SLOW = Speed(model="qwen2.5-coder-0.5b-instruct-q4_k_m", prefill_tokens_per_s=28.0,
             generation_tokens_per_s=3.0, measured_at="2026-12-07T00:00:00+00:00")
STOPPED_AFTER_S = 4.0  # the model's time limit on the second server: it cannot finish

# Every text the answer showed while it streamed, in order (resets included as "").
WATCH_ANSWER = """() => {
  window.__shown = [];
  new MutationObserver(() => {
    const el = document.querySelector('.msg.streaming .streamed');
    if (!el) return;
    const text = el.textContent;
    if (window.__shown[window.__shown.length - 1] !== text) window.__shown.push(text);
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def _server(data_dir: Path, e2e_db_url: str, embedder: LocalEmbedder, local_model_path: Path,
            **local: object) -> Iterator[str]:
    keep(data_dir, SLOW)  # as the first start would have measured it (a no-op timing)
    settings = e2e_settings(data_dir, e2e_db_url,
                            llm=local_settings(model=str(local_model_path), **local))
    yield from serve(settings, embedder)
    speed_file(data_dir).unlink(missing_ok=True)


@pytest.fixture(scope="module")
def local_server(data_dir: Path, e2e_db_url: str, embedder: LocalEmbedder,
                 local_model_path: Path) -> Iterator[str]:
    yield from _server(data_dir, e2e_db_url, embedder, local_model_path)


@pytest.fixture(scope="module")
def stopping_server(data_dir: Path, e2e_db_url: str, embedder: LocalEmbedder,
                    local_model_path: Path) -> Iterator[str]:
    yield from _server(data_dir, e2e_db_url, embedder, local_model_path,
                       timeout_s=STOPPED_AFTER_S)


async def _answered_on_the_local_model(browser: Browser, server: str,
                                       who: str) -> tuple[Tab, Locator]:
    """A new user's question on the local model, and its answer once it is complete."""
    tab = await open_tab(browser, server)
    page = tab.page
    await sign_up(tab, name=f"Lola {who}", organisation=f"{who} Bank",
                  email=new_email(who.lower()))
    await upload(tab, filename="aml.pdf", data=make_pdf(AML_RULES, TITLE),
                 mime="application/pdf", title=TITLE, version="2025",
                 doc_type="regulation")
    await page.get_by_role("tab", name="Chats").click()
    selector = page.get_by_role("combobox", name="Engine", exact=True)
    local = selector.locator("option[value=local]")
    await expect(local).to_have_text(re.compile(
        r"^Local model · qwen2\.5-coder-0\.5b-instruct-q4_k_m — about \d+ (s|min) a turn on "
        r"this machine$"))
    await expect(selector).to_have_value("offline")  # too slow here to be the default
    await selector.select_option("local")
    box = page.get_by_role("combobox", name=re.compile("^Message"))
    await box.click()
    await mention(page, "rules", TITLE)
    await page.evaluate(WATCH_ANSWER)
    await ask(page, QUESTION)
    answer = page.locator(".msg.assistant").last
    await expect(answer).not_to_have_class(re.compile("streaming"),
                                           timeout=MODEL_ANSWER_TIMEOUT_MS)
    return tab, answer


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z][A-Za-z'’-]*", text)


async def _last_answer(page: Page) -> str:
    """The last answer as the server stored it (the text the stream spelled)."""
    return str(await page.evaluate("""async () => {
      const chats = (await (await fetch('/api/conversations')).json()).data;
      const stored = (await (await fetch(`/api/conversations/${chats[0].id}/messages`)).json())
        .data;
      return stored.filter((m) => m.role === 'assistant').pop().content;
    }"""))


async def test_the_local_model_shows_only_what_its_answer_keeps(
        browser: Browser, local_server: str, screenshots: Path) -> None:
    tab, answer = await _answered_on_the_local_model(browser, local_server, "Local")
    page = tab.page
    final = " ".join((await _last_answer(page)).split())
    shown = [" ".join(s.split()) for s in await page.evaluate("window.__shown")]
    badge = answer.locator(".badge.engine")
    if await badge.get_attribute("data-answered-by") == "offline":
        # The model's answer did not stand: what it showed was taken back, and said so.
        await expect(answer).to_contain_text("this is the offline engine's answer")
    else:
        await expect(badge).to_have_attribute("data-engine", "llm")
        await expect(badge).to_contain_text("qwen2.5-coder-0.5b-instruct-q4_k_m")
        await expect(answer.locator(".cite.doc").first).to_be_visible()
        # Each text shown while it streamed is the start of what stands: none was taken back
        # (compared word by word: the stream may be shown rendered, its markers as chips).
        said = _words(final)
        assert shown and all(said[:len(_words(s))] == _words(s) for s in shown), (shown, final)
    await tab.shot(screenshots, "30-local-model-answer")
    tab.assert_clean()


async def test_a_model_stopped_mid_answer_leaves_the_offline_answer_and_says_so(
        browser: Browser, stopping_server: str, screenshots: Path) -> None:
    tab, answer = await _answered_on_the_local_model(browser, stopping_server, "Stopped")
    await expect(answer).to_contain_text(
        f"The local model did not finish in {STOPPED_AFTER_S:g} s; this is the offline "
        "engine's answer.")
    badge = answer.locator(".badge.engine")
    await expect(badge).to_have_attribute("data-answered-by", "offline")
    await expect(badge).to_have_text(
        "Offline engine · qwen2.5-coder-0.5b-instruct-q4_k_m did not answer")
    await expect(answer.locator(".cite.doc").first).to_be_visible()
    await tab.shot(screenshots, "30-local-model-stopped")
    tab.assert_clean()
