"""Hybrid retrieval, the per-action strategies, and confidence tiers."""
