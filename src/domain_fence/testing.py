"""Types for annotating tests that use domain-fence's pytest fixtures::

from domain_fence.testing import Fence

def test_experiment_owns_init_telemetry(fence: Fence):
    fence.assert_defined_only_under("init_telemetry", "pkg.experiment")
"""

from domain_fence.core.families.placement.definitions import Definition
from domain_fence.core.model.findings import Finding
from domain_fence.integrations.pytest import Fence, FenceWarning

__all__ = ["Definition", "Fence", "FenceWarning", "Finding"]
