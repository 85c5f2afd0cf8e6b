"""The benchmark harness behind ``benchmarks/run.py``: corpora, tool configurations,
tool environments, measurement and the report."""
