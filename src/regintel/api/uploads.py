"""Reading a multipart upload without trusting its size.

The body is counted while it streams in and reading stops the moment it passes the limit, so an
oversize upload costs at most the limit in bandwidth and nothing in memory: the file part is
spooled to a temporary file (in memory only up to 1 MB) by Starlette's streaming parser, and the
other fields are capped at a few kilobytes each."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass
from pathlib import PurePath

from fastapi import Request
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser

from regintel.api.errors import PayloadTooLarge
from regintel.errors import InvalidRequest

FORM_OVERHEAD = 64 * 1024  # part headers and the metadata fields around the file
MAX_FIELD_BYTES = 8 * 1024
MAX_FIELDS = 8


@dataclass
class Upload:
    fields: dict[str, str]
    file: UploadFile
    filename: str


def too_large(max_bytes: int) -> PayloadTooLarge:
    return PayloadTooLarge(f"the upload is larger than the limit of "
                           f"{max_bytes / 1_048_576:.0f} MB",
                           hint="split the document or compress it")


async def read_upload(request: Request, *, max_bytes: int) -> Upload:
    """The form of a ``multipart/form-data`` upload with one ``file`` part."""
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise InvalidRequest("send the document as multipart/form-data",
                             hint="a 'file' part plus the metadata fields")
    limit = max_bytes + FORM_OVERHEAD
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_large(max_bytes)  # refused before a byte of the body is read

    async def counted() -> AsyncGenerator[bytes, None]:
        seen = 0
        async for chunk in request.stream():
            seen += len(chunk)
            if seen > limit:  # a missing or lying Content-Length ends here
                raise too_large(max_bytes)
            yield chunk

    parser = MultiPartParser(request.headers, counted(), max_files=1, max_fields=MAX_FIELDS,
                             max_part_size=MAX_FIELD_BYTES)
    try:
        form = await parser.parse()
    except MultiPartException as exc:
        raise InvalidRequest(f"the form could not be read: {exc.message}") from exc
    fields: dict[str, str] = {}
    upload: UploadFile | None = None
    for name, value in form.multi_items():
        if isinstance(value, str):
            fields[name] = value
        elif name == "file":
            upload = value
        else:
            await value.close()
    if upload is None:
        raise InvalidRequest("no file in the upload", hint="send it as the 'file' part")
    if upload.size is not None and upload.size > max_bytes:
        await upload.close()
        raise too_large(max_bytes)
    # Only the last path component, never a client-chosen path, and bounded in length.
    raw = (upload.filename or "upload").replace("\\", "/").replace("\x00", "")
    filename = PurePath(raw).name[-255:] or "upload"
    return Upload(fields=fields, file=upload, filename=filename)
