"""The project index: every module, its facts, and what keeps the import graph from being built."""
