"""Build the import graph once per run, the way lint-imports builds it."""

from __future__ import annotations

import grimp
from grimp import ImportGraph

from .configuration import Configuration, ConfigurationError, put_project_on_path


def build_graph(configuration: Configuration, cache: bool = True) -> ImportGraph:
    put_project_on_path(configuration)
    try:
        return grimp.build_graph(
            *configuration.root_packages,
            include_external_packages=configuration.session_flag("include_external_packages"),
            exclude_type_checking_imports=configuration.session_flag("exclude_type_checking_imports"),
            cache_dir=str(configuration.root / ".import_linter_cache") if cache else None,
        )
    except ValueError as error:  # grimp: root package not found or not a package
        raise ConfigurationError(f"{configuration.path}: [importlinter] root_packages: {_one_line(error)}") from None


def _one_line(error: BaseException) -> str:
    return (str(error) or type(error).__name__).splitlines()[0]
