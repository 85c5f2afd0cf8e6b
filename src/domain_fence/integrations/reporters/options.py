"""What a reader asked for, shared by every format."""

from typing import NamedTuple

# The report formats, each the name of its module in this package: here, so that a
# command line can offer them without importing the reporters.
FORMATS = ("text", "json", "sarif", "github", "markdown")


class RenderOptions(NamedTuple):
    """How a report is rendered, whatever its format."""

    quiet: bool = False  # only what fails
    verbose: bool = False  # also what passes: baselined findings, kept contracts' details
    # GitHub resolves annotation paths against the repository checkout; when the project
    # root is below it, paths are prefixed with the root's place in the checkout.
    workspace: str | None = None
    # The command that strikes fixed entries from the baseline, for the run being reported
    # (with its --config when the check was given one).
    prune_command: str = "domain-fence baseline --prune"
