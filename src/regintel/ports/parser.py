"""Document parsing port: bytes in, text per page out, or a clear ``DocumentRejected``."""

from __future__ import annotations

from typing import Protocol

from regintel.domain.documents import ParsedDocument


class DocumentParser(Protocol):
    def detect(self, data: bytes, filename: str) -> str:
        """The MIME type the content really has; ``DocumentRejected`` for unsupported,
        empty or unsafe input. Cheap: run at upload, before anything is stored."""

    def parse(self, data: bytes, filename: str) -> ParsedDocument:
        """Detect the type from the content (the extension only breaks ties between text
        formats) and extract the text. Raises ``DocumentRejected`` with a user-facing reason."""
