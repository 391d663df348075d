#!/usr/bin/env bash
# The project's test command (README): formatting, lints, then every test.
# Tests that need ../shared skip with a message when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --all-targets -- -D warnings
cargo test --no-fail-fast
