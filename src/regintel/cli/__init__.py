"""The ``regintel`` command."""

from regintel.cli import bench, chat, library, platform  # noqa: F401 (registers the commands)
from regintel.cli.app import app


def main() -> None:
    app()
