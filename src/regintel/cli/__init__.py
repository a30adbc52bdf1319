"""The ``regintel`` command."""

# Importing each module registers its commands.
from regintel.cli import bench, chat, graph, library, models, platform, projects  # noqa: F401
from regintel.cli.app import app


def main() -> None:
    app()
