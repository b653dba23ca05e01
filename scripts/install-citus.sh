#!/usr/bin/env bash
# Makes Citus (the distributed PostgreSQL extension) available to PostgreSQL 15
# for the distributed tests. Citus is not a Debian package, so it is an
# optional dependency built from the released source kept in
# ../shared/vendor/citus (README there: version, patch, measured facts).
#
#   bash scripts/install-citus.sh        (as root when Citus is missing)
#
# Idempotent: when citus.so is already in `pg_config --pkglibdir` it only says
# so (~0.1 s). Otherwise it installs the build packages (apt-get), checks the
# source against SHA256SUMS, unpacks it into a temporary directory, applies
# the patch for Debian's PostgreSQL 15.20 headers and builds and installs it
# (about 80 s on 2 cores, once per machine).
#
# Exit status 0 both when Citus is available and when it was skipped (no
# vendored source, not root): the last line of output is the status,
# `citus: available` or `citus: SKIPPED (reason)`, and with CITUS_STATUS_FILE
# set the same word (available | skipped) is written there. A build that
# was attempted and failed exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."

VENDOR=${DPTRAIN_CITUS_VENDOR:-$PWD/../shared/vendor/citus}
TARBALL=citus-13.2.2.tar.gz
PATCH=citus-pg15.20.patch
BUILD_PACKAGES=(build-essential postgresql-server-dev-15 liblz4-dev libzstd-dev libkrb5-dev libssl-dev
                libselinux1-dev libxslt1-dev libpam0g-dev libreadline-dev flex bison)

status() {
  [ -n "${CITUS_STATUS_FILE:-}" ] && echo "$1" >"$CITUS_STATUS_FILE"
  return 0
}

skip() {
  echo "##########################################################################" >&2
  echo "## SKIP: Citus is not installed and cannot be built here:" >&2
  echo "##       $1" >&2
  echo "##       The distributed (Citus) tests will NOT run." >&2
  echo "##########################################################################" >&2
  status skipped
  echo "citus: SKIPPED ($1)"
  exit 0
}

citus_installed() { [ -f "$(pg_config --pkglibdir)/citus.so" ]; }

if citus_installed; then
  status available
  echo "citus: available"
  exit 0
fi

[ -f "$VENDOR/$TARBALL" ] || skip "no Citus source in $VENDOR"
[ "$(id -u)" -eq 0 ] || skip "building Citus needs root (apt-get, make install)"

missing=()
for p in "${BUILD_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-citus: installing build packages ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/citus-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Check the copies we build from, not only the originals: the folder is
# read-only, but the check must cover exactly the bytes that are unpacked.
cp "$VENDOR/$TARBALL" "$VENDOR/$PATCH" "$VENDOR/SHA256SUMS" "$work/"
(cd "$work" && sha256sum --quiet -c SHA256SUMS) || { echo "install-citus: checksum mismatch in $VENDOR" >&2; exit 1; }

echo "install-citus: building Citus from $VENDOR/$TARBALL (about 80 s on 2 cores)"
start=$(date +%s)
tar -xzf "$work/$TARBALL" -C "$work"
src=$work/${TARBALL%.tar.gz}
log=$work/build.log
if ! (cd "$src" && patch -p1 <"$work/$PATCH" && ./configure --without-libcurl && make -j2 && make install) >"$log" 2>&1; then
  tail -40 "$log" >&2
  echo "install-citus: the Citus build FAILED" >&2
  exit 1
fi
citus_installed || { echo "install-citus: make install did not install citus.so" >&2; exit 1; }
echo "install-citus: built and installed in $(( $(date +%s) - start )) s"
status available
echo "citus: available"
