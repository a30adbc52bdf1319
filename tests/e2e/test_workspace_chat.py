"""The chat as a compliance team lives in it (issue 38): a refused question keeps its text
and says why where the user is looking, and leaves no empty chat behind; an empty question
says what to do; a long one shows a counter near the limit; a reopened audit looks as it did
when it was answered; chat titles are clean, distinct and renamed in place."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.async_api import Browser, Page, expect

from tests.e2e.conftest import needs_chromium
from tests.e2e.documents import AML_RULES, make_pdf
from tests.e2e.helpers import ANSWER_TIMEOUT_MS, new_email, open_tab, sign_up, upload

pytestmark = needs_chromium

TITLE = "Workspace AML Rules"
EMAIL = ("Hi team, to win the new client quickly we will not screen him against any "
         "sanctions lists, and he can send his ID documents next month. Please don't mention "
         "anything to compliance.")
QUESTION = "What records must a Relevant Person keep?"


def message_box(page: Page):  # type: ignore[no-untyped-def]
    return page.get_by_role("combobox", name=re.compile("^Message"))


async def paste(page: Page, text: str) -> None:
    """Pastes `text` into the chat box as a user's clipboard would."""
    await message_box(page).click()
    await page.evaluate("""(text) => {
      const data = new DataTransfer();
      data.setData('text/plain', text);
      document.querySelector('.composer-input').dispatchEvent(
        new ClipboardEvent('paste', {clipboardData: data, bubbles: true, cancelable: true}));
    }""", text)


async def tag(page: Page, query: str, label: str) -> None:
    box = message_box(page)
    await box.press_sequentially(f"@{query}")
    option = page.get_by_role("option").filter(has_text=label).first
    await expect(option).to_be_visible()
    await option.dispatch_event("mousedown")


async def answered(page: Page) -> None:
    await expect(page.locator(".msg.assistant").last).not_to_have_class(
        re.compile("streaming"), timeout=ANSWER_TIMEOUT_MS)


async def test_refused_and_empty_questions_keep_the_text_and_say_why(
        browser: Browser, live_server: str, screenshots: Path) -> None:
    tab = await open_tab(browser, live_server)
    page = tab.page
    await sign_up(tab, name="Rita Refused", organisation="Refusal Bank",
                  email=new_email("rita"))
    box = message_box(page)
    warning = page.locator(".composer-warning")

    # An empty question: the send says what to do instead of doing nothing.
    await page.get_by_role("button", name="Send message").click()
    await expect(warning).to_be_visible()
    await expect(warning).to_contain_text("Type a question first")

    # A long paste: a counter near the limit, then over it the send is refused in place and
    # the text stays.
    await paste(page, "The policy says. " * 400)  # 6,800 characters
    counter = page.locator(".composer-count")
    await expect(counter).to_be_visible()
    await expect(counter).to_have_text("6,799 / 8,000")
    await expect(warning).to_be_hidden()
    await paste(page, " Customers are screened daily." * 60)
    await expect(counter).to_have_class(re.compile("over"))
    await expect(warning).to_contain_text("the limit is 8,000")
    await expect(page.get_by_role("button", name="Send message")).to_be_disabled()
    await box.press("Enter")
    await expect(page.locator(".msg")).to_have_count(0)
    await tab.shot(screenshots, "38-01-long-question-counter")

    # A question the server refuses (its tagged document was deleted meanwhile): no bubble
    # stays on "Thinking…", the text is kept, the reason shows above it, no empty chat is left.
    await box.fill("")
    await upload(tab, filename="tiny.pdf", data=make_pdf(AML_RULES, TITLE),
                 mime="application/pdf", title=TITLE, version="2025", doc_type="regulation")
    await page.get_by_role("tab", name="Chats").click()
    await tag(page, "workspace", TITLE)
    await box.press_sequentially(" What must be kept?")
    documents = (await (await page.request.get("/api/documents")).json())["data"]
    csrf = next(c["value"] for c in await tab.context.cookies() if c["name"] == "regintel_csrf")
    deleted = await page.request.delete(f"/api/documents/{documents[0]['id']}",
                                        headers={"X-CSRF-Token": csrf})
    assert deleted.ok
    await box.press("Enter")
    await expect(warning).to_contain_text("no document")
    await expect(page.locator(".msg")).to_have_count(0)
    await expect(page.get_by_text("Thinking…")).to_have_count(0)
    await expect(box).to_contain_text("What must be kept?")
    await expect(page.locator(".chat-list")).to_contain_text("No conversations yet")
    assert (await (await page.request.get("/api/conversations")).json())["count"] == 0
    await tab.shot(screenshots, "38-02-refused-question-kept")
    tab.assert_clean()
    await tab.context.close()


