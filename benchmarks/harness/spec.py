"""The rules every tool is configured with, once per corpus, tool-neutral.

One boundary (``sources`` must not import ``forbidden``, as packages), plus the
vocabulary and placement rules only domain-fence checks. Each tool's configuration
file is written from this, so all tools check the same boundary.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain_fence.core.setup.presets import DEFAULT_SYMBOLS, DEFAULT_WORDS


@dataclass(frozen=True)
class RuleSpec:
    root_packages: tuple[str, ...]
    sources: tuple[str, ...]
    forbidden: tuple[str, ...]
    vocabulary_modules: tuple[str, ...]
    event_bases: tuple[str, ...]
    words: tuple[str, ...]
    placement_symbols: tuple[str, ...]
    placement_allowed: tuple[str, ...]
    boundary_name: str
    vocabulary_name: str
    placement_name: str


MINIMONTY = RuleSpec(
    root_packages=("minimonty",),
    sources=("minimonty.frameworks",),
    forbidden=("minimonty.experiment",),
    vocabulary_modules=("minimonty.frameworks.**",),
    event_bases=("minimonty.frameworks.telemetry.schemas.TelemetrySchema",),
    words=DEFAULT_WORDS,  # what `domain-fence init` writes for a project like this one
    placement_symbols=DEFAULT_SYMBOLS,
    placement_allowed=("minimonty.experiment.**",),
    boundary_name="Runtime and telemetry do not import experiment code",
    vocabulary_name="Runtime events carry no experiment vocabulary",
    placement_name="init_telemetry and post-episode handlers live under experiment",
)

# Django's story, told the way domain-fence tells Monty's: the ORM is the "runtime"
# and must know nothing of the web layers; model fields (the ORM's "events", all
# derived from django.db.models.fields.Field) carry no web vocabulary; middleware,
# views and responses are defined only in the web layers.
DJANGO_WEB_LAYERS = ("forms", "http", "middleware", "urls", "views")
DJANGO_WORDS = ("form", "widget", "html", "request", "response", "template", "url -> uri", "view")
DJANGO_SYMBOLS = ("*Middleware", "*View", "HttpResponse*")
DJANGO_PLACES = ("middleware", "views", "http")


def django_spec() -> RuleSpec:
    """The rules for the real django package (corpus b)."""
    return RuleSpec(
        root_packages=("django",),
        sources=("django.db",),
        forbidden=tuple(f"django.{layer}" for layer in (*DJANGO_WEB_LAYERS, "template")),
        vocabulary_modules=("django.db.**",),
        event_bases=("django.db.models.fields.Field",),
        words=DJANGO_WORDS,
        placement_symbols=DJANGO_SYMBOLS,
        placement_allowed=(*(f"django.{place}.**" for place in DJANGO_PLACES), "django.contrib.**"),
        boundary_name="The ORM does not import the web layers",
        vocabulary_name="Model fields carry no web vocabulary",
        placement_name="Middleware, views and responses live in the web layers",
    )


def scaled_django_spec(root: str, copies: list[str]) -> RuleSpec:
    """The same rules for a generated tree: the copies sit *inside* each rule's
    package (``root.db.c01``, ``root.db.c02``...), so the rules keep their size while
    the code they cover grows. Only the event bases are listed once per copy."""
    return RuleSpec(
        root_packages=(root,),
        sources=(f"{root}.db",),
        forbidden=tuple(f"{root}.{layer}" for layer in DJANGO_WEB_LAYERS),
        vocabulary_modules=(f"{root}.db.**",),
        event_bases=tuple(f"{root}.db.{copy}.models.fields.Field" for copy in copies),
        words=DJANGO_WORDS,
        placement_symbols=DJANGO_SYMBOLS,
        placement_allowed=tuple(f"{root}.{place}.**" for place in DJANGO_PLACES),
        boundary_name="The ORM does not import the web layers",
        vocabulary_name="Model fields carry no web vocabulary",
        placement_name="Middleware, views and responses live in the web layers",
    )
