"""The project and concept-graph pages in a real browser: create a project with a goal, a risk
and a task through the UI, link them, and see the snapshot and coverage; open the concept
graph (seeded with the GDPR's definitions), search "personal data" and read its details; a
concept written through the graph write service while the page is open appears live. And an
audit finding in the chat becomes a task of a project with "Turn into task"."""

from __future__ import annotations

import re
import secrets
import string
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from regintel.adapters.graph.falkordb_store import FalkorGraphStore
from regintel.concepts.graph import GraphClient, GraphWriteService
from regintel.concepts.guard import build_ingress_guard
from regintel.concepts.resolver import CanonicalConceptResolver
from regintel.concepts.seed import SeedLoader
from regintel.domain.concepts import CONCEPT
from regintel.runtime.stores import EmbeddedEndpoints
from regintel.settings import GraphSettings
from tests.e2e.conftest import needs_chromium
from tests.e2e.documents import AML_RULES, POLICY, make_pdf
from tests.e2e.graphview import drawn_edges, drawn_nodes, node_ids, overlapping_labels
from tests.e2e.helpers import ANSWER_TIMEOUT_MS, Tab, new_email, open_tab, sign_up, upload
from tests.e2e.test_journey import AML_TITLE, POLICY_TITLE, ask, mention

pytestmark = needs_chromium

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
PERSONAL_DATA = "concept:DATA_PROTECTION:PERSONAL_DATA:EU"
LIVE_TIMEOUT_MS = 30_000
FITS = "() => document.documentElement.scrollWidth <= window.innerWidth + 1"
PROJECT_GRAPH = ".project-graph"
CONCEPT_GRAPH = ".graph-canvas"


@pytest.fixture
async def writer(embedded: EmbeddedEndpoints, live_server: str) -> AsyncIterator[
        GraphWriteService]:
    """The graph write service (ingress guard included) on the live server's graph, seeded
    with the GDPR's Article 4 definitions."""
    store, service = await _seeded(embedded, "gdpr")
    yield service
    await store.close()


async def _seeded(embedded: EmbeddedEndpoints,
                  seed: str) -> tuple[FalkorGraphStore, GraphWriteService]:
    """The live server's graph store and its write service, seeded with one of SHARED's seeds."""
    assert embedded.graph_socket is not None
    store = FalkorGraphStore(graph_name=GraphSettings().name,
                             unix_socket_path=str(embedded.graph_socket))
    service = GraphWriteService(store, build_ingress_guard(None))
    seeder = SeedLoader(service, CanonicalConceptResolver(GraphClient(store), service,
                                                          source="seed"))
    await seeder.seed(SHARED, only=(seed,))
    return store, service


async def test_project_page_and_live_concept_graph(browser: Browser, live_server: str,
                                                   writer: GraphWriteService,
                                                   screenshots: Path) -> None:
    tab = await open_tab(browser, live_server)
    try:
        await _walk(tab, writer, screenshots)
    finally:
        await tab.context.close()  # ends the page's event stream with it


