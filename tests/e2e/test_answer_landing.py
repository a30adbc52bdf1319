"""Issue 49 in the browser, how an answer lands: the offline engine's answer reads in sentence
by sentence, drawn as the final answer is (no raw "- " or "[1]" on the way); the view opens at
the answer's first line and the final render leaves it there; the Sources panel stays closed
until a citation is opened, with one card for each clause cited."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Page, expect

from tests.e2e.conftest import needs_chromium
from tests.e2e.documents import BREACH_RULES_MD
from tests.e2e.helpers import new_email, open_tab, sign_up, upload
from tests.e2e.test_journey import ask, last_answer_done, mention

pytestmark = needs_chromium

TITLE = "GDPR breach rules"
QUESTION = " What must a controller do after a personal data breach?"

# Records, while the answer streams: each text its `.streamed` part showed, when the first
# was drawn, when the first `text` event arrived, and where its first line was on screen
# (the last place before the final answer replaced it). Each response body read is looked at
# for the first text event.
WATCH_LANDING = """() => {
  const seen = {texts: [], drawnAt: null, textEventAt: null, leadTop: null};
  window.__landing = seen;
  const read = ReadableStreamDefaultReader.prototype.read;
  const decoder = new TextDecoder();
  ReadableStreamDefaultReader.prototype.read = async function () {
    const result = await read.call(this);
    if (result.value && seen.textEventAt === null
        && decoder.decode(result.value).includes('event: text')) {
      seen.textEventAt = performance.now();
    }
    return result;
  };
  new MutationObserver(() => {
    const streamed = document.querySelector('.msg.streaming .streamed');
    if (!streamed || !streamed.textContent.trim()) return;
    if (seen.drawnAt === null) seen.drawnAt = performance.now();
    const text = streamed.innerText;
    if (seen.texts[seen.texts.length - 1] !== text) seen.texts.push(text);
    seen.leadTop = streamed.firstElementChild.getBoundingClientRect().top;
  }).observe(document.querySelector('.messages'),
             {subtree: true, childList: true, characterData: true});
}"""

# Where the last answer's first line is, and the conversation view's edges and height.
PLACES = """() => {
  const view = document.querySelector('.messages').getBoundingClientRect();
  const answer = document.querySelectorAll('.msg.assistant');
  const last = answer[answer.length - 1];
  const lead = last.querySelector('.bubble > :not(.resolved)').getBoundingClientRect();
  return {viewTop: view.top, viewBottom: view.bottom, leadTop: lead.top,
          leadBottom: lead.top + 24, answerHeight: last.getBoundingClientRect().height};
}"""


async def answer_and_watch(page: Page) -> dict[str, Any]:
    await page.evaluate(WATCH_LANDING)
    box = page.get_by_role("combobox", name=re.compile("^Message"))
    await box.click()
    await mention(page, "breach", TITLE)
    await ask(page, QUESTION)
    await last_answer_done(page)
    seen: dict[str, Any] = await page.evaluate("window.__landing")
    return seen


def assert_streamed_cleanly(seen: dict[str, Any]) -> None:
    texts: list[str] = seen["texts"]
    # More than one state before the answer completed: it read in, sentence by sentence.
    assert len(texts) >= 2, texts
    assert all(len(a) < len(b) for a, b in pairwise(texts)), texts
    for text in texts:
        assert not re.search(r"\[\d+\]", text), text  # markers drawn, never raw
        assert not re.search(r"^\s*[-•*]\s", text, re.M), text  # bullets drawn, never raw
    # The first sentence is drawn as soon as it arrives.
    assert seen["textEventAt"] is not None
    assert seen["drawnAt"] - seen["textEventAt"] < 1000, seen


def assert_lead_in_view(places: dict[str, float]) -> None:
    assert places["viewTop"] <= places["leadTop"], places
    assert places["leadBottom"] <= places["viewBottom"], places


async def test_an_answer_lands_at_its_start_with_the_sources_closed(
        browser: Browser, live_server: str, screenshots: Path) -> None:
    tab = await open_tab(browser, live_server)
    page = tab.page
    await sign_up(tab, name="Lena Landing", organisation="Landing Bank",
                  email=new_email("landing"))
    await upload(tab, filename="gdpr-breaches.md", data=BREACH_RULES_MD.encode(),
                 mime="text/markdown", title=TITLE, version="2016", doc_type="regulation")
    await page.get_by_role("tab", name="Chats").click()
    sources = page.get_by_role("complementary", name="Sources")

    # On a wide screen: the answer reads in, and the Sources panel stays closed.
    seen = await answer_and_watch(page)
    assert_streamed_cleanly(seen)
    answer = page.locator(".msg.assistant").last
    await expect(answer.locator(".cite.doc").first).to_be_visible()
    assert_lead_in_view(await page.evaluate(PLACES))
    await expect(sources).to_have_class(re.compile("collapsed"))
    await expect(sources.locator(".sources-body")).to_be_hidden()
    await tab.shot(screenshots, "49-01-answer-sources-closed")

    # A citation opens it at its quote, in one card for each clause cited.
    cite = answer.locator(".cite.doc").first
    await cite.click()
    await expect(sources).not_to_have_class(re.compile("collapsed"))
    active = sources.locator(".source.active")
    await expect(active).to_have_count(1)
    await expect(active.locator("blockquote.active")).to_be_visible()
    conversation = await page.locator(".chat-item.current").get_attribute("data-id")
    stored = await (await page.request.get(
        f"/api/conversations/{conversation}/messages")).json()
    citations = [c for m in stored["data"] if m["role"] == "assistant"
                 for c in m["metadata"]["response"]["citations"]]
    clauses = {(c["document_id"], c["clause"] or c["section"] or c["chunk_id"])
               for c in citations}
    cards = sources.locator(".source.doc")
    await expect(cards).to_have_count(len(clauses))
    assert len(citations) > len(clauses), citations  # the same clause was cited again
    await tab.shot(screenshots, "49-02-citation-opens-sources")

    # On a phone, in a new chat: the answer outgrows the view, which holds its first line
    # where it was while it streamed; Sources stays shut until a citation opens it.
    await page.set_viewport_size({"width": 390, "height": 760})
    collapse = sources.get_by_role("button", name="Collapse the sources panel")
    await collapse.click()
    await page.get_by_role("button", name="Show chats and documents").click()
    await page.get_by_role("button", name="New chat").click()
    seen = await answer_and_watch(page)
    assert_streamed_cleanly(seen)
    places = await page.evaluate(PLACES)
    assert places["answerHeight"] > places["viewBottom"] - places["viewTop"], places
    assert_lead_in_view(places)
    assert abs(places["leadTop"] - seen["leadTop"]) <= 3, (places, seen)
    await expect(sources).to_be_hidden()
    await tab.shot(screenshots, "49-03-phone-answer-start")
    await page.locator(".msg.assistant").last.locator(".cite.doc").first.click()
    await expect(sources).to_be_visible()
    await expect(sources.locator(".source.active")).to_be_visible()
    await tab.shot(screenshots, "49-04-phone-citation-opens-sources")
    await collapse.click()
    await expect(sources).to_be_hidden()

    # Reopened, the conversation shows its last answer from its start, Sources still closed.
    await page.reload()
    await page.get_by_role("button", name="Show chats and documents").click()
    await page.locator(".chat-open").first.click()
    await expect(page.locator(".msg.assistant .cite.doc").first).to_be_visible()
    assert_lead_in_view(await page.evaluate(PLACES))
    await expect(sources).to_be_hidden()
    tab.assert_clean()
    await tab.context.close()
