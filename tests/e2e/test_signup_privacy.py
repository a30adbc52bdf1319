"""Issue 34 in the browser: the sign-up form does not reveal whether an e-mail has an account,
and it refuses a weak password saying why."""

from __future__ import annotations

import re

from playwright.async_api import Browser, expect

from tests.e2e.conftest import needs_chromium
from tests.e2e.helpers import new_email, open_tab, sign_up

pytestmark = needs_chromium


async def test_sign_up_form_keeps_accounts_private_and_refuses_weak_passwords(
        browser: Browser, live_server: str) -> None:
    owner = await open_tab(browser, live_server)
    email = new_email("sam")
    await sign_up(owner, name="Sam", organisation="Sam Co", email=email)  # ends signed in
    owner.assert_clean()
    await owner.context.close()

    tab = await open_tab(browser, live_server)
    page = tab.page
    await page.goto("/auth/signup")
    await page.get_by_label("Your name").fill("Mallory")
    await page.get_by_label("Organisation").fill("Other Corp")
    await page.get_by_label("E-mail").fill(email.upper())
    await page.get_by_label("Password").fill("a different, long passphrase")
    await page.get_by_role("button", name="Create account").click()
    # No "already exists": the sign-up's own explanation, and no way in with this password.
    alert = page.get_by_role("alert")
    await expect(alert).to_contain_text("If this e-mail was new")
    await expect(alert).not_to_contain_text("exists")
    await expect(page).to_have_url(re.compile(r"/auth/signup$"))

    await page.get_by_label("E-mail").fill(new_email("weak"))
    await page.get_by_label("Password").fill("password")
    await page.get_by_role("button", name="Create account").click()
    await expect(alert).to_contain_text("top-10 common password")
    await expect(page).to_have_url(re.compile(r"/auth/signup$"))
    tab.assert_clean()
    await tab.context.close()
