"""Accounts: users, tenants with members, sessions, invitations and onboarding profiles.

Kept beside the API because only the HTTP edge authenticates; the SQL lives in ``store.py`` and
uses the same tables module and database sessions as the other Postgres repositories."""
