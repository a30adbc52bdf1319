"""Helpers shared by the format parsers: rejections users can act on, newline handling."""

from __future__ import annotations

from regintel.errors import ConfigurationError, DocumentRejected

SUPPORTED = ("PDF", "DOCX", "HTML", "Markdown", "plain text")
SUPPORTED_HINT = "supported types: " + ", ".join(SUPPORTED)


def unsupported(looks_like: str) -> DocumentRejected:
    return DocumentRejected(f"unsupported file type: it looks like {looks_like}",
                            hint=SUPPORTED_HINT)


def empty() -> DocumentRejected:
    return DocumentRejected("the file is empty",
                            hint="upload a file that contains text")


def missing_extra(fmt: str, exc: ImportError) -> ConfigurationError:
    # The vendor libraries are the optional `parsers` extra; say how to get them.
    return ConfigurationError(f"{fmt} parsing is not installed ({exc.name} is missing)",
                              hint="pip install 'regintel[parsers]'")


def normalise_newlines(text: str) -> str:
    """CRLF and lone CR become LF; nothing else changes (tabs and markers carry structure)."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")
