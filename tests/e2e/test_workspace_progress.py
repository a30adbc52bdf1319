"""A long document's progress in the library (issue 38): while it is embedded its card shows a
bar, the chunks done of its total and the time left, not "Processing…" alone."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.async_api import Browser, expect

from tests.e2e.conftest import needs_chromium
from tests.e2e.helpers import new_email, open_tab, sign_up

pytestmark = needs_chromium

TITLE = "Long Record Keeping Rulebook"
# Some 300 chunks: ten batches of the ingestion's 32, minutes on a loaded 2-core machine.
WAIT_MS = 600_000


def _rulebook() -> bytes:
    return "\n\n".join(
        f"Rule {i}. Record keeping {i}. A Relevant Person must keep the records of class {i} "
        f"for at least {i % 9 + 1} years and produce them to the Regulator on request within "
        f"{i % 5 + 2} business days. " * 4 for i in range(1, 300)).encode()


async def test_a_long_document_shows_its_progress_and_time_left(
        browser: Browser, live_server: str, screenshots: Path) -> None:
    tab = await open_tab(browser, live_server)
    page = tab.page
    await sign_up(tab, name="Pia Progress", organisation="Progress Bank",
                  email=new_email("pia"))
    await page.get_by_role("tab", name="Documents").click()
    await page.get_by_role("button", name="Upload a document").first.click()
    dialog = page.get_by_role("dialog", name="Upload a document")
    await dialog.get_by_label("File (PDF, DOCX, HTML, Markdown or text)").set_input_files(
        {"name": "rulebook.txt", "mimeType": "text/plain", "buffer": _rulebook()})
    await dialog.get_by_label("Title", exact=True).fill(TITLE)
    await dialog.get_by_label("Version / year").fill("2025")
    await dialog.get_by_label("Document type").select_option("regulation")
    await dialog.get_by_role("button", name="Upload").click()
    await expect(dialog).to_have_count(0)

    card = page.locator(".doc-card").filter(has_text=TITLE)
    progress = card.locator(".doc-progress-text")
    await expect(progress).to_have_text(
        re.compile(r"^\d+% · [\d,]+ of [\d,]+ chunks · (about \d+ (s|min)|under 10 s) left$"),
        timeout=WAIT_MS)
    assert int(await card.locator("progress").get_attribute("value") or 0) > 0
    await tab.shot(screenshots, "38-09-document-progress")
    await expect(card.locator(".status")).to_have_text("Ready", timeout=WAIT_MS)
    await expect(progress).to_have_count(0)
    tab.assert_clean()
    await tab.context.close()
