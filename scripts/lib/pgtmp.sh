# shellcheck shell=bash
# Throwaway PostgreSQL clusters for tests, benchmarks and the demo.
#
#   source scripts/lib/pgtmp.sh
#   pgtmp_init                       # temp dir + cleanup trap (stops clusters)
#   pgtmp_private_install            # private copy of PostgreSQL 15 with dptrain
#                                    # installed into it (like PostgreSQL's own
#                                    # `make check` temp install); sets PGTMP_BIN
#   pgtmp_start NAME                 # initdb + start as an unprivileged user,
#                                    # unix socket only; exports PGHOST PGPORT ...
#   pgtmp_at_exit "COMMAND"          # runs COMMAND on exit too (failure, signal),
#                                    # before the clusters stop: a script that
#                                    # sources this file adds its own cleanup here
#                                    # instead of replacing the trap
#
# PostgreSQL refuses to run as root, so when we are root the server (and
# anything that starts servers itself, like TAP tests) runs as `postgres`.

PGTMP_SYSTEM_BIN=${PGTMP_SYSTEM_BIN:-$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)}
PGTMP_BIN=${PGTMP_BIN:-$PGTMP_SYSTEM_BIN}
PGTMP_USER=${PGTMP_USER:-postgres}
PGTMP_CLUSTERS=()
PGTMP_EXIT_HOOKS=()

pgtmp_as_user() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u "$PGTMP_USER" -- "$@"
  else
    "$@"
  fi
}

pgtmp_cleanup() {
  local d i
  for ((i = ${#PGTMP_EXIT_HOOKS[@]} - 1; i >= 0; i--)); do eval "${PGTMP_EXIT_HOOKS[i]}" || true; done
  for d in "${PGTMP_CLUSTERS[@]}"; do
    [ -f "$d/data/postmaster.pid" ] && pgtmp_as_user "$PGTMP_BIN/pg_ctl" -D "$d/data" -m immediate -w stop >/dev/null 2>&1
  done
  if [ -n "${PGTMP_DIR:-}" ] && [ -z "${PGTMP_KEEP:-}" ]; then rm -rf "$PGTMP_DIR"; fi
}

pgtmp_at_exit() {
  PGTMP_EXIT_HOOKS+=("$1")
  trap pgtmp_cleanup EXIT
  trap 'exit 130' INT TERM
}

pgtmp_init() {
  PGTMP_DIR=$(mktemp -d "${TMPDIR:-/tmp}/dptrain.XXXXXX")
  chmod 755 "$PGTMP_DIR"
  [ "$(id -u)" -eq 0 ] && chown "$PGTMP_USER" "$PGTMP_DIR"
  trap pgtmp_cleanup EXIT
  trap 'exit 130' INT TERM
}

# Copies the system PostgreSQL 15 (binaries, libraries, share) into
# $PGTMP_DIR/pg and installs the freshly built extension there with
# DESTDIR. PostgreSQL finds its share and lib directories relative to its
# binaries, so servers started from this copy see this build of dptrain and
# never the one (if any) installed system-wide.
pgtmp_private_install() {
  local root=$PGTMP_DIR/pg
  local libdir sharedir
  libdir=$(dirname "$PGTMP_SYSTEM_BIN")
  sharedir=$(pg_config --sharedir)
  mkdir -p "$root$(dirname "$libdir")" "$root$(dirname "$sharedir")"
  cp -a "$libdir" "$root$(dirname "$libdir")/"
  cp -a "$sharedir" "$root$(dirname "$sharedir")/"
  make -s install DESTDIR="$root" >/dev/null
  PGTMP_BIN=$root$PGTMP_SYSTEM_BIN
  PGTMP_PG_CONFIG=$PGTMP_BIN/pg_config
  export PGTMP_BIN PGTMP_PG_CONFIG
}

# pgtmp_start NAME [extra postgresql.conf lines...]
pgtmp_start() {
  local name=$1; shift
  local d=$PGTMP_DIR/$name
  mkdir -p "$d"
  [ "$(id -u)" -eq 0 ] && chown "$PGTMP_USER" "$d"
  pgtmp_as_user "$PGTMP_BIN/initdb" -D "$d/data" -U postgres -A trust -E UTF8 --locale=C >"$d/initdb.log" 2>&1 \
    || { cat "$d/initdb.log" >&2; return 1; }
  {
    echo "listen_addresses = ''"
    echo "unix_socket_directories = '$d'"
    echo "port = 5432"
    echo "fsync = off"
    echo "synchronous_commit = off"
    echo "full_page_writes = off"
    echo "max_connections = 60"
    echo "shared_buffers = 256MB"
    echo "lc_messages = 'C'"
    for line in "$@"; do echo "$line"; done
  } >>"$d/data/postgresql.conf"
  PGTMP_CLUSTERS+=("$d")
  pgtmp_as_user "$PGTMP_BIN/pg_ctl" -D "$d/data" -l "$d/server.log" -w -t 60 start >/dev/null \
    || { cat "$d/server.log" >&2; return 1; }
  export PGHOST=$d PGPORT=5432 PGUSER=postgres PGDATABASE=postgres
  export PGTMP_LOG=$d/server.log PGTMP_DATA=$d/data
}

pgtmp_stop() {
  local d=$PGTMP_DIR/$1
  pgtmp_as_user "$PGTMP_BIN/pg_ctl" -D "$d/data" -m fast -w stop >/dev/null
}