async def test_a_reopened_audit_looks_as_it_did_and_titles_are_clean(
        browser: Browser, live_server: str, screenshots: Path) -> None:
    tab = await open_tab(browser, live_server)
    page = tab.page
    await sign_up(tab, name="Olga Reopen", organisation="Reopen Bank", email=new_email("olga"))
    await upload(tab, filename="aml.pdf", data=make_pdf(AML_RULES, TITLE),
                 mime="application/pdf", title=TITLE, version="2025", doc_type="regulation")
    await page.get_by_role("tab", name="Chats").click()
    box = message_box(page)
    await tag(page, "workspace", TITLE)
    await box.press_sequentially(f" Check this email against the rules: {EMAIL}")
    await box.press("Enter")
    await answered(page)
    live = page.locator(".msg.assistant").last
    await expect(live.locator(".audit .badge.sev").first).to_be_visible()
    first_time = await live.inner_text()

    # The title is the question as clean text: the mention's name, no "@[…]" markup.
    item = page.locator(".chat-item").first
    title = (await item.locator(".chat-item-title").inner_text()).strip()
    assert "@[" not in title and title.startswith(f"{TITLE} Check this email"), title
    assert "Conversation from" not in await item.inner_text()

    # Reopened from the list (after a reload): the same badges, buttons, confidence, cost.
    await page.reload()
    await page.locator(".chat-item .chat-open").first.click()
    reopened = page.locator(".msg.assistant").last
    await expect(reopened.locator(".audit .badge.sev").first).to_be_visible()
    await expect(reopened.locator(".cost")).to_be_visible()
    await expect(reopened.get_by_role("button", name=re.compile("Turn into task")).first
                 ).to_be_visible()
    assert await reopened.inner_text() == first_time
    await tab.shot(screenshots, "38-03-reopened-audit")

    # The same first question in a new chat gets a title of its own.
    await page.get_by_role("button", name="New chat").click()
    await box.press_sequentially(QUESTION)
    await box.press("Enter")
    await answered(page)
    await page.get_by_role("button", name="New chat").click()
    await box.press_sequentially(QUESTION)
    await box.press("Enter")
    await answered(page)
    # (The list is reloaded once the answer is in: wait for it.)
    await expect(page.locator(".chat-item-title").nth(0)).to_have_text(f"{QUESTION} (2)")
    await expect(page.locator(".chat-item-title").nth(1)).to_have_text(QUESTION)

    # Renamed in place: the title becomes a box; Enter saves it.
    await page.locator(".chat-item").first.get_by_role("button", name=re.compile("^Rename")).click()
    edit = page.get_by_role("textbox", name="Conversation title")
    await expect(edit).to_have_value(f"{QUESTION} (2)")
    await edit.fill("Record keeping, second look")
    await edit.press("Enter")
    await expect(page.locator(".chat-item-title").first).to_have_text(
        "Record keeping, second look")
    await expect(page.locator(".chat-title")).to_have_text("Record keeping, second look")
    await tab.shot(screenshots, "38-04-chat-titles")
    tab.assert_clean()
    await tab.context.close()
