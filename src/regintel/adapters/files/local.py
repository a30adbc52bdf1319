"""Original files on local disk under ``<data_dir>/files/<tenant>/<hash[:2]>/<hash>``.

Addressed by content hash, so the same bytes uploaded twice by a tenant are one file; tenants
never share a path, so deleting one tenant's document can never remove another's file."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from uuid import UUID

from regintel.errors import NotFound


class LocalFileStore:
    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def _path(self, relative_path: str) -> Path:
        path = (self.root / relative_path).resolve()
        if not path.is_relative_to(self.root):
            raise NotFound("no such stored file")
        return path

    def put(self, tenant_id: UUID, data: bytes) -> tuple[str, str]:
        digest = hashlib.sha256(data).hexdigest()
        relative = f"{tenant_id}/{digest[:2]}/{digest}"
        path = self._path(relative)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            # Write then rename: a crash never leaves a truncated file under the final name.
            with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as tmp:
                tmp.write(data)
                tmp.flush()
                os.fsync(tmp.fileno())
            os.replace(tmp.name, path)
        return digest, relative

    def read(self, relative_path: str) -> bytes:
        try:
            return self._path(relative_path).read_bytes()
        except FileNotFoundError as exc:
            raise NotFound("the original file is missing from the file store") from exc

    def delete(self, relative_path: str) -> None:
        self._path(relative_path).unlink(missing_ok=True)
