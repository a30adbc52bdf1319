"""The whole path in a real browser: sign up → onboarding → upload PDFs → ready → @mention →
ask → streamed answer → citation tooltip → audit with a confirmation → reload keeps the
history → another tenant sees none of it. Screenshots of each main screen are saved."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.async_api import Browser, Page, expect

from tests.e2e.conftest import needs_chromium
from tests.e2e.documents import AML_RULES, CONDUCT_RULES, POLICY, make_pdf
from tests.e2e.helpers import (
    ANSWER_TIMEOUT_MS,
    PASSWORD,
    new_email,
    open_tab,
    sign_up,
    upload,
)

pytestmark = needs_chromium

AML_TITLE = "ADGM AML Rules"
CONDUCT_TITLE = "ADGM Conduct Rules"
POLICY_TITLE = "Falcon AML Policy"
QUESTION = "What must a firm do about a suspicious transaction?"

# Records whether answer text was ever rendered while the answer was still streaming, and
# every text the status line showed (the nodes added to it: a batch of mutations keeps them).
WATCH_STREAM = """() => {
  window.__streamed = false;
  window.__steps = [];
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.target.classList && r.target.classList.contains('msg-status')) {
        for (const n of r.addedNodes) window.__steps.push(n.textContent);
      }
    }
    for (const el of document.querySelectorAll('.msg.streaming .streamed')) {
      if (el.textContent.trim()) window.__streamed = true;
    }
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


async def mention(page: Page, query: str, option: str) -> None:
    """Type @query in the chat input and choose `option` from the dropdown by keyboard."""
    box = page.get_by_role("combobox", name=re.compile("^Message"))
    await box.press_sequentially(f"@{query}")
    listbox = page.get_by_role("listbox", name="Suggestions")
    await expect(listbox).to_be_visible()
    options = listbox.get_by_role("option")
    labels = [t.strip() for t in await options.locator(".mention-label").all_text_contents()]
    assert option in labels, labels
    for _ in range(labels.index(option)):
        await box.press("ArrowDown")
    await expect(options.nth(labels.index(option))).to_have_attribute("aria-selected", "true")
    await box.press("Enter")
    await expect(listbox).to_be_hidden()


async def ask(page: Page, text: str) -> None:
    box = page.get_by_role("combobox", name=re.compile("^Message"))
    await box.press_sequentially(text)
    await box.press("Enter")


async def last_answer_done(page: Page) -> None:
    last = page.locator(".msg.assistant").last
    await expect(last).not_to_have_class(re.compile("streaming"), timeout=ANSWER_TIMEOUT_MS)


