"""Steps the browser tests share: a page that records what would go wrong, signing up through
the UI, uploading through the upload dialog."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from playwright.async_api import Browser, BrowserContext, ConsoleMessage, Dialog, Page, expect

PASSWORD = "correct horse battery staple"
READY_TIMEOUT_MS = 120_000
ANSWER_TIMEOUT_MS = 90_000


@dataclass
class Tab:
    """A browser context and its page, with the dialogs and script errors it has seen."""

    context: BrowserContext
    page: Page
    dialogs: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    async def shot(self, directory: Path, name: str, *, full_page: bool = False) -> None:
        await self.page.screenshot(path=str(directory / f"{name}.png"), full_page=full_page)

    def assert_clean(self) -> None:
        assert not self.dialogs, f"unexpected dialogs: {self.dialogs}"
        assert not self.errors, f"script or CSP errors: {self.errors}"


async def open_tab(browser: Browser, base_url: str, *, width: int = 1280,
                   height: int = 800) -> Tab:
    context = await browser.new_context(base_url=base_url,
                                        viewport={"width": width, "height": height})
    context.set_default_timeout(30_000)
    page = await context.new_page()
    tab = Tab(context, page)

    async def on_dialog(dialog: Dialog) -> None:
        tab.dialogs.append(f"{dialog.type}: {dialog.message}")
        await dialog.dismiss()

    def on_console(message: ConsoleMessage) -> None:
        # Expected 401/404 answers are logged by Chromium as failed resources; anything else
        # at error level (a script error, a CSP violation) is a failure.
        if message.type == "error" and "Failed to load resource" not in message.text:
            tab.errors.append(message.text)

    page.on("dialog", on_dialog)
    page.on("console", on_console)
    page.on("pageerror", lambda error: tab.errors.append(str(error)))
    return tab


def new_email(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}@example.test"


async def sign_up(tab: Tab, *, name: str, organisation: str, email: str,
                  shots: Path | None = None) -> None:
    """Sign up through the form, then complete onboarding; ends on the dashboard."""
    page = tab.page
    await page.goto("/auth/signup")
    await page.get_by_label("Your name").fill(name)
    await page.get_by_label("Organisation").fill(organisation)
    await page.get_by_label("E-mail").fill(email)
    await page.get_by_label("Password").fill(PASSWORD)
    if shots:
        await tab.shot(shots, "02-signup")
    await page.get_by_role("button", name="Create account").click()
    # The dashboard is gated: a new account lands on onboarding.
    await expect(page).to_have_url(re.compile(r"/onboarding$"))
    await expect(page.get_by_label("Company name")).to_have_value(organisation)
    # The card is in the middle of the page (it sat 127 px left of centre at 1280 px).
    box = await page.locator(".onboarding-form").bounding_box()
    width = await page.evaluate("document.documentElement.clientWidth")
    assert box and abs(box["x"] + box["width"] / 2 - width / 2) <= 2, (box, width)
    await page.get_by_label("Country").fill("United Arab Emirates")
    await page.get_by_label("Industry").fill("Banking")
    await page.get_by_label("Description (optional)").fill(
        "A retail bank licensed by the FSRA in Abu Dhabi Global Market.")
    if shots:
        await tab.shot(shots, "03-onboarding")
    await page.get_by_role("button", name="Continue to dashboard").click()
    await expect(page).to_have_url(re.compile(r"/dashboard$"))
    await expect(page.get_by_role("tab", name="Chats")).to_have_attribute(
        "aria-selected", "true")


async def upload(tab: Tab, *, filename: str, data: bytes, mime: str, title: str,
                 version: str, doc_type: str, set_name: str = "",
                 shots: Path | None = None) -> None:
    """Upload through the Documents tab's + dialog and wait until the card says Ready."""
    page = tab.page
    await page.get_by_role("tab", name="Documents").click()
    await page.get_by_role("button", name="Upload a document").first.click()
    dialog = page.get_by_role("dialog", name="Upload a document")
    await expect(dialog).to_be_visible()
    await dialog.get_by_label("File (PDF, DOCX, HTML, Markdown or text)").set_input_files(
        {"name": filename, "mimeType": mime, "buffer": data})
    await dialog.get_by_label("Title", exact=True).fill(title)
    await dialog.get_by_label("Version / year").fill(version)
    await dialog.get_by_label("Document type").select_option(doc_type)
    if set_name:
        await dialog.get_by_label("Set (optional)").fill(set_name)
    if shots:
        await tab.shot(shots, "05-upload-dialog")
    await dialog.get_by_role("button", name="Upload").click()
    await expect(dialog).to_have_count(0)
    card = page.locator(".doc-card").filter(has_text=title)
    await expect(card.locator(".status")).to_have_text("Ready", timeout=READY_TIMEOUT_MS)


async def csrf_token(tab: Tab) -> str:
    """The CSRF token the app set for this browser (for API calls made from a test)."""
    cookies = await tab.context.cookies()
    return next(c["value"] for c in cookies if c["name"] == "regintel_csrf")
