"""Issue 35 in a real browser: a Markdown regulation uploaded through the UI is cited by its
clause, section and lines in the citation tooltip and the Sources panel, never by "page 1";
the lines shown really hold the quote in the uploaded file."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from playwright.async_api import Browser, expect

from regintel.retrieval.evidence import normalise
from tests.contract.parsers.test_headings import gdpr_markdown
from tests.e2e.conftest import needs_chromium
from tests.e2e.helpers import new_email, open_tab, sign_up, upload
from tests.e2e.test_journey import ask, last_answer_done, mention

pytestmark = needs_chromium

TITLE = "GDPR Chapters I-III"
# The screenshot the issue asks for, beside the suite's own.
SCREENSHOT = Path(tempfile.gettempdir()) / "e2e-citation.png"
# "§ Article 17 Right to erasure (…) · lines 301–303", or "· line 301".
PLACE = re.compile(r"§ (?P<named>.+?) · lines? (?P<start>\d+)(?:–(?P<end>\d+))?$")


async def test_text_document_cited_by_section_and_lines(browser: Browser, live_server: str,
                                                        screenshots: Path) -> None:
    markdown = gdpr_markdown()
    tab = await open_tab(browser, live_server, width=1400, height=900)
    page = tab.page
    await sign_up(tab, name="Dana Privacy", organisation="Falcon Test Bank",
                  email=new_email("dana"))
    await upload(tab, filename="gdpr.md", data=markdown.encode(), mime="text/markdown",
                 title=TITLE, version="2016/679", doc_type="regulation")

    await page.get_by_role("tab", name="Chats").click()
    await mention(page, "gdpr", TITLE)
    await ask(page, " When must the controller erase personal data without undue delay?")
    await last_answer_done(page)
    answer = page.locator(".msg.assistant").last
    cite = answer.locator(".cite.doc").first
    await expect(cite).to_be_visible()

    # The hover: the clause and heading, the lines, and the whole section path; no page.
    await cite.hover()
    tooltip = page.get_by_role("tooltip")
    meta = tooltip.locator(".tip-meta")
    await expect(meta).to_contain_text("§ Article ")
    await expect(meta).to_contain_text(re.compile(r"lines? \d+"))
    await expect(meta).to_contain_text("Regulation (EU) 2016/679 (GDPR) › Chapter ")
    await expect(meta).not_to_contain_text("page")

    # The Sources panel: the same place, for the quote it shows.
    await cite.click()
    source = page.get_by_role("complementary", name="Sources").locator(".source.active")
    await expect(source.locator(".source-meta")).to_contain_text("§ Article ")
    shown = (await source.locator(".source-meta").text_content()) or ""
    assert "page" not in shown, shown
    found = PLACE.search(shown)
    assert found is not None, shown
    quote = ((await source.locator("blockquote.active").text_content()) or "").strip()
    quote = quote.strip('"“”').removesuffix("…")
    start = int(found["start"])
    end = int(found["end"] or start)
    held = "\n".join(markdown.split("\n")[start - 1:end])
    assert normalise(quote) in normalise(held), (shown, quote, held)
    # The named heading is the one above those lines in the file.
    heading = next(line for line in reversed(markdown.split("\n")[:start])
                   if line.startswith("### "))
    assert found["named"] == heading.removeprefix("### "), (found["named"], heading)

    await page.mouse.move(0, 0)
    await source.scroll_into_view_if_needed()
    await page.screenshot(path=str(SCREENSHOT))
    await tab.shot(screenshots, "12-text-citation-sources")
    tab.assert_clean()