async def _walk(tab: Tab, writer: GraphWriteService, screenshots: Path) -> None:
    page = tab.page
    await sign_up(tab, name="Priya", organisation="Falcon Bank", email=new_email("priya"))

    # -- a project with a goal, a risk and a task, created through the UI
    await page.get_by_role("navigation", name="Pages").get_by_role(
        "link", name="Projects").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Projects")
    await expect(page.locator(".project-list")).to_contain_text("No projects yet")
    await page.get_by_label("Project name").fill("AI Act readiness")
    await page.get_by_label("Description (optional)").fill(
        "Be ready for the AI Act obligations on the credit-scoring model.")
    await page.get_by_role("button", name="Create project").click()
    await expect(page).to_have_url(re.compile(r"/projects\?project=[0-9a-f-]{36}$"))
    await expect(page.get_by_role("heading", level=1)).to_have_text("AI Act readiness")
    project_url = page.url

    add = page.get_by_role("form", name="Add to the project")
    for kind, title, impact in (("Goal", "Pass the conformity assessment", None),
                                ("Risk", "High-risk system not registered", "high"),
                                ("Task", "Register the credit-scoring model", None)):
        await add.get_by_label("Kind").select_option(label=kind)
        await add.get_by_label("Title").fill(title)
        if impact:
            await add.get_by_label("Impact").select_option(impact)
        await add.get_by_role("button", name="Add").click()
        await expect(page.locator(".by-kind")).to_contain_text(title)

    link = page.get_by_role("form", name="Link two entities")
    await link.get_by_label("From").select_option(label="Task: Register the credit-scoring model")
    await link.get_by_label("To").select_option(label="Risk: High-risk system not registered")
    await expect(link.get_by_label("Relation")).to_have_value("mitigates")
    await link.get_by_role("button", name="Link").click()
    # Relations in words, not raw names ("—has_task→").
    await expect(page.locator(".link-list")).to_contain_text("mitigates")
    assert "—" not in (await page.locator(".link-list").text_content() or "")

    # The snapshot: the project and its three entities, drawn and listed by kind; the links
    # drawn with their relations in words.
    await expect(page.locator(PROJECT_GRAPH)).to_have_attribute("data-count", "4")
    await expect(page.locator(PROJECT_GRAPH)).to_have_attribute("data-layout", "done")
    drawn = {n["label"]: n for n in await drawn_nodes(page, PROJECT_GRAPH)}
    assert "kind-risk" in drawn["High-risk system not registered"]["classes"]
    edges = await drawn_edges(page, PROJECT_GRAPH)
    assert len(edges) == 4 and "mitigates" in {e["text"] for e in edges}
    assert not [e for e in edges if "_" in e["text"]], edges
    await expect(page.locator(".snapshot .legend")).to_contain_text("Risk")
    for kinds in ("goals", "risks", "tasks"):
        row = page.locator(f".coverage-table tr[data-kind='{kinds}'] td")
        await expect(row).to_have_text(["1", "1", "0"])
    # The chat context (long JSON) is folded away until asked for.
    await page.locator("section[aria-label='Chat context'] summary").click()
    await page.get_by_role("button", name="Preview the chat context").click()
    await expect(page.locator(".context-tokens")).to_contain_text("tokens")
    await expect(page.locator(".context-json")).to_contain_text("High-risk system not registered")
    # Every label shown whole, readable and inside the picture, never clipped at the edge.
    nodes = await drawn_nodes(page, PROJECT_GRAPH)
    assert all(n["painted"] and n["inside"] and n["px"] >= 10 for n in nodes), nodes
    await tab.shot(screenshots, "21-project-page", full_page=True)

    # A chat about the project starts from its page: the chat is scoped to it.
    await page.get_by_role("link", name="Ask about this project").click()
    await expect(page).to_have_url(re.compile(r"/dashboard\?project=[0-9a-f-]{36}$"))
    await expect(page.locator(".project-banner")).to_contain_text("AI Act readiness")
    box = page.get_by_role("combobox", name=re.compile("^Message"))
    await box.press_sequentially("Which high risks have no mitigation?")
    await box.press("Enter")
    await expect(page.locator(".msg.assistant").last).not_to_have_class(
        re.compile("streaming"), timeout=90_000)
    # Entities by their titles, without their "[project:<uuid>]" reference markers.
    await expect(page.locator(".msg.assistant").last).to_contain_text("AI Act readiness")
    await expect(page.locator(".msg.assistant").last).not_to_contain_text("[project:")
    await tab.shot(screenshots, "38-11-project-chat")
    chats = (await (await page.request.get("/api/conversations")).json())["data"]
    assert chats[0]["project_id"] == project_url.rsplit("=", 1)[1]
    await page.goto(project_url)
    await expect(page.locator(".coverage-table")).to_be_visible()
    await page.get_by_role("link", name="← All projects").click()
    await expect(page.locator(".project-card")).to_contain_text("AI Act readiness")
    await tab.shot(screenshots, "22-projects-list")

    # -- the concept graph: search, details, live updates
    await page.get_by_role("link", name="Concept graph").first.click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Concept graph")
    await expect(page.locator(".live-dot")).to_have_text("Live", timeout=LIVE_TIMEOUT_MS)
    await expect(page.locator(CONCEPT_GRAPH)).to_have_attribute("data-layout", "done")
    assert PERSONAL_DATA in await node_ids(page, CONCEPT_GRAPH)
    await expect(page.locator(".graph-legend")).to_contain_text("Data protection")
    await tab.shot(screenshots, "38-24-graph-overview", full_page=True)
    overview = await drawn_nodes(page, CONCEPT_GRAPH)
    assert [n for n in overview if n["painted"]] and not overlapping_labels(overview), \
        overlapping_labels(overview)
    await page.get_by_label("Search concepts").fill("personal data")
    await page.get_by_label("Search concepts").press("Enter")
    details = page.get_by_role("region", name="Node details")
    await expect(details.get_by_role("heading", level=2)).to_have_text("personal data")
    await expect(details.locator(".definition")).to_contain_text("identified or identifiable")
    # Relations read as words, not raw names ("DEFINED_IN").
    await expect(details.locator(".neighbour-list")).to_contain_text("defined in")
    await expect(details.locator(".neighbour-list")).not_to_contain_text("DEFINED_IN")
    await expect(details.locator(".sources-list a").first).to_have_attribute(
        "href", re.compile(r"^https://"))
    await expect(page.locator(CONCEPT_GRAPH)).to_have_attribute("data-focus", PERSONAL_DATA)
    focused = await drawn_nodes(page, CONCEPT_GRAPH)
    assert all(n["painted"] and n["inside"] for n in focused), focused
    await tab.shot(screenshots, "23-graph-search", full_page=True)

    # A concept written (and related to personal data) while the page is open appears.
    word = "".join(secrets.choice(string.ascii_uppercase) for _ in range(8))
    key = f"concept:DATA_PROTECTION:PSEUDONYMISED_PROFILE_{word}:EU"
    label = f"pseudonymised profile {word.lower()}"
    await writer.upsert_node(CONCEPT, key, {
        "prefLabel": label, "domain": "DATA_PROTECTION", "kind": key.split(":")[2],
        "jurisdiction": "EU", "definition": "A profile kept under a pseudonym."},
        extra_labels=("DataProtectionConcept",))
    await writer.link(CONCEPT, key, "RELATED", CONCEPT, PERSONAL_DATA)
    await expect(page.locator(".graph-log")).to_contain_text(label, timeout=LIVE_TIMEOUT_MS)
    fresh = page.locator(f".graph-node-list button[data-id='{key}']")
    await expect(fresh).to_have_count(1, timeout=LIVE_TIMEOUT_MS)
    assert "fresh" in {n["id"]: n for n in await drawn_nodes(page, CONCEPT_GRAPH)}[key]["classes"]
    await tab.shot(screenshots, "24-graph-live-update", full_page=True)
    await page.locator(".graph-list summary").click()
    await fresh.click()
    await expect(details.get_by_role("heading", level=2)).to_have_text(label)
    await expect(details.locator(".neighbour-list")).to_contain_text("personal data")

    # Removed through the write service: gone from the page too.
    assert await writer.delete_node(CONCEPT, key)
    await expect(fresh).to_have_count(0, timeout=LIVE_TIMEOUT_MS)

    # Both pages stay readable on a narrow screen: one column, nothing wider than the screen.
    await page.set_viewport_size({"width": 390, "height": 844})
    await expect(page.locator(".graph-canvas")).to_be_visible()
    assert await page.evaluate(FITS)
    # The picture is laid out again for the narrow screen: every label whole and inside.
    await expect(page.locator(CONCEPT_GRAPH)).to_have_attribute("data-layout", "done")
    await page.wait_for_function(
        "(s) => document.querySelector(s).cy.width() < 400", arg=CONCEPT_GRAPH)
    await page.wait_for_timeout(300)  # the new layout runs in the next animation frame
    narrow = await drawn_nodes(page, CONCEPT_GRAPH)
    assert all(n["painted"] and n["inside"] for n in narrow), \
        [n["label"] for n in narrow if not (n["painted"] and n["inside"])]
    await tab.shot(screenshots, "25-narrow-graph")
    await page.goto(project_url)
    await expect(page.locator(".coverage-table")).to_be_visible()
    assert await page.evaluate(FITS)
    await tab.shot(screenshots, "26-narrow-project")
    tab.assert_clean()


