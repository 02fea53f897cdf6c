"""Sessions: the JSONL session tree, its storage and configuration."""
