#!/usr/bin/env bash
# Installs the real MCP servers the proxy tests run against (tests/proxy_real.rs), pinned:
# the reference filesystem server from the npm registry, and the official Python MCP SDK from
# PyPI. Idempotent. The filesystem server goes into ${INTENTSHIELD_E2E_CACHE:-~/.cache/intentshield-e2e}/mcp-fs;
# scripts/test.sh points MCP_FS_SERVER at it when it is there. The SDK goes into a virtual
# environment of its own, .../py under the same cache (never into whatever Python is active);
# scripts/test.sh puts its bin/ first on PATH when it is there. Without npm or python3, the
# tests skip with a message.
set -euo pipefail
cache=${INTENTSHIELD_E2E_CACHE:-$HOME/.cache/intentshield-e2e}
fs_version=2026.8.31
sdk_version=2.3.0
if command -v npm >/dev/null 2>&1; then
  dir=$cache/mcp-fs
  if [ ! -x "$dir/node_modules/.bin/mcp-server-filesystem" ] ||
     ! grep -q "\"version\": \"$fs_version\"" "$dir/node_modules/@modelcontextprotocol/server-filesystem/package.json" 2>/dev/null; then
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --silent "@modelcontextprotocol/server-filesystem@$fs_version"
  fi
  echo "proxy-setup: filesystem server $fs_version in $dir"
else
  echo "proxy-setup: npm is missing; the filesystem-server test will skip" >&2
fi
if command -v python3 >/dev/null 2>&1; then
  venv=$cache/py
  if [ ! -x "$venv/bin/python3" ]; then
    mkdir -p "$cache"
    python3 -m venv "$venv"
  fi
  if ! "$venv/bin/python3" -c "import mcp, importlib.metadata as m; assert m.version('mcp') == '$sdk_version'" 2>/dev/null; then
    "$venv/bin/python3" -m pip install --quiet --disable-pip-version-check "mcp==$sdk_version"
  fi
  echo "proxy-setup: python mcp $sdk_version in the virtual environment $venv"
else
  echo "proxy-setup: python3 is missing; the proxy tests that need it will skip" >&2
fi
