#!/usr/bin/env bash
# Install mermaid's own parser (and jsdom, which it needs outside a browser) for the
# Markdown report's Mermaid test, outside the repository: the test suite never
# downloads anything, and skips that test only where node is missing.
#
#   scripts/install_mermaid.sh            # into ~/.cache/domain-fence/mermaid
#   DOMAIN_FENCE_MERMAID_DIR=dir scripts/install_mermaid.sh
set -euo pipefail
directory="${DOMAIN_FENCE_MERMAID_DIR:-$HOME/.cache/domain-fence/mermaid}"
mkdir -p "$directory"
npm install --prefix "$directory" --no-audit --no-fund mermaid@11 jsdom@26
