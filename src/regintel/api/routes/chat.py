"""Chat turns streamed as Server-Sent Events; the same route resumes a pending question."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from regintel.api.deps import ChatDep, ContainerDep, PrincipalDep, SettingsDep, chat_quota
from regintel.api.routes.conversations import owned
from regintel.api.schemas.conversations import ChatCreate, EnginePublic, EnginesPublic
from regintel.api.sse import SSE_RESPONSE, ChatStream, EventStreamResponse
from regintel.domain.chat import ChatRequest
from regintel.errors import NotFound

router = APIRouter(prefix="/api", tags=["chat"])


@router.get("/chat/engines", response_model=EnginesPublic, operation_id="list_chat_engines",
            responses={401: {"description": "Not signed in"}})
async def list_chat_engines(_: PrincipalDep, container: ContainerDep) -> EnginesPublic:
    """The engines a conversation may choose here (`engine` of a conversation): the offline
    engine always, the local model when one is installed, the configured model endpoint
    when there is one; each named with the model of its answers."""
    data = [EnginePublic.model_validate(e.model_dump()) for e in container.engines()]
    return EnginesPublic(data=data, count=len(data))


@router.post("/chat", operation_id="chat", response_class=EventStreamResponse,
             dependencies=[Depends(chat_quota)],
             responses={**SSE_RESPONSE,
                        400: {"description": "Empty or too long question, too many tags, a "
                              "tagged document not ready, nothing to resume"},
                        401: {"description": "Not signed in"},
                        404: {"description": "Unknown thread, document or set"},
                        429: {"description": "Too many chat turns"}})
async def chat(body: ChatCreate, principal: PrincipalDep, container: ContainerDep,
               service: ChatDep, settings: SettingsDep) -> EventStreamResponse:
    """Ask a question (or answer the pending one with `resume`). Errors found before the
    first event (bad ids, empty question) are ordinary problem responses."""
    tenant_id = principal.tenant_id
    if body.thread_id is not None:
        # Another user's thread is not found; its title comes from its first question once
        # the service has masked it (chat.titles).
        await owned(container, principal, body.thread_id)
    if body.tagged_set_ids:
        known = {d.set.id for d in await container.documents.list(tenant_id) if d.set}
        for set_id in body.tagged_set_ids:
            if set_id not in known:
                raise NotFound(f"no document set {set_id}")
    request = ChatRequest(
        message=body.message, thread_id=body.thread_id, tagged_doc_ids=tuple(
            dict.fromkeys(body.tagged_doc_ids)), tagged_set_ids=tuple(
            dict.fromkeys(body.tagged_set_ids)), action=body.action,
        enable_web_search=body.enable_web_search, use_memory=body.use_memory,
        project_id=body.project_id, answer=body.resume, source_text=body.source_text)
    stream = ChatStream(service.stream(tenant_id, request, user_id=principal.user_id),
                        gate=container.turn_gate)
    # Checks run on the first step, so a refused request is a plain 4xx, not a broken stream
    # (unless the run is so slow to start that the stream had to open first).
    first = await stream.first(settings.api.first_event_wait_ms / 1000)
    return EventStreamResponse(stream.body(first),
                               headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

