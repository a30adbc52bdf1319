"""Uploading a new version from the Documents tab: the action on a ready document's card asks
for the file, the label and the date it takes effect; once ready, its card says it is the
current version and the earlier one's that it is superseded."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Browser, expect

from tests.e2e.conftest import needs_chromium
from tests.e2e.helpers import READY_TIMEOUT_MS, new_email, open_tab, sign_up, upload

pytestmark = needs_chromium

TITLE = "Record Keeping Rules"
OLD = b"Rule 2.1 A firm must keep each record for five years.\n"
NEW = b"Rule 2.1 A firm must keep each record for six years.\n"


async def test_upload_a_new_version_from_the_library(browser: Browser, live_server: str,
                                                     screenshots: Path) -> None:
    tab = await open_tab(browser, live_server)
    page = tab.page
    await sign_up(tab, name="Vera Version", organisation="Version Bank",
                  email=new_email("vera"))
    await upload(tab, filename="records-2020.txt", data=OLD, mime="text/plain", title=TITLE,
                 version="2020", doc_type="regulation")
    await page.get_by_role("button", name=f"Upload a new version of {TITLE} (2020)").click()
    dialog = page.get_by_role("dialog", name="Upload a new version")
    await expect(dialog.get_by_label("Title", exact=True)).to_have_value(TITLE)
    await dialog.get_by_label("File (PDF, DOCX, HTML, Markdown or text)").set_input_files(
        {"name": "records-2024.txt", "mimeType": "text/plain", "buffer": NEW})
    await dialog.get_by_label("New version / year").fill("2024")
    await dialog.get_by_label("In force from (optional)").fill("2024-01-01")
    await tab.shot(screenshots, "48-01-new-version-dialog")
    await dialog.get_by_role("button", name="Upload").click()
    await expect(dialog).to_have_count(0)

    new = page.locator(".doc-card").filter(has_text=f"{TITLE} (2024)")
    await expect(new.locator(".status")).to_have_text("Ready", timeout=READY_TIMEOUT_MS)
    await expect(new.locator(".version-standing")).to_have_text("Current version")
    old = page.locator(".doc-card").filter(has_text=f"{TITLE} (2020)")
    await expect(old.locator(".version-standing")).to_have_text("Superseded")
    await tab.shot(screenshots, "48-02-versions-in-library")
    tab.assert_clean()
    await tab.context.close()
