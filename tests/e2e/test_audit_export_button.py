"""The audit view's export links download the report of the thread's audit: the Excel file
opens with its three sheets and the Word file with its sections."""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path

from docx import Document
from openpyxl import load_workbook
from playwright.async_api import Browser, expect

from tests.e2e.conftest import needs_chromium
from tests.e2e.documents import AML_RULES, make_pdf
from tests.e2e.helpers import ANSWER_TIMEOUT_MS, new_email, open_tab, sign_up, upload

pytestmark = needs_chromium

TITLE = "Export AML Rules"
EMAIL = ("Hi team, to win the new client quickly we will not screen him against any "
         "sanctions lists, and he can send his ID documents next month.")


async def _read(path: Path) -> bytes:
    return await asyncio.to_thread(path.read_bytes)


async def test_the_audit_view_exports_excel_and_word(browser: Browser, live_server: str,
                                                      screenshots: Path) -> None:
    tab = await open_tab(browser, live_server)
    page = tab.page
    await sign_up(tab, name="Erin Export", organisation="Export Bank",
                  email=new_email("erin"))
    await upload(tab, filename="aml.pdf", data=make_pdf(AML_RULES, TITLE),
                 mime="application/pdf", title=TITLE, version="2025", doc_type="regulation")
    await page.get_by_role("tab", name="Chats").click()
    box = page.get_by_role("combobox", name=re.compile("^Message"))
    await box.press_sequentially("@export")
    await expect(page.get_by_role("option").filter(has_text=TITLE)).to_have_count(1)
    await box.press("Enter")
    await box.press_sequentially(f" Check this email against the rules: {EMAIL}")
    await box.press("Enter")
    answer = page.locator(".msg.assistant").last
    await expect(answer).not_to_have_class(re.compile("streaming"), timeout=ANSWER_TIMEOUT_MS)
    exports = answer.get_by_role("group", name="Export the audit report")
    await expect(exports).to_be_visible()
    await exports.scroll_into_view_if_needed()
    await tab.shot(screenshots, "36-audit-export-links")

    async with page.expect_download() as started:
        await exports.get_by_role("link", name="Excel").click()
    download = await started.value
    assert download.suggested_filename.endswith(".xlsx")
    book = load_workbook(io.BytesIO(await _read(await download.path())))
    assert book.sheetnames == ["Summary", "Findings", "Matrix"]
    findings = await answer.locator(".finding").count()
    assert book["Findings"].max_row - 1 == findings

    async with page.expect_download() as started:
        await exports.get_by_role("link", name="Word").click()
    document = Document(io.BytesIO(await _read(await (await started.value).path())))
    headings = {p.text for p in document.paragraphs}
    assert {"Summary", "Findings by severity", "Full matrix"} <= headings
    tab.assert_clean()
    await tab.context.close()
