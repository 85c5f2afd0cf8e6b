"""Reporters: a :class:`~domain_fence.core.model.report.Report` rendered for a reader.

Each format is a small module with ``render(report, options) -> str``. They depend on
the core only, so any front end holding a Report can use them. A format's module is
imported when it is first used: a command line can offer the formats, and replay a
stored report, without importing any of them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .options import FORMATS, RenderOptions

if TYPE_CHECKING:
    from domain_fence.core.model.report import Report


def render(report: Report, format: str, options: RenderOptions | None = None) -> str:
    if format not in FORMATS:
        raise KeyError(format)
    module = importlib.import_module(f"{__name__}.{format}")
    rendered: str = module.render(report, options or RenderOptions())
    return rendered


__all__ = ["FORMATS", "RenderOptions", "render"]
