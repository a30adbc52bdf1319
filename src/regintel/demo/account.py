"""The demo login: one owner of the demo tenant, with a password generated on first use and
kept in the data directory (the demo only binds to loopback, but a fixed password would still
be one more default secret to forget)."""

from __future__ import annotations

import secrets
from pathlib import Path

DEMO_EMAIL = "demo@regintel.local"
DEMO_PROFILE = {"company": "Falcon Crest Capital Ltd", "country": "United Arab Emirates",
                "industry": "Asset management",
                "description": "ADGM-authorised firm preparing its 2026 AML programme."}


def demo_login(data_dir: Path) -> tuple[str, str]:
    """``(email, password)``, the password created once and stored with mode 0600."""
    path = data_dir / "demo_login"
    if path.exists():
        return DEMO_EMAIL, path.read_text(encoding="utf-8").strip()
    data_dir.mkdir(parents=True, exist_ok=True)
    password = secrets.token_urlsafe(12)
    path.write_text(password, encoding="utf-8")
    path.chmod(0o600)
    return DEMO_EMAIL, password
