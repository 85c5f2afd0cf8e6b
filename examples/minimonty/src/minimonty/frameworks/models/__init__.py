"""Runtime models: components that learn and recognize objects."""

from minimonty.frameworks.models.learning_module import EvidenceLM

__all__ = ["EvidenceLM"]
