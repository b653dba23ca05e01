# dptrain top-level Makefile.
#
#   make          build everything: core library, CLI, unit tests (CMake, in build/)
#                 and the PostgreSQL extension (PGXS, below)
#   make install  install the extension into PostgreSQL 15 and the CLI into /usr/local/bin
#   make test     install dependencies, build, run every test (scripts/run-tests.sh)
#   make demo     install dependencies, build, install, train on Adult in a throwaway cluster
#   make bench    run the benchmarks in bench/ (not part of the tests)
#
# The extension links the same static core library as the CLI, so a model
# trained in SQL and one trained by the CLI run the very same code.

BUILD_DIR   ?= build
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release
JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
CORE_LIB    := $(BUILD_DIR)/libdptrain_core.a

# Declared before PGXS so that `all` is the default goal.
all: cmake-build

.PHONY: cmake-build test demo bench install-cli deps FORCE
cmake-build: $(CORE_LIB)

# CMake decides what is stale; make only looks at the library's timestamp
# afterwards, so the extension relinks only when the core really changed.
$(CORE_LIB): FORCE
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD_DIR) -j $(JOBS)
FORCE:

# ---- PGXS: the extension ----------------------------------------------------
# The control file lives in extension/ (PGXS's EXTENSION variable wants it
# at the top), so it is installed as DATA into share/extension (MODULEDIR).
MODULEDIR   = extension
EXT_VERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" extension/dptrain.control)
MODULE_big  = dptrain
OBJS        = $(patsubst %.cpp,%.o,$(sort $(wildcard src/pg/*.cpp)))
# The install script is the concatenation of sql/*.sql in name order, so each
# feature keeps its SQL in a file of its own.
DATA_built  = extension/dptrain--$(EXT_VERSION).sql
DATA        = extension/dptrain.control $(filter-out $(DATA_built),$(wildcard extension/dptrain--*--*.sql))
EXTRA_CLEAN = $(DATA_built)

PG_CONFIG  ?= pg_config
override with_llvm = no
PG_CPPFLAGS = -Isrc -I/usr/include/eigen3
PG_CXXFLAGS = -std=c++17 -O2 -fPIC -Wno-register
SHLIB_LINK += $(CURDIR)/$(CORE_LIB) -lsodium $(shell pkg-config --libs cbc) -lstdc++ -lm
# Track header dependencies of src/pg/*.cpp (PGXS leaves this off by default).
override autodepend = yes
$(OBJS): | $(CORE_LIB)

# Tests run by `make installcheck` against a running server (scripts/run-tests.sh
# starts a throwaway one): pg_regress, the isolation tester and TAP.
REGRESS      = $(sort $(basename $(notdir $(wildcard test/regress/sql/*.sql))))
REGRESS_OPTS = --inputdir=test/regress --outputdir=test/regress --load-extension=dptrain
ISOLATION    = $(sort $(basename $(notdir $(wildcard test/isolation/specs/*.spec))))
ISOLATION_OPTS = --inputdir=test/isolation --outputdir=test/isolation/output_iso --load-extension=dptrain
TAP_TESTS    = 1
PROVE_TESTS  = test/tap/*.pl

# On a machine without PostgreSQL's server headers yet, only the targets that
# install them (test, demo, deps) can run; they re-enter make afterwards.
PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifneq ($(wildcard $(PGXS)),)
include $(PGXS)
# Relink the extension when the core library changed.
$(shlib): $(CORE_LIB)
else
all install:
	@echo "PostgreSQL 15 server development files are missing: run 'make deps' (or make test / make demo)" >&2
	@exit 1
endif

$(DATA_built): $(sort $(wildcard sql/*.sql)) extension/dptrain.control
	@mkdir -p $(dir $@)
	( echo "-- generated from sql/*.sql by the Makefile: edit those files, not this one"; \
	  printf '%s\n' '\echo Use "CREATE EXTENSION dptrain" to load this file. \quit'; \
	  for f in $(sort $(wildcard sql/*.sql)); do echo; echo "-- ---- $$f"; cat $$f; done ) > $@

install: install-cli
install-cli: cmake-build
	install -d $(DESTDIR)/usr/local/bin
	install -m 755 $(BUILD_DIR)/dptrain $(DESTDIR)/usr/local/bin/dptrain

clean: clean-cmake
.PHONY: clean-cmake
clean-cmake:
	rm -rf $(BUILD_DIR)

# ---- the two commands of the README -----------------------------------------
deps:
	bash scripts/install-deps.sh

test:
	bash scripts/run-tests.sh

demo:
	bash scripts/demo.sh

bench:
	bash scripts/run-bench.sh
