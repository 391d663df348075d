#!/usr/bin/env bash
# Hook latency beside an empty static binary, measured in the same run (README "Speed").
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --bench hook_latency