async def test_two_concepts_of_one_label_are_told_apart_in_the_search(
        browser: Browser, live_server: str, writer: GraphWriteService,
        screenshots: Path) -> None:
    """Two laws defining the same term (issue 38: "personal data" showed two identical chips):
    one chip each, saying the domain that tells them apart."""
    word = "".join(secrets.choice(string.ascii_uppercase) for _ in range(8))
    label = f"retention record {word.lower()}"
    keys = [f"concept:{domain}:RETENTION_RECORD_{word}:EU" for domain in ("AML", "DATA_PROTECTION")]
    for key, domain in zip(keys, ("AML", "DATA_PROTECTION"), strict=True):
        await writer.upsert_node(CONCEPT, key, {
            "prefLabel": label, "domain": domain, "kind": key.split(":")[2],
            "jurisdiction": "EU", "definition": f"A record kept under the {domain} rules."})
    tab = await open_tab(browser, live_server)
    try:
        await sign_up(tab, name="Tomas", organisation="Twin Bank", email=new_email("tomas"))
        page = tab.page
        await page.goto("/graph")
        await page.get_by_label("Search concepts").fill(label)
        await page.get_by_label("Search concepts").press("Enter")
        chips = page.locator(".chip-btn").filter(has_text=label)
        await expect(chips).to_have_count(2)
        texts = sorted(t.strip() for t in await chips.all_inner_texts())
        assert texts == [f"concept {label} · AML · EU",
                         f"concept {label} · Data protection · EU"], texts
        await tab.shot(screenshots, "38-10-graph-twin-chips")
        tab.assert_clean()
    finally:
        for key in keys:
            await writer.delete_node(CONCEPT, key)
        await tab.context.close()


