"""The language server front end (``domain-fence lsp``): :mod:`.server` speaks the
protocol through pygls, :mod:`.analysis` is all it asks of the analysis."""
