"""Hostile document text renders inert; the dashboard works on a narrow screen; more than five
tagged documents are refused before sending."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from playwright.async_api import Browser, Page, expect

from tests.e2e.conftest import needs_chromium
from tests.e2e.helpers import (
    ANSWER_TIMEOUT_MS,
    READY_TIMEOUT_MS,
    new_email,
    open_tab,
    sign_up,
    upload,
)

pytestmark = needs_chromium

HOSTILE_TITLE = "<script>alert(1)</script>"
HOSTILE_TEXT = (
    "Rule 9.1 Disclosure. A firm must disclose its fees to every client in writing before "
    "providing a service. <img src=x onerror=alert(2)> <script>alert(3)</script>\n\n"
    "Rule 9.2 Records. A firm must keep a copy of every fee disclosure for six years. "
    "<b onmouseover=alert(4)>bold</b>\n")


async def test_script_in_a_document_renders_inert(browser: Browser, live_server: str,
                                                   screenshots: Path) -> None:
    tab = await open_tab(browser, live_server)
    page = tab.page
    await sign_up(tab, name="Eve <i>Tester</i>", organisation="<b>Evil</b> Ltd",
                  email=new_email("eve"))
    await upload(tab, filename="hostile.txt", data=HOSTILE_TEXT.encode(), mime="text/plain",
                 title=HOSTILE_TITLE, version="<i>v1</i>", doc_type="regulation",
                 set_name="<img src=x onerror=alert(5)>")
    card = page.locator(".doc-card .doc-title")
    await expect(card).to_have_text(f"{HOSTILE_TITLE} (<i>v1</i>)")
    await expect(page.locator(".group-head")).to_contain_text("<img src=x onerror=alert(5)>")
    await expect(page.locator(".user-name")).to_have_text("Eve <i>Tester</i>")

    # Tag it, ask, and hover a citation whose quote carries the markup.
    await page.get_by_role("tab", name="Chats").click()
    box = page.get_by_role("combobox", name=re.compile("^Message"))
    await box.press_sequentially("@script")
    option = page.get_by_role("option").filter(has_text=HOSTILE_TITLE)
    await expect(option).to_have_count(1)
    await box.press("Enter")
    await box.press_sequentially(" What must a firm disclose to clients about fees?")
    await box.press("Enter")
    answer = page.locator(".msg.assistant").last
    await expect(answer).not_to_have_class(re.compile("streaming"), timeout=ANSWER_TIMEOUT_MS)
    await expect(page.locator(".msg.user").last).to_contain_text(f"@{HOSTILE_TITLE}")
    cite = answer.locator(".cite").first
    await cite.hover()
    await expect(page.get_by_role("tooltip").locator(".tip-title")).to_have_text(HOSTILE_TITLE)
    await tab.shot(screenshots, "16-hostile-text-inert")

    # Nothing of it became markup: no element the page did not build, and no dialog fired.
    injected = await page.evaluate("""() => document.querySelectorAll(
        '#app script, #app img, #app b, #app i, .tooltip script, .tooltip img').length""")
    assert injected == 0
    await page.reload()
    await expect(page.locator(".chat-item")).to_have_count(1)
    await page.locator(".chat-item .chat-open").click()
    await expect(page.locator(".msg.assistant .cite").first).to_be_visible()
    await asyncio.sleep(0.3)  # a handler that would fire late still has its chance
    tab.assert_clean()
    await tab.context.close()


async def _upload_by_api(page: Page, n: int) -> None:
    csrf = next(c["value"] for c in await page.context.cookies()
                if c["name"] == "regintel_csrf")
    body = (f"Rule {n}.1 Reporting. A firm must submit report number {n} to the regulator "
            f"within {n + 5} business days of the end of each quarter.")
    response = await page.request.post("/api/documents", headers={"X-CSRF-Token": csrf},
                                       multipart={"title": f"Circular {n}", "version": "2025",
                                                  "doc_type": "regulation",
                                                  "file": {"name": f"circular-{n}.txt",
                                                           "mimeType": "text/plain",
                                                           "buffer": body.encode()}})
    assert response.status == 201, await response.text()


async def test_narrow_screen_and_the_five_document_limit(browser: Browser, live_server: str,
                                                         screenshots: Path) -> None:
    tab = await open_tab(browser, live_server, width=390, height=844)
    page = tab.page
    await sign_up(tab, name="Nora Narrow", organisation="Small Screens LLC",
                  email=new_email("nora"))
    for n in range(1, 7):
        await _upload_by_api(page, n)

    # The left panel is off-canvas until the menu button opens it.
    left = page.get_by_role("navigation", name="Chats and documents")
    await expect(left).not_to_be_in_viewport()
    menu = page.get_by_role("button", name="Show chats and documents")
    await menu.click()
    await expect(left).to_be_in_viewport()
    # The other pages are reached from the same panel on a phone.
    await expect(left.get_by_role("navigation", name="Pages")).to_be_in_viewport()
    await page.get_by_role("tab", name="Documents").click()
    ready = page.locator(".doc-card .status-ready")
    await expect(ready).to_have_count(6, timeout=READY_TIMEOUT_MS)
    await tab.shot(screenshots, "17-narrow-documents")
    await page.keyboard.press("Escape")
    await expect(left).not_to_be_in_viewport()
    await tab.shot(screenshots, "18-narrow-chat")

    # Six tagged documents: the warning shows and sending is blocked until one goes.
    box = page.get_by_role("combobox", name=re.compile("^Message"))
    await box.click()
    for n in range(1, 7):
        await box.press_sequentially("@circ")
        options = page.get_by_role("option")
        await expect(options.filter(has_text=f"Circular {n}")).to_have_count(1)
        labels = [t.strip() for t in await options.locator(".mention-label").all_text_contents()]
        for _ in range(labels.index(f"Circular {n}")):
            await box.press("ArrowDown")
        await box.press("Enter")
    await expect(box.locator(".pill")).to_have_count(6)
    warning = page.get_by_role("alert").filter(has_text="Max 5 documents per query")
    await expect(warning).to_be_visible()
    await expect(page.get_by_role("button", name="Send message")).to_be_disabled()
    await tab.shot(screenshots, "19-narrow-document-limit")
    await box.press("End")
    await box.press("Backspace")  # the space after the last pill
    await box.press("Backspace")  # the last pill
    await expect(box.locator(".pill")).to_have_count(5)
    await expect(warning).to_be_hidden()
    await expect(page.get_by_role("button", name="Send message")).to_be_enabled()

    # Weak evidence: the answer is held back and the three choices are offered.
    await box.press("Control+a")
    await box.press("Delete")
    await expect(box.locator(".pill")).to_have_count(0)
    await box.press_sequentially("What are the emission limits for diesel generators in "
                                 "factories?")
    await box.press("Enter")
    prompt = page.locator(".prompt.low_confidence")
    await expect(prompt).to_be_visible(timeout=ANSWER_TIMEOUT_MS)
    await expect(prompt.get_by_role("button")).to_have_count(2)  # no web search: not configured
    await expect(prompt).to_contain_text("I couldn’t find strong matches")
    await tab.shot(screenshots, "20-narrow-low-confidence")
    await prompt.get_by_role("button", name="Continue anyway with disclaimer").click()
    answer = page.locator(".msg.assistant").last
    await expect(answer).not_to_have_class(re.compile("streaming"), timeout=ANSWER_TIMEOUT_MS)
    await expect(answer.locator(".notices")).to_contain_text("Limited information available")
    tab.assert_clean()
    await tab.context.close()


async def test_a_quote_cut_mid_sentence_is_shown_with_an_ellipsis(browser: Browser,
                                                                  live_server: str) -> None:
    """The UI shows quotes as the chat answer and the CLI do (domain.chat.quoted): "…" where
    a quote stops mid-sentence, nothing added to one that ends."""
    tab = await open_tab(browser, live_server)
    await tab.page.goto("/")
    shown = await tab.page.evaluate("""async () => {
        const { shownQuote } = await import('/static/js/dom.js');
        return ['A firm must keep records for six years.', 'A firm must keep records for',
                'the documents in Rule 4.6.1; and', '(a) the settlor;'].map(shownQuote);
    }""")
    assert shown == ["A firm must keep records for six years.", "A firm must keep records for…",
                     "the documents in Rule 4.6.1; and…", "(a) the settlor;"]
    assert tab.errors == []
    await tab.context.close()


async def test_list_items_are_shown_under_their_lead_in(browser: Browser,
                                                       live_server: str) -> None:
    """An answer that shows several items of one rule's list gives the lead-in once and the
    items under it ("  - " lines, chat/offline/compose.listed): a list inside the bullet, and
    an item's own list ("    - " lines) inside the item."""
    tab = await open_tab(browser, live_server)
    await tab.page.goto("/")
    shown = await tab.page.evaluate("""async () => {
        const { paragraphs } = await import('/static/js/dashboard/messages.js');
        const text = 'Based on the retrieved provisions:\\n\\n' +
            '- AML, 4.5.1: A Relevant Person must maintain the following records:\\n' +
            '  - (a) a copy of all documents; … [1]\\n' +
            '  - (b) records, including: [4]\\n' +
            '    - (i) business correspondence; [5]\\n' +
            '  - (e) communications with the FIU; … [2]\\n' +
            '- AML, 13.2.1: A Relevant Person must provide training at least annually. [3]';
        const cited = [1, 2, 3, 4, 5].map((n) => ({ n, source_type: 'document', title: 'AML' }));
        const blocks = paragraphs(text, cited, { onCite: () => {} });
        const list = blocks.find((b) => b.tagName === 'UL');
        return [...list.children].map((li) => ({
            own: li.firstChild.textContent,
            items: [...li.querySelectorAll(':scope > ul > li')]
                .map((c) => c.firstChild.textContent),
            nested: [...li.querySelectorAll(':scope > ul > li > ul > li')]
                .map((c) => c.textContent),
            markers: li.querySelectorAll('button.cite').length }));
    }""")
    assert [s["own"] for s in shown] == ["AML, 4.5.1: A Relevant Person must maintain the "
                                         "following records:", "AML, 13.2.1: A Relevant Person "
                                         "must provide training at least annually. "]
    assert [len(s["items"]) for s in shown] == [3, 0]
    assert shown[0]["items"][0].startswith("(a) a copy of all documents; …")
    assert shown[0]["items"][1].startswith("(b) records, including:")
    # An item's own list ("(b) … including:" then "(i) …") nests one level further.
    assert len(shown[0]["nested"]) == 1
    assert shown[0]["nested"][0].startswith("(i) business correspondence;")
    assert [s["markers"] for s in shown] == [4, 1]
    assert tab.errors == []
    await tab.context.close()