async def test_whole_path(browser: Browser, live_server: str, screenshots: Path) -> None:
    alice = await open_tab(browser, live_server)
    page = alice.page

    # Landing → sign-up → onboarding → dashboard.
    await page.goto("/")
    await expect(page.get_by_role("heading", level=1)).to_have_text(
        "Regulatory answers you can cite.")
    await alice.shot(screenshots, "01-landing")
    await page.get_by_role("link", name="Get started free").click()
    await expect(page).to_have_url(re.compile(r"/auth/signup$"))
    alice_email = new_email("alice")
    await sign_up(alice, name="Alice Analyst", organisation="Falcon Test Bank",
                  email=alice_email, shots=screenshots)
    await alice.shot(screenshots, "04-dashboard-empty")

    # Upload two regulations (one set) and a policy; each is polled until ready.
    await upload(alice, filename="adgm-aml.pdf", data=make_pdf(AML_RULES, AML_TITLE),
                 mime="application/pdf", title=AML_TITLE, version="2025",
                 doc_type="regulation", set_name="ADGM", shots=screenshots)
    await upload(alice, filename="adgm-cob.pdf", data=make_pdf(CONDUCT_RULES, CONDUCT_TITLE),
                 mime="application/pdf", title=CONDUCT_TITLE, version="2025",
                 doc_type="regulation", set_name="ADGM")
    await upload(alice, filename="falcon-aml.pdf", data=make_pdf(POLICY, POLICY_TITLE),
                 mime="application/pdf", title=POLICY_TITLE, version="v3", doc_type="policy")
    groups = page.locator(".doc-group .group-head")
    await expect(groups).to_have_count(2)
    await expect(groups.first).to_contain_text("ADGM")
    await expect(page.locator(".doc-card.type-regulation")).to_have_count(2)
    await expect(page.locator(".doc-card.type-policy")).to_have_count(1)
    await alice.shot(screenshots, "06-documents")
    documents = (await page.request.get("/api/documents")).json
    by_title = {d["title"]: d["id"] for d in (await documents())["data"]}

    # The @mention dropdown: four sections, keyboard navigation, Esc closes it.
    await page.get_by_role("tab", name="Chats").click()
    box = page.get_by_role("combobox", name=re.compile("^Message"))
    await box.click()
    await box.press_sequentially("@")
    listbox = page.get_by_role("listbox", name="Suggestions")
    await expect(listbox).to_be_visible()
    # No web search is configured here, so none is offered (issue 38).
    await expect(listbox.locator(".mention-section")).to_have_text(
        ["Actions", "Sets", "Documents"])
    # Each with its icon drawn inline, not an emoji a machine may lack a font for.
    await expect(listbox.locator(".mention-section svg.icon")).to_have_count(3)
    await alice.shot(screenshots, "07-mention-dropdown")
    await box.press("Escape")
    await expect(listbox).to_be_hidden()
    await box.press("Backspace")

    # Tag the AML rules by keyboard and ask; the answer streams in.
    await mention(page, "rules", AML_TITLE)
    pill = box.locator(".pill")
    await expect(pill).to_have_attribute("data-doc-id", by_title[AML_TITLE])
    await page.evaluate(WATCH_STREAM)
    await ask(page, f" {QUESTION}")
    await expect(page.locator(".msg.user").last).to_contain_text(QUESTION)
    await last_answer_done(page)
    assert await page.evaluate("window.__streamed") is True
    # The status line named the real steps as they started, then the check of the quotes.
    steps = await page.evaluate("window.__steps")
    assert any(re.fullmatch(r"Searching (\d+ documents?|your library)…", s) for s in steps), steps
    assert any(re.fullmatch(r"Reading \d+ provisions?…", s) for s in steps), steps
    assert "Checking the quotes…" in steps, steps
    answer = page.locator(".msg.assistant").last
    # The offline engine calls no model: its answers say so instead of "0 tokens · $0.000".
    await expect(answer.locator(".cost")).to_have_text(" Offline engine · no model cost")
    await expect(page.locator(".chat-usage")).to_have_text(" No model cost")
    await expect(answer.locator(".badge.conf")).to_have_count(1)
    await expect(page.locator(".chat-title")).to_have_text(re.compile(QUESTION[:20]))

    # A citation's tooltip shows the title, page and the quote; clicking opens Sources.
    cite = answer.locator(".cite.doc").first
    await cite.hover()
    tooltip = page.get_by_role("tooltip")
    await expect(tooltip).to_be_visible()
    await expect(tooltip.locator(".tip-title")).to_have_text(AML_TITLE)
    await expect(tooltip.locator(".tip-meta")).to_contain_text("page")
    quote = (await tooltip.locator(".tip-quote").text_content()) or ""
    assert len(quote) > 20
    await alice.shot(screenshots, "08-answer-citation-tooltip")
    await cite.click()
    sources = page.get_by_role("complementary", name="Sources")
    await expect(sources.locator(".source.active")).to_contain_text(quote[:40])
    # The panel collapses to a strip, and a citation click opens it again.
    await sources.get_by_role("button", name="Collapse the sources panel").click()
    await expect(sources).to_have_class(re.compile("collapsed"))
    await expect(sources.locator(".sources-body")).to_be_hidden()
    await cite.click()
    await expect(sources).not_to_have_class(re.compile("collapsed"))
    await expect(sources.locator(".source.active")).to_be_visible()

    # Audit: a second regulation in the conversation, then "the regulation" is ambiguous,
    # so the assistant asks which one; confirming resumes the turn into the audit.
    await mention(page, "conduct", CONDUCT_TITLE)
    await ask(page, " Summarize this regulation")
    await last_answer_done(page)
    box_text = "Audit "
    await box.press_sequentially(box_text)
    await mention(page, "falcon", POLICY_TITLE)
    await ask(page, " against the regulation")
    prompt = page.locator(".prompt.confirm_docs")
    await expect(prompt).to_be_visible(timeout=ANSWER_TIMEOUT_MS)
    await expect(prompt).to_contain_text("I think you’re referring to:")
    await alice.shot(screenshots, "09-confirm-prompt")
    await prompt.get_by_role("button", name=f"Use {AML_TITLE}").click()
    await last_answer_done(page)
    audit = page.locator(".audit").last
    await expect(audit).to_be_visible()
    await expect(audit.locator(".finding-doc").first).to_have_text(AML_TITLE)
    badges = audit.locator(".badge.sev")
    assert await badges.count() >= 1
    assert set(await badges.all_text_contents()) <= {"Critical", "High", "Medium", "Low"}
    await expect(audit.locator(".consequence").first).not_to_be_empty()
    await audit.locator(".finding").first.scroll_into_view_if_needed()
    await alice.shot(screenshots, "10-audit-results")

    # The Compare action from the Actions section, on two tagged regulations: a table.
    await mention(page, "comp", "Compare")
    await expect(box.locator(".pill.kind-action")).to_have_text(re.compile("Compare"))
    await mention(page, "rules", AML_TITLE)
    await mention(page, "rules", CONDUCT_TITLE)
    await ask(page, " What are the differences in record keeping?")
    await last_answer_done(page)
    table = page.locator(".comparison table").last
    await expect(table.locator("thead th")).to_have_text(["Aspect", AML_TITLE, CONDUCT_TITLE])
    assert await table.locator("tbody tr").count() >= 1
    await table.scroll_into_view_if_needed()
    await alice.shot(screenshots, "11-comparison-table")

    # Reload: the conversation and its messages come back from the server.
    await page.reload()
    chats = page.locator(".chat-item")
    await expect(chats).to_have_count(1)
    await chats.first.get_by_role("button").first.click()
    # The paused audit and its confirmation are one exchange in the history.
    await expect(page.locator(".msg.user")).to_have_count(4)
    await expect(page.locator(".msg.user").first).to_contain_text(QUESTION)
    await expect(page.locator(".msg.assistant .cite").first).to_be_visible()
    await alice.shot(screenshots, "12-history-after-reload")
    conversation_id = await chats.first.get_attribute("data-id")

    # Log out and back in through the forms: the history is still there.
    await page.get_by_label("Settings").click()
    await page.get_by_role("button", name="Log out").click()
    await expect(page).to_have_url(re.compile(r"/$"))
    await page.get_by_role("link", name="Log in").click()
    await page.get_by_label("E-mail").fill(alice_email)
    await page.get_by_label("Password").fill(PASSWORD)
    await alice.shot(screenshots, "13-login")
    await page.get_by_role("button", name="Log in").click()
    await expect(page).to_have_url(re.compile(r"/dashboard$"))
    await expect(page.locator(".chat-item")).to_have_count(1)

    # The project and concept-graph pages open from the dashboard's own navigation, in view
    # without opening a menu, and finish loading (tests/e2e/test_projects_and_graph.py walks
    # them).
    pages = page.get_by_role("navigation", name="Pages")
    for name, heading, panel in (("Projects", "Projects", "Your projects"),
                                 ("Concept graph", "Concept graph", "Graph")):
        await pages.get_by_role("link", name=name).click()
        await expect(page.get_by_role("heading", level=1)).to_have_text(heading)
        await expect(page.get_by_label(panel, exact=True)).not_to_contain_text("Loading")
        if name == "Concept graph":
            await alice.shot(screenshots, "14-graph-page")
        await page.go_back()
        await expect(page).to_have_url(re.compile(r"/dashboard$"))
    alice.assert_clean()

    # Another tenant sees none of it, in the UI or through the API.
    mallory = await open_tab(browser, live_server)
    await sign_up(mallory, name="Mallory", organisation="Other Corp",
                  email=new_email("mallory"))
    other = mallory.page
    await expect(other.locator(".chat-list")).to_contain_text("No conversations yet")
    await other.get_by_role("tab", name="Documents").click()
    await expect(other.locator(".library")).to_contain_text("No documents yet")
    await expect(other.locator(".doc-card")).to_have_count(0)
    await mallory.shot(screenshots, "15-other-tenant")
    denied = await other.request.get(f"/api/conversations/{conversation_id}/messages")
    assert denied.status == 404
    denied = await other.request.get(f"/api/documents/{by_title[AML_TITLE]}")
    assert denied.status == 404
    mallory.assert_clean()
    await mallory.context.close()
    await alice.context.close()