async def test_a_busy_project_page_stays_short_and_readable(
        browser: Browser, live_server: str, screenshots: Path) -> None:
    """Issue 38: a project's page was 5,244 px tall, its graph labels clipped at the left
    ('GM Anti-Money Laundering…') and its relations raw ('—has_task→'). A project of 24
    entities and their links: the page fits in about two screens, each label of the picture is
    whole, readable and inside it, and the links read as words."""
    tab = await open_tab(browser, live_server)
    try:
        page = tab.page
        await sign_up(tab, name="Amal", organisation="Gulf Bank", email=new_email("amal"))
        headers = {"X-CSRF-Token": await _csrf(tab)}
        created = await page.request.post("/api/projects", headers=headers, data={
            "name": "GM Anti-Money Laundering and Sanctions programme 2026"})
        assert created.status == 201, await created.text()
        project_id = (await created.json())["id"]
        base = f"/api/projects/{project_id}"
        ids: dict[str, list[str]] = {}
        for kind, field, titles in (
                ("goal", "name", ["Pass the FSRA thematic review of AML controls",
                                  "Keep the sanctions screening false-positive rate low",
                                  "Train every customer-facing employee"]),
                ("risk", "title", [f"GM Anti-Money Laundering gap {i}" for i in range(6)]),
                ("task", "title", [f"Update the customer due diligence procedure part {i}"
                                   for i in range(9)]),
                ("requirement", "text", [f"Record keeping requirement {i}" for i in range(6)])):
            for title in titles:
                made = await page.request.post(f"{base}/entities/{kind}", headers=headers,
                                               data={"fields": {field: title}})
                assert made.status == 201, await made.text()
                ids.setdefault(kind, []).append((await made.json())["id"])
        for i, task in enumerate(ids["task"]):
            linked = await page.request.post(f"{base}/links", headers=headers, data={
                "src_id": task, "rel": "mitigates", "dst_id": ids["risk"][i % 6]})
            assert linked.status == 201, await linked.text()

        await page.goto(f"/projects?project={project_id}")
        graph = page.locator(PROJECT_GRAPH)
        await expect(graph).to_have_attribute("data-count", "25")
        await expect(graph).to_have_attribute("data-layout", "done")
        height = await page.evaluate("document.documentElement.scrollHeight")
        assert height <= 2200, f"the project page is {height} px tall"
        nodes = await drawn_nodes(page, PROJECT_GRAPH)
        assert all(n["painted"] and n["inside"] and n["px"] >= 10 for n in nodes), \
            [n for n in nodes if not (n["painted"] and n["inside"] and n["px"] >= 10)]
        assert not overlapping_labels(nodes), overlapping_labels(nodes)
        assert "GM Anti-Money Laundering and Sanctions programme 2026" in {
            n["label"] for n in nodes}
        edges = await drawn_edges(page, PROJECT_GRAPH)
        assert {e["text"] for e in edges} >= {"mitigates", "has task", "has risk"}, edges
        await tab.shot(screenshots, "38-23-busy-project-page", full_page=True)
        tab.assert_clean()
    finally:
        await tab.context.close()


