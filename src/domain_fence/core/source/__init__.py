"""Reading and parsing source files safely, module names and paths, per-file facts and their cache."""
