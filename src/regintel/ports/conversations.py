"""Where conversations, their messages, memory and usage live."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol
from uuid import UUID

from regintel.domain.chat import EngineChoice
from regintel.domain.conversations import Conversation, Memory, QaEntry, Role, StoredMessage
from regintel.domain.coverage import CoverageMatrix


class ConversationStore(Protocol):
    async def create(self, tenant_id: UUID, *, user_id: UUID | None = None, title: str = "",
                     project_id: UUID | None = None, engine: EngineChoice | None = None,
                     conversation_id: UUID | None = None) -> Conversation: ...

    async def get(self, tenant_id: UUID, conversation_id: UUID) -> Conversation:
        """Raises NotFound when it does not exist for this tenant."""
        ...

    async def list_conversations(self, tenant_id: UUID, *,
                                 user_id: UUID | None = None) -> list[Conversation]:
        ...

    async def rename(self, tenant_id: UUID, conversation_id: UUID, title: str) -> None: ...

    async def set_engine(self, tenant_id: UUID, conversation_id: UUID,
                         engine: EngineChoice | None) -> None:
        """The engine the conversation's next turns run on (None: the deployment's default);
        NotFound when it does not exist for this tenant."""
        ...

    async def delete(self, tenant_id: UUID, conversation_id: UUID) -> None:
        """The conversation with its messages, context and memory."""
        ...

    async def add_message(self, tenant_id: UUID, conversation_id: UUID, role: Role,
                          content: str, metadata: dict[str, Any] | None = None) -> UUID: ...

    async def set_response(self, tenant_id: UUID, conversation_id: UUID, message_id: UUID,
                           response: dict[str, Any]) -> None:
        """Keeps the turn's whole response (the ChatResponse as sent) on its answer message,
        so a reopened conversation shows each answer as it first appeared."""
        ...

    async def messages(self, tenant_id: UUID, conversation_id: UUID) -> list[StoredMessage]: ...

    async def save_audit_matrix(self, tenant_id: UUID, conversation_id: UUID, message_id: UUID,
                                matrix: CoverageMatrix) -> None:
        """Keeps an audit's coverage matrix beside its answer message (for the reports)."""
        ...

    async def replace_audit_matrix(self, tenant_id: UUID, conversation_id: UUID,
                                   message_id: UUID, matrix: CoverageMatrix) -> None:
        """Keeps a new reading of that audit's matrix (a model's proposals on its rows)."""
        ...

    async def audit_matrix(self, tenant_id: UUID, conversation_id: UUID,
                           message_id: UUID) -> CoverageMatrix | None:
        """The matrix kept with that answer message, or None (an audit without one)."""
        ...

    async def get_message(self, tenant_id: UUID, conversation_id: UUID,
                          message_id: UUID) -> StoredMessage: ...

    async def memory(self, tenant_id: UUID, conversation_id: UUID, *,
                     window: int) -> Memory: ...

    async def save_summary(self, tenant_id: UUID, conversation_id: UUID, summary: str,
                           covered_messages: int) -> None: ...

    async def add_qa(self, tenant_id: UUID, conversation_id: UUID, *, exchange_id: UUID,
                     question: str, answer_digest: str, topics: Sequence[str],
                     source_ids: Sequence[str], embedding: Sequence[float] | None) -> None: ...

    async def search_qa(self, tenant_id: UUID, conversation_id: UUID, *, topic: str,
                        vector: Sequence[float] | None, k: int = 5) -> list[QaEntry]: ...

    async def profile(self, tenant_id: UUID, user_id: UUID) -> dict[str, str]:
        """The user's onboarding profile (company, country, industry, description)."""
        ...

    async def record_usage(self, tenant_id: UUID, *, user_id: UUID | None,
                           conversation_id: UUID | None, action: str, engine: str, model: str,
                           input_tokens: int, output_tokens: int, cost_usd: float) -> None: ...
