"""Compaction and branch summarisation (spec §6): pure cut-point logic plus the summarising requests."""
