"""Optional LangSmith tracing of chat runs. Nothing is sent anywhere unless
``REGINTEL_TRACING__LANGSMITH=true``: an environment that merely has ``LANGSMITH_TRACING`` set
(a developer's shell, a shared base image) does not turn it on, because traces carry retrieved
passages of a tenant's documents and that must be a deliberate choice.

With it on, LangGraph's runs (each node's inputs and outputs, already PII-masked questions
included) go to the configured project through langchain-core's tracer."""

from __future__ import annotations

import logging
import os

from regintel.errors import ConfigurationError
from regintel.settings import TracingSettings

log = logging.getLogger(__name__)
_ENVIRONMENT_SWITCHES = ("LANGSMITH_TRACING", "LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2",
                         "LANGCHAIN_TRACING")


def configure(settings: TracingSettings) -> bool:
    """Turns LangSmith tracing on or (by default) firmly off for this process; True when on."""
    from langsmith import run_trees

    if not settings.langsmith:
        switched = [k for k in _ENVIRONMENT_SWITCHES if os.environ.get(k, "").lower() == "true"]
        if switched:
            log.warning("%s is set but tracing is off; set REGINTEL_TRACING__LANGSMITH=true "
                        "to send traces to LangSmith", ", ".join(switched))
        run_trees.configure(enabled=False)
        return False
    if not (os.environ.get("LANGSMITH_API_KEY") or os.environ.get("LANGCHAIN_API_KEY")):
        raise ConfigurationError("LangSmith tracing is on but no API key is set",
                                 hint="set LANGSMITH_API_KEY, or REGINTEL_TRACING__LANGSMITH=false")
    run_trees.configure(enabled=True, project_name=settings.project)
    log.info("LangSmith tracing on (project %s)", settings.project)
    return True
