#!/usr/bin/env bash
# The project's test command (README): formatting, lints, then every test.
# Tests that need ../shared skip with a message when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --all-targets -- -D warnings
# The real filesystem MCP server, when scripts/proxy-setup.sh installed it.
fs=${INTENTSHIELD_E2E_CACHE:-$HOME/.cache/intentshield-e2e}/mcp-fs/node_modules/.bin/mcp-server-filesystem
if [ -z "${MCP_FS_SERVER:-}" ] && [ -x "$fs" ]; then
  export MCP_FS_SERVER=$fs
fi
cargo test --no-fail-fast
