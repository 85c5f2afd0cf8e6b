"""Reporters: a :class:`~domain_fence.core.report.Report` rendered for a reader.

Each format is a small module with ``render(report, options) -> str``. They depend on
the core only, so any front end holding a Report can use them.
"""

from __future__ import annotations

from collections.abc import Callable

from domain_fence.core.report import Report

from . import github, json, markdown, sarif, text
from .options import RenderOptions

RENDERERS: dict[str, Callable[[Report, RenderOptions], str]] = {
    "text": text.render,
    "json": json.render,
    "sarif": sarif.render,
    "github": github.render,
    "markdown": markdown.render,
}

FORMATS = tuple(RENDERERS)


def render(report: Report, format: str, options: RenderOptions | None = None) -> str:
    return RENDERERS[format](report, options or RenderOptions())


__all__ = ["FORMATS", "RenderOptions", "render"]
