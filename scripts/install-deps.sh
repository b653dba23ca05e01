#!/usr/bin/env bash
# Installs every Debian package dptrain needs to build, test, benchmark and
# run its demo. Idempotent: packages already present are skipped, so calling
# it from `make test` / `make demo` costs ~1 s on a provisioned machine.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  postgresql-15 postgresql-server-dev-15 postgresql-client-15 libpq-dev
  libipc-run-perl                       # TAP tests (PostgreSQL::Test::Cluster)
  libeigen3-dev liblbfgspp-dev libboost-math-dev libsodium-dev
  libcli11-dev nlohmann-json3-dev libgtest-dev libgmock-dev
  coinor-libcbc-dev
  gnuplot-nox
  dataset-fashion-mnist
  python3 python3-numpy python3-sklearn  # reference numbers in tests/bench
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: missing packages: ${missing[*]} (run as root)" >&2
    exit 1
  fi
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # Do not let the Debian package create and start a system cluster: the
  # project only ever uses throwaway clusters it starts itself.
  mkdir -p /etc/postgresql-common
  if [ ! -f /etc/postgresql-common/createcluster.conf ] || ! grep -q '^create_main_cluster = false' /etc/postgresql-common/createcluster.conf; then
    echo 'create_main_cluster = false' >> /etc/postgresql-common/createcluster.conf
  fi
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
