"""The chat header's engine selector (issue 37) on a deployment with a model endpoint (the
scripted stub model server): it offers the offline engine and the model, a conversation's
answers come from the engine it shows, a switch is saved on the conversation, and each
answer's badge names the engine and model that wrote it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from playwright.async_api import Browser, expect
from pydantic import SecretStr

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.bench.llm_stub import StubServer
from regintel.settings import LlmModel, LlmSettings
from tests.e2e.conftest import e2e_settings, needs_chromium, serve
from tests.e2e.documents import AML_RULES, make_pdf
from tests.e2e.helpers import new_email, open_tab, sign_up, upload
from tests.e2e.test_journey import ask, last_answer_done, mention

pytestmark = needs_chromium
TITLE = "ADGM AML Rules"
QUESTION = " How long must customer due diligence records be kept?"


@pytest.fixture(scope="module")
def cloud_server(data_dir: Path, e2e_db_url: str, embedder: LocalEmbedder) -> Iterator[str]:
    with StubServer() as stub:
        llm = LlmSettings(base_url=stub.base_url, api_key=SecretStr("sk-test"), timeout_s=10.0,
                          models={"small": LlmModel(name="stub-small"),
                                  "large": LlmModel(name="stub-large")})
        yield from serve(e2e_settings(data_dir, e2e_db_url, llm=llm), embedder)


async def test_switching_the_engine_changes_who_answers(
        browser: Browser, cloud_server: str, screenshots: Path) -> None:
    tab = await open_tab(browser, cloud_server)
    page = tab.page
    await sign_up(tab, name="Sam Switch", organisation="Switch Bank",
                  email=new_email("engines"))
    await upload(tab, filename="aml.pdf", data=make_pdf(AML_RULES, TITLE),
                 mime="application/pdf", title=TITLE, version="2025", doc_type="regulation")
    await page.get_by_role("tab", name="Chats").click()

    selector = page.get_by_role("combobox", name="Engine", exact=True)
    await expect(selector).to_be_visible()
    await expect(selector.locator("option")).to_have_text(
        ["Offline engine", "Cloud model · stub-small"])
    await expect(selector).to_have_value("cloud")  # the deployment's default

    box = page.get_by_role("combobox", name=re.compile("^Message"))
    await box.click()
    await mention(page, "rules", TITLE)
    await ask(page, QUESTION)
    await last_answer_done(page)
    badge = page.locator(".msg.assistant").last.locator(".badge.engine")
    await expect(badge).to_have_attribute("data-engine", re.compile(r"^llm"))
    await expect(badge).to_contain_text("stub-small")

    async with page.expect_response(lambda r: r.request.method == "PATCH"
                                    and "/api/conversations/" in r.url) as saved:
        await selector.select_option("offline")
    assert (await (await saved.value).json())["engine"] == "offline"
    await box.click()
    await mention(page, "rules", TITLE)
    await ask(page, QUESTION)
    await last_answer_done(page)
    badge = page.locator(".msg.assistant").last.locator(".badge.engine")
    await expect(badge).to_have_attribute("data-engine", "offline")
    await expect(badge).to_have_text("Offline engine")
    await expect(page.locator(".msg.assistant").first.locator(".badge.engine")).to_contain_text(
        "stub-small")  # the first answer keeps naming the model that wrote it
    await tab.shot(screenshots, "31-engine-selector")
    await page.locator(".chat-head").screenshot(
        path=str(screenshots / "31-engine-selector-header.png"))

    # The choice is the conversation's: a new chat shows it, reopening the first one too.
    await page.get_by_role("button", name="New chat").click()
    await expect(selector).to_have_value("offline")
    await selector.select_option("cloud")
    await page.locator(".chat-open").first.click()
    await expect(selector).to_have_value("offline")

    # On a phone the header still holds the title, the selector and the Sources button.
    await page.set_viewport_size({"width": 390, "height": 800})
    collapse = page.get_by_role("button", name="Collapse the sources panel")
    if await collapse.is_visible():
        await collapse.click()
    header = page.locator(".chat-head")
    assert await header.evaluate("h => h.scrollWidth <= h.clientWidth")
    await expect(selector).to_be_visible()
    await header.screenshot(path=str(screenshots / "31-engine-selector-narrow.png"))
    tab.assert_clean()


async def test_an_old_offline_chat_shows_offline_under_a_model_default(
        browser: Browser, cloud_server: str, e2e_db_url: str, screenshots: Path) -> None:
    """A conversation that keeps no engine of its own (one started before engines could be
    chosen) and was answered offline shows "Offline engine", not the deployment's default."""
    tab = await open_tab(browser, cloud_server)
    page = tab.page
    await sign_up(tab, name="Olga Old", organisation="Old Chats Bank",
                  email=new_email("oldchat"))
    await upload(tab, filename="aml.pdf", data=make_pdf(AML_RULES, TITLE),
                 mime="application/pdf", title=TITLE, version="2025", doc_type="regulation")
    await page.get_by_role("tab", name="Chats").click()
    selector = page.get_by_role("combobox", name="Engine", exact=True)
    await selector.select_option("offline")
    box = page.get_by_role("combobox", name=re.compile("^Message"))
    await box.click()
    await mention(page, "rules", TITLE)
    await ask(page, QUESTION)
    await last_answer_done(page)
    conversations = await page.evaluate(
        "async () => (await (await fetch('/api/conversations')).json()).data")
    [conversation] = conversations
    async with await psycopg.AsyncConnection.connect(e2e_db_url) as connection:
        await connection.execute("UPDATE conversations SET engine = NULL WHERE id = %s",
                                 (conversation["id"],))
    await page.reload()
    await page.get_by_role("tab", name="Chats").click()
    await page.locator(".chat-open").first.click()
    await expect(page.locator(".msg.assistant").last.locator(".badge.engine")).to_have_attribute(
        "data-engine", "offline")
    await expect(selector).to_have_value("offline")  # the default is the cloud model
    tab.assert_clean()
