#!/usr/bin/env bash
# Makes PostgreSQL server binaries (initdb, pg_ctl) available for the PostgreSQL store's
# tests. They start their own throw-away cluster; this script only installs the binaries:
# Debian's `postgresql` package via apt-get, when they are missing and we are root.
# Exit status: 0 when the binaries are available afterwards, 1 otherwise.
set -euo pipefail

find_initdb() {
  local candidate
  for candidate in /usr/lib/postgresql/*/bin/initdb; do
    if [ -x "$candidate" ]; then
      echo "$candidate"
      return 0
    fi
  done
  command -v initdb 2>/dev/null
}

if initdb_path="$(find_initdb)"; then
  echo "PostgreSQL server binaries found: $(dirname "$initdb_path")"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "PostgreSQL server binaries are missing and this is not root: install Debian's 'postgresql' package (or set CONCLAVE_TEST_POSTGRES_URL)." >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "PostgreSQL server binaries are missing and apt-get is not available: install PostgreSQL by hand." >&2
  exit 1
fi

echo "Installing PostgreSQL server binaries with apt-get..."
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# The tests run their own cluster; the package's default cluster is not needed.
mkdir -p /etc/postgresql-common
if [ ! -f /etc/postgresql-common/createcluster.conf ]; then
  echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.conf
fi
apt-get install -y -qq --no-install-recommends postgresql >/dev/null

if initdb_path="$(find_initdb)"; then
  echo "PostgreSQL server binaries installed: $(dirname "$initdb_path")"
  exit 0
fi
echo "apt-get finished but initdb is still missing." >&2
exit 1
