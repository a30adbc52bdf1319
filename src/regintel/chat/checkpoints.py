"""Checkpoints in Postgres (thread = conversation), degrading to memory when the store fails:
a failing checkpointer is logged and flagged on the turn, and the answer still comes."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextvars import ContextVar
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
)
from langgraph.checkpoint.memory import InMemorySaver

log = logging.getLogger(__name__)

# The failures of the current turn; the service reads it to flag the response.
turn_failures: ContextVar[list[str] | None] = ContextVar("turn_failures", default=None)


def _failed(operation: str, exc: BaseException) -> None:
    log.error("checkpointer %s failed (%s): continuing in memory", operation, exc)
    failures = turn_failures.get()
    if failures is not None and "checkpointer" not in failures:
        failures.append("checkpointer")


class ResilientSaver(BaseCheckpointSaver[Any]):
    """Delegates to the durable saver; on a failure, reads and writes of that thread continue
    in an in-memory saver for the rest of the process."""

    def __init__(self, durable: BaseCheckpointSaver[Any]) -> None:
        super().__init__(serde=durable.serde)
        self._durable = durable
        self._memory = InMemorySaver()
        self._degraded: set[str] = set()

    @staticmethod
    def _thread(config: RunnableConfig) -> str:
        return str(config.get("configurable", {}).get("thread_id", ""))

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        thread = self._thread(config)
        if thread not in self._degraded:
            try:
                return await self._durable.aget_tuple(config)
            except Exception as exc:
                _failed("read", exc)
                self._degraded.add(thread)
        return await self._memory.aget_tuple(config)

    async def aput(self, config: RunnableConfig, checkpoint: Checkpoint,
                   metadata: CheckpointMetadata, new_versions: ChannelVersions) -> RunnableConfig:
        thread = self._thread(config)
        if thread not in self._degraded:
            try:
                return await self._durable.aput(config, checkpoint, metadata, new_versions)
            except Exception as exc:
                _failed("write", exc)
                self._degraded.add(thread)
        return await self._memory.aput(config, checkpoint, metadata, new_versions)

    async def aput_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]],
                          task_id: str, task_path: str = "") -> None:
        thread = self._thread(config)
        if thread not in self._degraded:
            try:
                await self._durable.aput_writes(config, writes, task_id, task_path)
                return
            except Exception as exc:
                _failed("write", exc)
                self._degraded.add(thread)
        await self._memory.aput_writes(config, writes, task_id, task_path)

    async def alist(self, config: RunnableConfig | None, *, filter: dict[str, Any] | None = None,
                    before: RunnableConfig | None = None,
                    limit: int | None = None) -> AsyncIterator[CheckpointTuple]:
        source = self._memory if config and self._thread(config) in self._degraded \
            else self._durable
        async for item in source.alist(config, filter=filter, before=before, limit=limit):
            yield item

    async def adelete_thread(self, thread_id: str) -> None:
        await self._memory.adelete_thread(thread_id)
        await self._durable.adelete_thread(thread_id)

    def get_next_version(self, current: Any, channel: None) -> Any:
        return self._durable.get_next_version(current, channel)
