"""The checkpointer tables our migration created are the ones LangGraph's saver expects."""

from __future__ import annotations

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver


async def test_saver_runs_on_migrated_schema(fresh_db_url: str) -> None:
    async with AsyncPostgresSaver.from_conn_string(fresh_db_url) as saver:
        await saver.setup()  # nothing left to apply: our migration recorded every version
        config: RunnableConfig = {
            "configurable": {"thread_id": "tenant-a:thread-1", "checkpoint_ns": ""}}
        checkpoint = empty_checkpoint()
        checkpoint["channel_values"] = {"question": "What is CDD?"}
        saved = await saver.aput(config, checkpoint, {"source": "input", "step": 0}, {})
        loaded = await saver.aget_tuple(saved)
    assert loaded is not None
    assert loaded.checkpoint["id"] == checkpoint["id"]
