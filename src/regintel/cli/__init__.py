"""The ``regintel`` command."""

# Importing each module registers its commands.
from regintel.cli import (  # noqa: F401
    audit,
    bench,
    changes,
    chat,
    graph,
    library,
    models,
    obligations,
    platform,
    projects,
)
from regintel.cli.app import app


def main() -> None:
    app()
