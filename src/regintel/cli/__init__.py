"""The ``regintel`` command."""

# Importing each module registers its commands.
from regintel.cli import audit, bench, chat, graph, library, platform, projects  # noqa: F401
from regintel.cli.app import app


def main() -> None:
    app()