async def test_an_audit_finding_turned_into_a_task(browser: Browser, live_server: str,
                                                   screenshots: Path) -> None:
    """In the chat's audit view, "Turn into task" files a finding as a task of a project,
    linked to the regulation it cites; the project page then shows it."""
    tab = await open_tab(browser, live_server)
    try:
        page = tab.page
        await sign_up(tab, name="Omar", organisation="Falcon Bank", email=new_email("omar"))
        created = await page.request.post("/api/projects", data={"name": "AML programme 2026"},
                                          headers={"X-CSRF-Token": await _csrf(tab)})
        assert created.status == 201, await created.text()
        project_id = (await created.json())["id"]
        await upload(tab, filename="adgm-aml.pdf", data=make_pdf(AML_RULES, AML_TITLE),
                     mime="application/pdf", title=AML_TITLE, version="2025",
                     doc_type="regulation")
        await upload(tab, filename="falcon-aml.pdf", data=make_pdf(POLICY, POLICY_TITLE),
                     mime="application/pdf", title=POLICY_TITLE, version="v3",
                     doc_type="policy")
        await page.get_by_role("tab", name="Chats").click()
        box = page.get_by_role("combobox", name=re.compile("^Message"))
        await box.click()
        await box.press_sequentially("Audit ")
        await mention(page, "falcon", POLICY_TITLE)
        await box.press_sequentially(" against ")
        await mention(page, "rules", AML_TITLE)
        await ask(page, "")
        audit = page.locator(".audit").last
        prompt = page.locator(".prompt.confirm_docs")
        await expect(audit.or_(prompt)).to_be_visible(timeout=ANSWER_TIMEOUT_MS)
        if await prompt.is_visible():
            await prompt.get_by_role("button", name=f"Use {AML_TITLE}").click()
        await expect(audit).to_be_visible(timeout=ANSWER_TIMEOUT_MS)
        finding = audit.locator(".finding").first
        await finding.get_by_role("button", name="Turn into task").click()
        form = finding.get_by_role("form", name="Turn the finding into work")
        await form.get_by_label("Project").select_option(label="AML programme 2026")
        await form.get_by_label("Create as").select_option("task")
        await form.get_by_role("button", name="Create").click()
        done = finding.locator(".finding-work-done")
        await expect(done).to_have_text("✓ Task created in AML programme 2026")
        await finding.scroll_into_view_if_needed()
        await tab.shot(screenshots, "27-finding-turned-into-task")

        await done.get_by_role("link", name="AML programme 2026").click()
        await expect(page).to_have_url(re.compile(rf"/projects\?project={project_id}$"))
        tasks = page.locator(".kind-group[data-kind='task']")
        await expect(tasks).to_contain_text("Fix ")
        await expect(page.locator(".kind-group[data-kind='document']")).to_contain_text(
            AML_TITLE)
        await expect(page.locator(".link-list")).to_contain_text("references")
        tab.assert_clean()
    finally:
        await tab.context.close()


async def _csrf(tab: Tab) -> str:
    cookies = await tab.context.cookies()
    return next(c["value"] for c in cookies if c["name"] == "regintel_csrf")


@pytest.fixture
async def aml_glossary(embedded: EmbeddedEndpoints, live_server: str) -> AsyncIterator[None]:
    """The live server's graph seeded as the demo seeds it for its AML corpus: the ADGM AML
    rulebook's glossary."""
    store, _ = await _seeded(embedded, "adgm-aml")
    yield
    await store.close()


async def test_the_aml_demo_graph_answers_money_laundering(
        browser: Browser, live_server: str, aml_glossary: None, screenshots: Path) -> None:
    """Issue 38: the demo is about AML, yet its graph held only GDPR and AI Act concepts:
    "money laundering" found nothing and the AML rulebook had no neighbours. Searched in the
    browser, the rulebook glossary's terms are found, defined, and linked to the glossary."""
    tab = await open_tab(browser, live_server)
    try:
        # A long name, as the demo's "Demo Compliance Officer": at 390 px its pill in the
        # navigation bar pushed the page 54 px sideways.
        await sign_up(tab, name="Layla Al-Mansouri, Compliance Officer", organisation="Dhow Bank",
                      email=new_email("layla"))
        page = tab.page
        await page.goto("/graph")
        await page.get_by_label("Search concepts").fill("money laundering")
        await page.get_by_label("Search concepts").press("Enter")
        await expect(page.get_by_text("Nothing in the graph matches")).to_have_count(0)
        chip = page.locator(".chip-btn").filter(
            has_text=re.compile(r"Money Laundering Reporting Officer", re.I)).first
        await chip.click()
        details = page.get_by_role("region", name="Node details")
        await expect(details.get_by_role("heading", level=2)).to_contain_text(
            re.compile("Money Laundering Reporting Officer", re.I))
        await expect(details.locator(".definition")).to_contain_text("Controlled Function")
        neighbours = details.locator(".neighbour-list")
        await expect(neighbours).to_contain_text("defined in")
        await expect(neighbours).to_contain_text(re.compile("Glossary", re.I))
        await expect(page.locator(CONCEPT_GRAPH)).to_have_attribute(
            "data-focus", re.compile(r"MONEY_LAUNDERING_REPORTING_OFFICER"))
        await tab.shot(screenshots, "38-25-graph-money-laundering", full_page=True)
        await page.set_viewport_size({"width": 390, "height": 844})
        for path in ("/graph", "/projects"):
            await page.goto(path)
            await expect(page.get_by_role("heading", level=1)).to_be_visible()
            assert await page.evaluate(FITS), (path, await page.evaluate(
                "document.documentElement.scrollWidth"))
        await tab.shot(screenshots, "38-26-projects-long-name-390", full_page=True)
        tab.assert_clean()
    finally:
        await tab.context.close()
