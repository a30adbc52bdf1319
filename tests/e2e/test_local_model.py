"""The browser UI on the local model (``provider=local``): an inquiry streams the model's
tokens, its citations are shown, and the answer's badge names the model."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from regintel.adapters.embeddings.local import LocalEmbedder
from tests.chat.local_model.conftest import local_settings
from tests.e2e.conftest import e2e_settings, needs_chromium, serve
from tests.e2e.documents import AML_RULES, make_pdf
from tests.e2e.helpers import new_email, open_tab, sign_up, upload
from tests.e2e.test_journey import WATCH_STREAM, ask, mention

pytestmark = needs_chromium
TITLE = "ADGM AML Rules"
MODEL_ANSWER_TIMEOUT_MS = 300_000  # a CPU model under a loaded CI machine


@pytest.fixture(scope="module")
def local_server(data_dir: Path, e2e_db_url: str, embedder: LocalEmbedder,
                 local_model_path: Path) -> Iterator[str]:
    settings = e2e_settings(data_dir, e2e_db_url,
                            llm=local_settings(model=str(local_model_path)))
    yield from serve(settings, embedder)


async def test_an_inquiry_streams_the_local_models_answer_with_citations(
        browser: Browser, local_server: str, screenshots: Path) -> None:
    tab = await open_tab(browser, local_server)
    page = tab.page
    await sign_up(tab, name="Lola Local", organisation="Local Bank",
                  email=new_email("local"))
    await upload(tab, filename="aml.pdf", data=make_pdf(AML_RULES, TITLE),
                 mime="application/pdf", title=TITLE, version="2025",
                 doc_type="regulation")
    await page.get_by_role("tab", name="Chats").click()
    box = page.get_by_role("combobox", name=re.compile("^Message"))
    await box.click()
    await mention(page, "rules", TITLE)
    await page.evaluate(WATCH_STREAM)
    await ask(page, " How long must customer due diligence records be kept?")
    answer = page.locator(".msg.assistant").last
    await expect(answer).not_to_have_class(re.compile("streaming"),
                                           timeout=MODEL_ANSWER_TIMEOUT_MS)
    assert await page.evaluate("window.__streamed") is True
    badge = answer.locator(".badge.engine")
    await expect(badge).to_have_attribute("data-engine", "llm")
    await expect(badge).to_contain_text("qwen2.5-coder-0.5b-instruct-q4_k_m")
    await expect(answer.locator(".cite.doc").first).to_be_visible()
    await tab.shot(screenshots, "30-local-model-answer")
    tab.assert_clean()
