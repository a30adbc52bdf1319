"""``regintel ask``: one chat turn from the terminal, streamed as it is produced (or the full
response contract with ``--json``); ``regintel faq``: the tenant's FAQ entries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated
from uuid import UUID

import typer

from regintel.cli.app import JsonOption, TenantOption, app, load_settings, open_container, run
from regintel.domain.chat import Action, ChatRequest, ChatResponse, quoted
from regintel.errors import InvalidRequest, UserInputNeeded

NO_DOCUMENTS = ("You have no documents yet (tenant {tenant!r}): answers are grounded in your "
                "own regulations and policies.")
ADD_DOCUMENT = ("add one with `regintel ingest FILE --type regulation --title TITLE` (PDF, DOCX, "
                "HTML, Markdown or text; --type policy for your own policy), then ask again")
faq_app = typer.Typer(no_args_is_help=True, help="Tenant FAQ entries answered by triage.")
app.add_typer(faq_app, name="faq")


@app.command("ask")
def ask_cmd(
    question: Annotated[str, typer.Argument(help="The question (empty when only --answer).")] = "",
    thread: Annotated[UUID | None, typer.Option("--thread", help="Continue this thread.")] = None,
    doc: Annotated[list[UUID] | None, typer.Option(
        "--doc", help="Tag a document (repeatable, at most 5).")] = None,
    action: Annotated[Action | None, typer.Option(help="Force the action.")] = None,
    answer: Annotated[str | None, typer.Option(
        help="Answer the thread's pending question (an option id or label).")] = None,
    text_file: Annotated[Path | None, typer.Option(
        "--text", exists=True, dir_okay=False, help="Text to audit (pasted-text audit).")] = None,
    no_memory: Annotated[bool, typer.Option("--no-memory", help="Do not use or update "
                                            "the thread's memory.")] = False,
    tenant: TenantOption = "default",
    json_out: JsonOption = False,
) -> None:
    """Ask a question; the answer streams to the terminal with its citations."""
    settings = load_settings()
    source_text = text_file.read_text(encoding="utf-8") if text_file else None

    async def go() -> ChatResponse:
        async with open_container(settings) as container:
            tenant_id = await container.documents.ensure_tenant(tenant)
            # A new question with an empty library would only be told "limited information
            # was found": say what is missing and how to add it, as the browser does. A thread
            # or a pasted text carries what it needs.
            if not (thread or answer or source_text) and not await container.documents.list(
                    tenant_id):
                raise UserInputNeeded(NO_DOCUMENTS.format(tenant=tenant), hint=ADD_DOCUMENT)
            try:
                request = ChatRequest(
                    message=question, thread_id=thread, tagged_doc_ids=tuple(doc or ()),
                    action=action, answer=answer, use_memory=not no_memory,
                    source_text=source_text)
            except ValueError as exc:
                raise InvalidRequest(f"invalid request: {exc}") from exc
            chat = await container.chat()
            final: ChatResponse | None = None
            async for event in chat.stream(tenant_id, request):
                if event.kind == "text" and not json_out:
                    typer.echo(event.data, nl=False)
                elif event.kind == "status" and event.data.get("reset") and not json_out:
                    typer.echo("\n\n[answer restarted]\n")
                elif event.kind == "meta":
                    final = event.data
            if not json_out:
                typer.echo("")  # ends the answer's line before closing the stores logs
            assert final is not None
            return final

    response = run(go)
    if json_out:
        typer.echo(json.dumps(response.model_dump(mode="json"), indent=2))
        return
    typer.echo("")
    _print_footer(response)


def _print_footer(response: ChatResponse) -> None:
    for c in response.citations:
        # A PDF's page; in a document without pages the clause, heading and lines.
        where = ", ".join(x for x in (c.version, c.location) if x)
        typer.echo(f"[{c.n}] {c.title}" + (f" ({where})" if where else "") + f": {quoted(c.quote)}")
    if response.needs_input:
        for i, option in enumerate(response.needs_input.options, start=1):
            typer.echo(f"  {i}. {option.label}  (--answer {option.id})")
    tier = response.confidence.tier if response.confidence else "n/a"
    typer.secho(f"thread {response.thread_id} · action {response.action or '-'} · "
                f"confidence {tier} · engine {response.engine.value}", fg=typer.colors.BRIGHT_BLACK)


@faq_app.command("add")
def faq_add(question: Annotated[str, typer.Option(help="The question users ask.")],
            answer: Annotated[str, typer.Option(help="The tenant's answer.")],
            tenant: TenantOption = "default") -> None:
    """Add an FAQ entry: matching questions are answered with it directly."""
    settings = load_settings()

    async def go() -> str:
        async with open_container(settings) as container:
            tenant_id = await container.documents.ensure_tenant(tenant)
            return str((await container.faq.add(tenant_id, question, answer)).id)

    typer.echo(run(go))


@faq_app.command("list")
def faq_list(tenant: TenantOption = "default", json_out: JsonOption = False) -> None:
    settings = load_settings()

    async def go() -> list[dict[str, str]]:
        async with open_container(settings) as container:
            tenant_id = await container.documents.ensure_tenant(tenant)
            return [e.model_dump(mode="json") for e in await container.faq.entries(tenant_id)]

    entries = run(go)
    if json_out:
        typer.echo(json.dumps(entries, indent=2))
    for e in entries if not json_out else []:
        typer.echo(f"{e['id']}  {e['question']} → {e['answer']}")
