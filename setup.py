"""Only here for the `dev` extra: it installs the bundled reference codebase, which
needs an absolute file URL that static pyproject metadata cannot hold."""

from pathlib import Path

from setuptools import setup

REFERENCE_CODEBASE = (Path(__file__).resolve().parent / "examples" / "minimonty").as_uri()

setup(
    extras_require={
        "dev": [
            f"minimonty @ {REFERENCE_CODEBASE}",
            "pytest>=8",
            "jsonschema>=4",
            "hypothesis>=6",
            "hypothesmith>=0.3",
            "pre-commit>=3",
        ],
    },
)
