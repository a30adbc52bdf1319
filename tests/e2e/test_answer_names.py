"""Issue 49 in the browser, how an answer names its documents: a rulebook the library does not
hold is said plainly before the answer from the documents that were searched, a document is
named in full once per answer, then by its own short name, and "the rules" in general is
answered from the library, not asked about."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.async_api import Browser, expect

from tests.e2e.conftest import needs_chromium
from tests.e2e.documents import BREACH_RULES_MD
from tests.e2e.helpers import new_email, open_tab, sign_up, upload
from tests.e2e.test_journey import ask, last_answer_done

pytestmark = needs_chromium

TITLE = "Personal Data Breach Rules (PDBR)"


async def test_an_answer_names_what_it_lacks_and_its_documents_once(
        browser: Browser, live_server: str, screenshots: Path) -> None:
    tab = await open_tab(browser, live_server)
    page = tab.page
    await sign_up(tab, name="Nadia Names", organisation="Names Bank",
                  email=new_email("names"))
    await upload(tab, filename="breaches.md", data=BREACH_RULES_MD.encode(),
                 mime="text/markdown", title=TITLE, version="2016", doc_type="regulation")
    await page.get_by_role("tab", name="Chats").click()

    await ask(page, "What does MiFID II say about notifying a personal data breach?")
    await last_answer_done(page)
    answer = page.locator(".msg.assistant").last
    await expect(answer).to_contain_text(re.compile(
        r"MiFID II is not in your library; the answer below is from the documents searched "
        r"instead: Personal Data Breach Rules"))
    await expect(answer.locator(".cite.doc").first).to_be_visible()
    await tab.shot(screenshots, "49-05-not-in-library")

    await page.get_by_role("button", name="New chat").click()
    await ask(page, "What must a controller do after a personal data breach?")
    await last_answer_done(page)
    text = await page.locator(".msg.assistant").last.inner_text()
    assert text.count(TITLE) == 1, text  # in full once: where the answer first cites it
    assert re.search(r"\bPDBR Article \d+", text), text  # then by its short name
    await tab.shot(screenshots, "49-06-short-names")

    # "the rules" in general, opening a conversation, is a question to the library, not a
    # reference to ask about.
    await page.get_by_role("button", name="New chat").click()
    await ask(page, "What do the rules say about telling individuals of a breach?")
    await last_answer_done(page)
    answer = page.locator(".msg.assistant").last
    await expect(answer.locator(".cite.doc").first).to_be_visible()
    await expect(answer).not_to_contain_text("I do not have the document you refer to")
    await tab.shot(screenshots, "49-07-the-rules-in-general")
    tab.assert_clean()
    await tab.context.close()
