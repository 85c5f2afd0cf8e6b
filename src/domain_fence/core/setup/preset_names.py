"""The names of the presets (:data:`.presets.PRESETS`), for a command line to offer
without importing the presets and what planning a configuration needs."""

from __future__ import annotations

PRESET_NAMES = ("monty",)  # sorted
