"""Errors by intent. Services raise these; only ``api/errors.py`` and ``cli.py`` turn them into
HTTP statuses and exit codes. Each carries a stable ``code`` and a ``hint`` for the user."""

from __future__ import annotations


class RegintelError(Exception):
    """Base of every error the product raises on purpose."""

    code = "regintel_error"

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class InvalidRequest(RegintelError):
    """The caller asked for something malformed or not allowed: fix the request."""

    code = "invalid_request"


class DocumentRejected(InvalidRequest):
    """An uploaded file cannot be used (corrupt, encrypted, empty, wrong type, too big…).
    ``reason`` is shown to the user as is; nothing already stored is touched."""

    code = "document_rejected"


class EngineNotOffered(InvalidRequest):
    """A conversation asked for an engine this deployment does not offer (no local model
    installed, no model endpoint configured)."""

    code = "engine_not_offered"


class NotFound(InvalidRequest):
    """The thing does not exist for this tenant (never says whether another tenant has it)."""

    code = "not_found"


class ConfigurationError(RegintelError):
    """The deployment is misconfigured: fix settings, then restart."""

    code = "configuration_error"


class DataDirInUse(ConfigurationError):
    """Another process already serves this data directory."""

    code = "data_dir_in_use"


class DependencyUnavailable(RegintelError):
    """A store, queue or model we depend on is down or unreachable: retry later."""

    code = "dependency_unavailable"


class UserInputNeeded(RegintelError):
    """The pipeline needs a decision from the user before it can go on."""

    code = "user_input_needed"


class ModelRetryable(RegintelError):
    """The model answered something unusable; asking again may help."""

    code = "model_retry"


class ToolFailed(RegintelError):
    """A tool the agent called failed; the turn continues without its result."""

    code = "tool_failed"


class ResyncRequired(RegintelError):
    """A change stream was asked for changes older than what is kept: reload the whole
    state, then follow the changes from the new cursor."""

    code = "resync_required"
