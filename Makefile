# nodus: the CLI (bin/nodus) and the emulator (bin/nodus-emulator) from one tree.
#
#   make            build both binaries (nothing of the tests: no cmocka needed)
#   make check      install missing Debian packages, build with -Werror, run every suite
#   make test-bins  what make check runs besides the binaries: the unit tests (cmocka),
#                   the hostile corpus's driver, the fuzz targets' replay drivers
#   make asan       the same suites under AddressSanitizer + UBSan (-Werror too)
#   make demo       install, build, run the offline demo
#   make fuzz       fuzz every parser (clang, libFuzzer; FUZZ_SECONDS, FUZZ_TARGETS)
#   make bench      run the benchmarks, ~10 min (docs/benchmarks.md; BENCH_QUICK=1: ~2 min)
#   make torture    the history check: clients against an emulator killed every few seconds,
#                   10 min per --fsync mode (docs/torture.md; TORTURE_SECONDS to shorten)
#   make torture-selftest  each deliberately broken build, and the anomaly the check names
#   make install    PREFIX=/usr/local DESTDIR= (builds only what it installs)
#   make conformance  the conformance kit against NODUS_SERVER (docs/conformance.md)
#   make completions  regenerate completions/ from bin/nodus (a test fails when stale)
#   make docs-kinds   regenerate docs/kinds.md's tables from the registry (a test fails when stale)
#   make screenshots  regenerate docs/console.png (and console-phone.png): the console after
#                     the README's first session, in Debian's chromium (scripts/screenshots.sh)
#   make clean
#
# Each library's flags come from pkg-config one package at a time, and only when a rule
# needs them: each object and binary asks only for the libraries it uses (the emulator
# libmicrohttpd, which nodus mcp's HTTP transport loads with dlopen: cmd/nodus/mcp/mhd.h;
# the CLI alone readline, the unit tests alone cmocka). A package pkg-config cannot find
# stops make with its name and the apt-get line that installs it.
# WERROR=1 (set by make check and make asan, so by CI) turns warnings into errors.

CC       ?= cc
PREFIX   ?= /usr/local
DESTDIR  ?=
BUILD    ?= build
BIN      ?= bin
VERSION  := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

# pkg-config is asked once per library and flag, and only when a rule needs the flags
# (so `make check` can install the packages before anything asks for them). A package it
# cannot find stops make, naming the package and the Debian package that provides it
# (one of those scripts/install-deps.sh installs), instead of building with empty flags.
PKG_CONFIG ?= pkg-config
# $(call pc,--cflags|--libs,PACKAGE,DEBIAN-PACKAGE): pkg-config's answer, or stop
pc = $(call pc_or_stop,$(shell $(PKG_CONFIG) $(1) $(2) 2>/dev/null || echo pc:failed),$(2),$(3),$(1))
pc_or_stop = $(if $(filter pc:failed,$(1)),$(call pc_stop,$(2),$(3),$(4)),$(1))
pc_stop = $(if $(shell command -v $(PKG_CONFIG) 2>/dev/null),$(call pc_missing,$(1),$(2),$(3)),$(pc_none))
pc_missing = $(shell printf '%s\n' \
    'error: the build needs $(1), and `$(PKG_CONFIG) $(3) $(1)` finds no such package' \
    'fix: apt-get install -y $(2)   (or scripts/install-deps.sh: every package the build and the tests need)' \
    >&2)$(error missing package $(2) (for $(1)))
pc_none = $(shell printf '%s\n' \
    'error: the build asks pkg-config for the flags of each library, and $(PKG_CONFIG) is not installed' \
    'fix: apt-get install -y pkg-config   (or scripts/install-deps.sh: every package the build and the tests need)' \
    >&2)$(error missing package pkg-config)
# libcurl: cflags only; pkg/client dlopens it for https:// (no link-time dependency).
CURL_CFLAGS    = $(eval CURL_CFLAGS := $$(call pc,--cflags,libcurl,libcurl4-openssl-dev))$(CURL_CFLAGS)
YAML_CFLAGS    = $(eval YAML_CFLAGS := $$(call pc,--cflags,yaml-0.1,libyaml-dev))$(YAML_CFLAGS)
YAML_LIBS      = $(eval YAML_LIBS := $$(call pc,--libs,yaml-0.1,libyaml-dev))$(YAML_LIBS)
JANSSON_CFLAGS = $(eval JANSSON_CFLAGS := $$(call pc,--cflags,jansson,libjansson-dev))$(JANSSON_CFLAGS)
JANSSON_LIBS   = $(eval JANSSON_LIBS := $$(call pc,--libs,jansson,libjansson-dev))$(JANSSON_LIBS)
MHD_CFLAGS     = $(eval MHD_CFLAGS := $$(call pc,--cflags,libmicrohttpd,libmicrohttpd-dev))$(MHD_CFLAGS)
MHD_LIBS       = $(eval MHD_LIBS := $$(call pc,--libs,libmicrohttpd,libmicrohttpd-dev))$(MHD_LIBS)
CMOCKA_CFLAGS  = $(eval CMOCKA_CFLAGS := $$(call pc,--cflags,cmocka,libcmocka-dev))$(CMOCKA_CFLAGS)
CMOCKA_LIBS    = $(eval CMOCKA_LIBS := $$(call pc,--libs,cmocka,libcmocka-dev))$(CMOCKA_LIBS)
# readline's .pc adds -D_XOPEN_SOURCE=600, which would lower _POSIX_C_SOURCE; take only
# its libraries. wslay ships no .pc file in Debian 12.
RL_LIBS        = $(eval RL_LIBS := $$(call pc,--libs,readline,libreadline-dev))$(RL_LIBS)
# what every user of libnodus.a links (pkg/ parses YAML and JSON)
PC_LIBS        = $(YAML_LIBS) $(JANSSON_LIBS)
WSLAY_LIBS := -lwslay

# Quiet rules unless V=1.
ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-6s %s\n' $(1) $(2)
endif

OPT      ?= -O2
WERROR   ?=
WARN     := -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wpointer-arith -Wvla -Wno-missing-field-initializers \
            $(if $(filter-out 0,$(WERROR)),-Werror)
CFLAGS   ?= $(OPT) -g
ALL_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L $(WARN) $(CFLAGS) $(EXTRA_CFLAGS) \
             -Ipkg -I$(BUILD)/gen -include pkg/util/banned.h \
             -DND_VERSION='"$(VERSION)"' $(PC_CFLAGS) -MMD -MP
# Each object's library headers (set per directory below; a link line asks for none).
PC_CFLAGS =
ALL_LDFLAGS = $(LDFLAGS) $(EXTRA_LDFLAGS)

LIB_SRCS  := $(sort $(wildcard pkg/*/*.c))
NODUS_SRCS:= $(sort $(wildcard cmd/nodus/*.c cmd/nodus/verbs/*.c cmd/nodus/mcp/*.c))
EMU_SRCS  := $(sort $(wildcard emulator/*.c emulator/*/*.c emulator/*/*/*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_HELP := $(filter-out $(UNIT_SRCS),$(wildcard tests/unit/*.c))

# Files embedded into the library as byte arrays (kind schemas, docs pages).
EMBED_KINDS := $(sort $(wildcard pkg/kinds/schemas/*.yaml))
GEN_SRCS  := $(BUILD)/gen/kind_schema_files.c

LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o) $(GEN_SRCS:%.c=%.o)
NODUS_OBJS:= $(NODUS_SRCS:%.c=$(BUILD)/%.o)
EMU_OBJS  := $(EMU_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/gen/console_files.o
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%)
UNIT_HELP_OBJS := $(UNIT_HELP:%.c=$(BUILD)/%.o)
HOSTILE_SEND := $(BUILD)/tests/hostile/send
JPATH     := $(BUILD)/tests/lib/jpath
SYNCORDER := $(BUILD)/tests/lib/syncorder.so
KINDS_DOC := $(BUILD)/scripts/kinds-doc
LIBNODUS  := $(BUILD)/libnodus.a

.PHONY: all check check-run asan demo screenshots browser-deps bench bench-mcp bench-tools install clean deps client-deps units \
    test-bins completions conformance install-bats docs-kinds torture torture-selftest
.DEFAULT_GOAL := all

all: $(BIN)/nodus $(BIN)/nodus-emulator
units: $(UNIT_BINS) $(HOSTILE_SEND) $(JPATH) $(SYNCORDER)
test-bins: units fuzz-bins $(KINDS_DOC)

# The library headers each object includes: jansson everywhere pkg/ is included, libyaml
# in pkg/yaml, curl in pkg/client, libmicrohttpd in the emulator and nodus mcp's HTTP
# transport (and bench/ceiling), cmocka in the unit tests. A link line asks only for the
# libraries of its binary.
JANSSON_USERS := pkg cmd emulator tests/unit tests/fuzz
$(JANSSON_USERS:%=$(BUILD)/%/%.o) $(BUILD)/bench/seed.o: PC_CFLAGS += $(JANSSON_CFLAGS)
$(BUILD)/pkg/yaml/%.o: PC_CFLAGS += $(YAML_CFLAGS)
$(BUILD)/pkg/client/%.o: PC_CFLAGS += $(CURL_CFLAGS)
$(BUILD)/emulator/%.o $(BUILD)/bench/ceiling.o: PC_CFLAGS += $(MHD_CFLAGS)
# nodus mcp --listen (cmd/nodus/mcp/http*.c): libmicrohttpd driven from the verb's loop
$(BUILD)/cmd/nodus/mcp/http%.o $(BUILD)/cmd/nodus/mcp/mhd.o: PC_CFLAGS += $(MHD_CFLAGS)
$(BUILD)/tests/unit/%.o: PC_CFLAGS += $(CMOCKA_CFLAGS)

# The layers, one direction of includes and of calls: pkg/ (-Ipkg, and build/gen) under
# cmd/ and emulator/, which never include each other. There is no -I.: each directory's
# include path below is the whole truth (tests/cli/45-layers.bats compiles an include
# upwards with `make try-compile` and proves it fails). The emulator's layers, each
# compiled with the include paths of itself and the layers under it:
#   store/  files, journal, indexes, checkpoint        (nothing of the emulator)
#   http/   the transport: libmicrohttpd, TLS, frames  (nothing of the emulator)
#   core/   the server's state, object commits, feed   (store, http)
#   sim/    the scheduler, controllers, runtime, prices (core, store, http)
#   api/    the API: router, handlers, watches, exec   (sim, core, store, http)
#   emulator/*.c  main, options, server: the wiring    (all)
EM_INC_STORE := -Iemulator/store
EM_INC_HTTP  := -Iemulator/http
EM_INC_CORE  := -Iemulator/core $(EM_INC_STORE) $(EM_INC_HTTP)
EM_INC_SIM   := -Iemulator/sim $(EM_INC_CORE)
EM_INC_API   := -Iemulator/api $(EM_INC_SIM)
EM_LAYER_INC = $(strip \
    $(if $(filter $(BUILD)/emulator/store/%,$@),$(EM_INC_STORE), \
    $(if $(filter $(BUILD)/emulator/http/%,$@),$(EM_INC_HTTP), \
    $(if $(filter $(BUILD)/emulator/core/%,$@),$(EM_INC_CORE), \
    $(if $(filter $(BUILD)/emulator/sim/%,$@),$(EM_INC_SIM), \
    $(EM_INC_API))))))
$(BUILD)/emulator/%.o: ALL_CFLAGS += $(EM_LAYER_INC)
# The CLI: one file per verb in cmd/nodus/verbs/, named for the verb; what verbs share in
# cmd/nodus/ (both include its headers by name).
$(BUILD)/cmd/nodus/%.o: ALL_CFLAGS += -Icmd/nodus

# make try-compile TRY_DIR="DIR..." TRY_SRC=FILE: FILE compiled (syntax only) with exactly
# the flags of an object in each DIR (pkg/util, cmd/nodus, emulator/store, ...), in order
# (make -n prints the commands): the layers' test.
.PHONY: FORCE try-compile
FORCE:
try-compile: $(foreach d,$(TRY_DIR),$(BUILD)/$(d)/try-compile.o) ;
$(BUILD)/%/try-compile.o: FORCE
	$(Q)$(CC) $(filter-out -MMD -MP,$(ALL_CFLAGS)) -fsyntax-only $(TRY_SRC)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The console's files (emulator/console/, its vendored libraries in vendor/), compiled
# into nodus-emulator only (emulator/api/console.c serves them at /console/NAME).
EMBED_CONSOLE := $(sort $(wildcard $(addprefix emulator/console/,*.html *.css *.js *.svg) \
    $(addprefix emulator/console/vendor/,*.css *.js)))
$(BUILD)/gen/console_files.c: $(EMBED_CONSOLE) scripts/embed.sh
	@mkdir -p $(@D)
	$(call say,EMBED,$@)
	$(Q)scripts/embed.sh em_console_files $(EMBED_CONSOLE) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/kind_schema_files.c: $(EMBED_KINDS) scripts/embed.sh
	@mkdir -p $(@D)
	$(call say,EMBED,$@)
	$(Q)scripts/embed.sh nd_kind_schema_files $(EMBED_KINDS) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(call say,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-overlength-strings -c -o $@ $<

$(LIBNODUS): $(LIB_OBJS)
	@rm -f $@
	$(call say,AR,$@)
	$(Q)ar rcs $@ $^

$(BIN)/nodus: $(NODUS_OBJS) $(LIBNODUS)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(NODUS_OBJS) $(LIBNODUS) $(ALL_LDFLAGS) $(PC_LIBS) $(RL_LIBS) $(WSLAY_LIBS) -lpthread

$(BIN)/nodus-emulator: $(EMU_OBJS) $(LIBNODUS)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(EMU_OBJS) $(LIBNODUS) $(ALL_LDFLAGS) $(MHD_LIBS) $(PC_LIBS) $(WSLAY_LIBS) -lutil -lpthread

UNIT_STORE_BINS := $(filter $(BUILD)/tests/unit/test_store_% $(BUILD)/tests/unit/test_events_% \
    $(BUILD)/tests/unit/test_owners $(BUILD)/tests/unit/test_owners_%,$(UNIT_BINS))
UNIT_PARAMS_BIN := $(BUILD)/tests/unit/test_params
# the emulator tests below link the objects they test (and no server)
UNIT_EMU_BINS := $(BUILD)/tests/unit/test_budget_math $(BUILD)/tests/unit/test_pricebook \
    $(BUILD)/tests/unit/test_route $(BUILD)/tests/unit/test_route_table \
    $(BUILD)/tests/unit/test_server_state $(BUILD)/tests/unit/test_due \
    $(BUILD)/tests/unit/test_money_record $(BUILD)/tests/unit/test_table_cells
UNIT_FLAGS_BIN := $(BUILD)/tests/unit/test_flags
STORE_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard emulator/store/*.c)))

$(filter-out $(UNIT_STORE_BINS) $(UNIT_PARAMS_BIN) $(UNIT_EMU_BINS) $(UNIT_FLAGS_BIN),$(UNIT_BINS)): $(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(UNIT_HELP_OBJS) $(LIBNODUS)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(UNIT_HELP_OBJS) $(LIBNODUS) $(ALL_LDFLAGS) $(CMOCKA_LIBS) $(PC_LIBS) $(WSLAY_LIBS)

# the store layer's tests drive emulator/store/ directly, without HTTP
$(BUILD)/tests/unit/test_store_%.o $(BUILD)/tests/unit/test_events_%.o: ALL_CFLAGS += -Iemulator/store
$(BUILD)/tests/unit/test_owners.o $(BUILD)/tests/unit/test_owners_%.o: ALL_CFLAGS += -Iemulator/store
# the one-pass reads' unit tests share their checks with the fuzz targets (tests/fuzz/objscan_same.h,
# events_same.h)
$(BUILD)/tests/unit/test_store_objscan.o $(BUILD)/tests/unit/test_events_scan.o: ALL_CFLAGS += -Itests/fuzz
$(UNIT_STORE_BINS): $(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(STORE_OBJS) $(UNIT_HELP_OBJS) $(LIBNODUS)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(STORE_OBJS) $(UNIT_HELP_OBJS) $(LIBNODUS) $(ALL_LDFLAGS) $(CMOCKA_LIBS) $(PC_LIBS) -lpthread

# the query parameter table (emulator/api/query.c) needs nothing else of the server
$(BUILD)/tests/unit/test_params.o: ALL_CFLAGS += -Iemulator/api
$(UNIT_PARAMS_BIN): $(BUILD)/tests/unit/test_params.o $(BUILD)/emulator/api/query.o $(UNIT_HELP_OBJS) $(LIBNODUS)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/emulator/api/query.o $(UNIT_HELP_OBJS) $(LIBNODUS) $(ALL_LDFLAGS) $(CMOCKA_LIBS) $(PC_LIBS)

# the emulator's arithmetic, without the server: Budgets (sim/controllers/budget_math.c)
UNIT_BUDGET_BIN := $(BUILD)/tests/unit/test_budget_math
$(BUILD)/tests/unit/test_budget_math.o: ALL_CFLAGS += $(EM_INC_SIM)
$(UNIT_BUDGET_BIN): $(BUILD)/tests/unit/test_budget_math.o $(BUILD)/emulator/sim/controllers/budget_math.o $(UNIT_HELP_OBJS) $(LIBNODUS)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/emulator/sim/controllers/budget_math.o $(UNIT_HELP_OBJS) $(LIBNODUS) $(ALL_LDFLAGS) $(CMOCKA_LIBS) $(PC_LIBS)

# Prices (sim/pricebook.c) on a bare server: the store, the clock, and the test's own
# em_sim_touch_all
UNIT_PRICEBOOK_BIN := $(BUILD)/tests/unit/test_pricebook
UNIT_PRICEBOOK_OBJS := $(BUILD)/emulator/sim/pricebook.o $(BUILD)/emulator/core/clock.o $(STORE_OBJS)
$(BUILD)/tests/unit/test_pricebook.o: ALL_CFLAGS += $(EM_INC_SIM)
$(UNIT_PRICEBOOK_BIN): $(BUILD)/tests/unit/test_pricebook.o $(UNIT_PRICEBOOK_OBJS) $(UNIT_HELP_OBJS) $(LIBNODUS)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(UNIT_PRICEBOOK_OBJS) $(UNIT_HELP_OBJS) $(LIBNODUS) $(ALL_LDFLAGS) $(CMOCKA_LIBS) $(PC_LIBS) -lpthread

# Each object's money as integers (sim/controllers/money.c), alone
UNIT_MONEY_BIN := $(BUILD)/tests/unit/test_money_record
UNIT_MONEY_OBJS := $(BUILD)/emulator/sim/controllers/money.o
$(BUILD)/tests/unit/test_money_record.o: ALL_CFLAGS += $(EM_INC_SIM)
$(UNIT_MONEY_BIN): $(BUILD)/tests/unit/test_money_record.o $(UNIT_MONEY_OBJS) $(UNIT_HELP_OBJS) $(LIBNODUS)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(UNIT_MONEY_OBJS) $(UNIT_HELP_OBJS) $(LIBNODUS) $(ALL_LDFLAGS) $(CMOCKA_LIBS) $(PC_LIBS)

# Each revision's Table row (api/table_cells.c), with the bytes it keys on and the
# entries whose trees a row not cached is made from
UNIT_CELLS_BIN := $(BUILD)/tests/unit/test_table_cells
UNIT_CELLS_OBJS := $(BUILD)/emulator/api/table_cells.o $(BUILD)/emulator/store/bytes.o \
    $(BUILD)/emulator/store/entry.o
$(BUILD)/tests/unit/test_table_cells.o: ALL_CFLAGS += $(EM_INC_API)
$(UNIT_CELLS_BIN): $(BUILD)/tests/unit/test_table_cells.o $(UNIT_CELLS_OBJS) $(UNIT_HELP_OBJS) $(LIBNODUS)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(UNIT_CELLS_OBJS) $(UNIT_HELP_OBJS) $(LIBNODUS) $(ALL_LDFLAGS) $(CMOCKA_LIBS) $(PC_LIBS) -lpthread

# The scheduler's due queue (sim/due.c) and the index it keys objects with
UNIT_DUE_BIN := $(BUILD)/tests/unit/test_due
UNIT_DUE_OBJS := $(BUILD)/emulator/sim/due.o $(BUILD)/emulator/store/index.o
$(BUILD)/tests/unit/test_due.o: ALL_CFLAGS += $(EM_INC_SIM)
$(UNIT_DUE_BIN): $(BUILD)/tests/unit/test_due.o $(UNIT_DUE_OBJS) $(UNIT_HELP_OBJS) $(LIBNODUS)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(UNIT_DUE_OBJS) $(UNIT_HELP_OBJS) $(LIBNODUS) $(ALL_LDFLAGS) $(CMOCKA_LIBS) $(PC_LIBS)

# Routing (api/route.c, api/path.c): the method and the path alone; Accept (api/accept.c).
# route.c names the reviews (auth_review.c), which reach the rest of the server: the
# emulator's objects are linked, and no server is started.
UNIT_ROUTE_BINS := $(BUILD)/tests/unit/test_route $(BUILD)/tests/unit/test_route_table
UNIT_ROUTE_OBJS := $(filter-out $(BUILD)/emulator/main.o,$(EMU_OBJS))
$(UNIT_ROUTE_BINS:%=%.o): ALL_CFLAGS += $(EM_INC_API)
$(UNIT_ROUTE_BINS): $(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(UNIT_ROUTE_OBJS) $(UNIT_HELP_OBJS) $(LIBNODUS)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(UNIT_ROUTE_OBJS) $(UNIT_HELP_OBJS) $(LIBNODUS) $(ALL_LDFLAGS) $(CMOCKA_LIBS) $(MHD_LIBS) $(PC_LIBS) $(WSLAY_LIBS) -lutil -lpthread

# docs/kinds.md's tables from the registry (scripts/kinds-doc.c; make docs-kinds)
$(BUILD)/scripts/kinds-doc.o: PC_CFLAGS += $(JANSSON_CFLAGS)
$(KINDS_DOC): $(BUILD)/scripts/kinds-doc.o $(LIBNODUS)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(LIBNODUS) $(ALL_LDFLAGS) $(PC_LIBS)

# The CLI's flag tables and parser (cmd/nodus/flags.c): every object of the CLI, its main
# renamed so that the test's is the one (the command table is in main.c)
UNIT_FLAGS_OBJS := $(filter-out $(BUILD)/cmd/nodus/main.o,$(NODUS_OBJS)) $(BUILD)/tests/unit/nodus_main.o
$(BUILD)/tests/unit/test_flags.o: ALL_CFLAGS += -Icmd/nodus
$(BUILD)/tests/unit/nodus_main.o: $(BUILD)/cmd/nodus/main.o
	$(Q)objcopy --redefine-sym main=nodus_main $< $@
$(UNIT_FLAGS_BIN): $(BUILD)/tests/unit/test_flags.o $(UNIT_FLAGS_OBJS) $(UNIT_HELP_OBJS) $(LIBNODUS)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(UNIT_FLAGS_OBJS) $(UNIT_HELP_OBJS) $(LIBNODUS) $(ALL_LDFLAGS) $(CMOCKA_LIBS) $(MHD_LIBS) $(PC_LIBS) $(RL_LIBS) $(WSLAY_LIBS)

# Two servers in one process share no state (api/, sim/, http/): the emulator's library
UNIT_SERVER_BIN := $(BUILD)/tests/unit/test_server_state
$(BUILD)/tests/unit/test_server_state.o: ALL_CFLAGS += $(EM_INC_API)
$(UNIT_SERVER_BIN): $(BUILD)/tests/unit/test_server_state.o $(BUILD)/libnodus-emulator.a $(UNIT_HELP_OBJS) $(LIBNODUS)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(UNIT_HELP_OBJS) $(BUILD)/libnodus-emulator.a $(LIBNODUS) \
	    $(ALL_LDFLAGS) $(CMOCKA_LIBS) $(MHD_LIBS) $(PC_LIBS) $(WSLAY_LIBS) -lutil -lpthread

# the hostile corpus's driver (tests/hostile): sockets only, no library
$(HOSTILE_SEND): $(BUILD)/tests/hostile/send.o
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS)

# the suites' body_json (tests/lib/jpath.c): jq -r for a plain path, without jq's start
$(BUILD)/tests/lib/jpath.o: PC_CFLAGS += $(JANSSON_CFLAGS)
$(JPATH): $(BUILD)/tests/lib/jpath.o
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) $(JANSSON_LIBS) -lm

# 67-flushfiles' LD_PRELOAD shim (tests/lib/syncorder.c): the order of an emulator's file
# writes, flushes and journal markers. None of the project's flags (no banned.h, no
# sanitizer: it goes into the ASan build's emulator too)
$(SYNCORDER): tests/lib/syncorder.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -std=c11 $(WARN) $(OPT) -g -fPIC -shared -o $@ $< -ldl -lpthread

deps:
	@scripts/install-deps.sh

# Debian's chromium, for the console's browser tests (tests/clients/1x-console*) and make
# screenshots; make check installs it beside the build (the download is off the critical
# path), after deps (one apt-get at a time).
browser-deps: | deps
	@scripts/install-deps.sh browser

# The client matrix's packages (tests/clients: @kubernetes/client-node, pinned by its lock;
# never a dependency of nodus): npm ci only when node_modules is missing or the lock changed.
CLIENTS_STAMP := tests/clients/node_modules/.package-lock.json
client-deps: $(CLIENTS_STAMP)

$(CLIENTS_STAMP): tests/clients/package.json tests/clients/package-lock.json | deps
	$(call say,NPM,tests/clients)
	$(Q)npm ci --prefix tests/clients --no-audit --no-fund --loglevel=error
	$(Q)touch $@

# `check` sets up first, then builds (warnings are errors) and runs in a fresh make so
# pkg-config sees what the set-up installed. The build uses every core unless make was
# given -j (CI runs a plain `make check`: one job left a core idle for a minute), while
# npm fetches the client matrix's packages beside it (about 90 s, nearly all waiting on
# the network, that used to come before the build).
# (The line names $(MAKE) itself, so that make -n runs the sub-makes; it fails if either
# the client packages, in the background, or the build failed.)
CHECK_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 2))
check: deps
	@$(MAKE) --no-print-directory client-deps & npm=$$!; \
	$(MAKE) --no-print-directory browser-deps & browser=$$!; \
	$(MAKE) $(CHECK_JOBS) --no-print-directory WERROR=1 all test-bins; rc=$$?; \
	wait $$npm && wait $$browser && [ $$rc = 0 ]
	@$(MAKE) --no-print-directory check-run

check-run:
	@ND_BUILD=$(BUILD) ND_BIN=$(BIN) tests/run-tests.sh

# make conformance: the kit of tests/conformance (docs/conformance.md) against the server
# NODUS_SERVER names (with NODUS_TOKEN, NODUS_CA, NODUS_INSECURE=1); it needs no build.
conformance:
	@if [ -z "$$NODUS_SERVER" ]; then \
	    echo "make conformance: NODUS_SERVER is not set: name the server to test" >&2; \
	    echo "fix: NODUS_SERVER=https://nodus.example.com make conformance" >&2; \
	    echo "     (a local emulator: nodus emulator start; eval \"\$$(nodus emulator env)\"; make conformance)" >&2; \
	    exit 2; fi
	@ND_SUITES=conformance ND_BIN=. tests/run-tests.sh

ASAN_VARS := BUILD=build-asan BIN=build-asan/bin OPT=-O1 \
    EXTRA_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
    EXTRA_LDFLAGS="-fsanitize=address,undefined"
asan: deps
	@$(MAKE) --no-print-directory client-deps & npm=$$!; \
	$(MAKE) --no-print-directory browser-deps & browser=$$!; \
	$(MAKE) $(CHECK_JOBS) --no-print-directory $(ASAN_VARS) WERROR=1 all test-bins; rc=$$?; \
	wait $$npm && wait $$browser && [ $$rc = 0 ]
	@$(MAKE) --no-print-directory $(ASAN_VARS) check-run

demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh

# make screenshots: docs/console.png and docs/console-phone.png, taken of the console after
# the README's first session by Debian's chromium through tests/clients' playwright-core.
screenshots: all client-deps browser-deps
	@scripts/screenshots.sh docs

# make bench: the tools of bench/ (C, built here), json-server from npm under bench/
# (pinned in bench/package.json; not a dependency of nodus), then bench/run.sh.
# BENCH_QUICK=1 for a ~2-minute subset; BENCH_OUT=DIR to write the report elsewhere;
# BENCH_ONLY=GROUP,... for some groups of rows alone (bench/run.sh lists them).
BENCH_TOOLS := $(addprefix $(BUILD)/bench/,ceiling fanout load fsyncfloor watchers seed waitready)

$(BUILD)/bench/%.o: bench/%.c
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/bench/ceiling: $(BUILD)/bench/ceiling.o
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(ALL_LDFLAGS) $(MHD_LIBS) -lpthread

$(BUILD)/bench/seed: $(BUILD)/bench/seed.o
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(ALL_LDFLAGS) $(PC_LIBS)

$(BUILD)/bench/fsyncfloor: $(BUILD)/bench/fsyncfloor.o
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(ALL_LDFLAGS)

$(BUILD)/bench/fanout: $(BUILD)/bench/fanout.o
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(ALL_LDFLAGS) -lpthread

$(BUILD)/bench/load $(BUILD)/bench/watchers $(BUILD)/bench/waitready: $(BUILD)/bench/%: $(BUILD)/bench/%.o $(BUILD)/bench/httpc.o
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(ALL_LDFLAGS) -lpthread

bench-tools: $(BENCH_TOOLS)

bench/node_modules/.package-lock.json: bench/package.json
	$(call say,NPM,bench/node_modules)
	$(Q)npm install --prefix bench --no-audit --no-fund --loglevel=error >/dev/null

bench:
	@scripts/install-deps.sh bench
	@$(MAKE) --no-print-directory all bench-tools bench/node_modules/.package-lock.json client-deps
	@ND_BUILD=$(BUILD) ND_BIN=$(BIN) bench/run.sh

# one section alone: nodus mcp vs kubernetes-mcp-server (bench/mcp.sh rewrites only it)
bench-mcp:
	@scripts/install-deps.sh bench
	@$(MAKE) --no-print-directory all bench/node_modules/.package-lock.json client-deps
	@ND_BIN=$(BIN) bench/mcp.sh

# make torture: the history check of tests/torture (docs/torture.md): run.py drives 16
# clients against the emulator, killed with SIGKILL every few seconds, for TORTURE_SECONDS
# in each of TORTURE_MODES; check.py names every anomaly of the recorded history.
# make torture-selftest: the emulator built once per break of emulator/store/torture.h
# (journal.c, store.c and watch.c again with -DEM_TORTURE_BREAK=N, in $(BUILD)/torture-break-N/),
# each run briefly, and the anomaly the check must name.
TORTURE_SECONDS ?= 600
TORTURE_MODES ?= always batch
TORTURE_OUT ?= $(BUILD)/torture
TORTURE_BREAK_SRCS := emulator/store/journal.c emulator/store/store.c emulator/api/watch.c
TORTURE_BREAK_BINS := $(foreach n,1 2 3 4 5,$(BUILD)/torture-break-$(n)/nodus-emulator)

torture: all
	@TORTURE_SECONDS=$(TORTURE_SECONDS) TORTURE_MODES="$(TORTURE_MODES)" \
	    tests/torture/torture.sh $(BIN)/nodus-emulator $(TORTURE_OUT)

torture-selftest: $(TORTURE_BREAK_BINS)
	@tests/torture/selftest.sh $(BUILD) $(TORTURE_OUT)

$(BUILD)/torture-break-%/nodus-emulator: $(EMU_OBJS) $(LIBNODUS) $(TORTURE_BREAK_SRCS) \
    emulator/store/torture.h
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)for s in $(TORTURE_BREAK_SRCS); do \
	    $(CC) $(ALL_CFLAGS) $(EM_INC_API) $(JANSSON_CFLAGS) $(MHD_CFLAGS) -DEM_TORTURE_BREAK=$* \
	        -c -o $(@D)/$$(basename $$s .c).o $$s || exit 1; done
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(filter-out $(TORTURE_BREAK_SRCS:%.c=$(BUILD)/%.o),$(EMU_OBJS)) \
	    $(addprefix $(@D)/,$(notdir $(TORTURE_BREAK_SRCS:.c=.o))) $(LIBNODUS) $(ALL_LDFLAGS) \
	    $(MHD_LIBS) $(PC_LIBS) $(WSLAY_LIBS) -lutil -lpthread

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/man/man5 \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	    $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions \
	    $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $(BIN)/nodus $(BIN)/nodus-emulator $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(wildcard man/*.1) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(wildcard man/*.5) $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 644 completions/nodus.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/nodus
	install -m 644 completions/_nodus $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_nodus
	install -m 644 completions/nodus.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/nodus.fish
	@$(MAKE) --no-print-directory install-bats

# the bats helper for users' suites (docs/testing.md)
install-bats:
	install -d $(DESTDIR)$(PREFIX)/share/nodus/bats/nodus
	install -m 644 tests/lib/nodus-bats/nodus.bash $(DESTDIR)$(PREFIX)/share/nodus/bats/nodus.bash
	install -m 644 tests/lib/nodus-bats/nodus.bash $(DESTDIR)$(PREFIX)/share/nodus/bats/nodus/load.bash

docs-kinds: $(KINDS_DOC)
	@$(KINDS_DOC) < docs/kinds.md > docs/kinds.md.tmp || { rm -f docs/kinds.md.tmp; exit 1; }
	@mv docs/kinds.md.tmp docs/kinds.md

completions: $(BIN)/nodus
	$(BIN)/nodus completion bash > completions/nodus.bash
	$(BIN)/nodus completion zsh > completions/_nodus
	$(BIN)/nodus completion fish > completions/nodus.fish

clean:
	rm -rf build build-asan bin

# ---- fuzzing ----------------------------------------------------------------------------
# tests/fuzz/fuzz_NAME.c each define LLVMFuzzerTestOneInput. `make test-bins` links them
# with tests/fuzz/standalone.c and the normal compiler, and `make check` replays their seed
# corpora and regression inputs (tests/fuzz/regress.sh). `make fuzz` (needs clang:
# scripts/install-deps.sh fuzz installs it) builds them again in $(FUZZ_BUILD)/ with
# libFuzzer, ASan and UBSan and runs each for FUZZ_SECONDS (tests/fuzz/run.sh);
# FUZZ_TARGETS="yaml json" runs a subset.
FUZZ_SRCS    := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES   := $(FUZZ_SRCS:tests/fuzz/fuzz_%.c=%)
FUZZ_BINS    := $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/fuzz_%)
FUZZ_BUILD   ?= build-fuzz
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= $(FUZZ_NAMES)
FUZZ_ENGINE  ?= standalone
EMU_LIB      := $(BUILD)/libnodus-emulator.a
ifeq ($(FUZZ_ENGINE),libfuzzer)
FUZZ_MAIN    :=
FUZZ_LINK    := -fsanitize=fuzzer
else
FUZZ_MAIN    := $(BUILD)/tests/fuzz/standalone.o
FUZZ_LINK    :=
endif
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

.PHONY: fuzz fuzz-bins clean-fuzz
fuzz-bins: $(FUZZ_BINS)
clean: clean-fuzz

$(BUILD)/tests/fuzz/%.o: ALL_CFLAGS += $(EM_INC_API) -Itests/fuzz

$(EMU_LIB): $(filter-out $(BUILD)/emulator/main.o,$(EMU_OBJS))
	@rm -f $@
	$(call say,AR,$@)
	$(Q)ar rcs $@ $^

$(FUZZ_BINS): $(BUILD)/tests/fuzz/%: $(BUILD)/tests/fuzz/%.o $(FUZZ_MAIN) $(EMU_LIB) $(LIBNODUS)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(FUZZ_LINK) -o $@ $< $(FUZZ_MAIN) $(FUZZ_EXTRA) $(EMU_LIB) $(LIBNODUS) \
	    $(ALL_LDFLAGS) $(MHD_LIBS) $(PC_LIBS) $(WSLAY_LIBS) -lutil -lpthread

# fuzz_mcp_message links nodus's objects: the MCP session and its tools (main.c's command
# table with its main renamed, the driver has one)
FUZZ_MCP := $(BUILD)/tests/fuzz/fuzz_mcp_message
FUZZ_MCP_OBJS := $(filter-out $(BUILD)/cmd/nodus/main.o,$(NODUS_OBJS)) $(BUILD)/tests/fuzz/nodus_main.o
$(FUZZ_MCP).o: ALL_CFLAGS += -Icmd/nodus -Icmd/nodus/mcp
$(FUZZ_MCP): FUZZ_EXTRA = $(FUZZ_MCP_OBJS) $(RL_LIBS)
$(FUZZ_MCP): $(FUZZ_MCP_OBJS)
$(BUILD)/tests/fuzz/nodus_main.o: cmd/nodus/main.c
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -Icmd/nodus -Dmain=nd_nodus_main -Wno-missing-prototypes -c -o $@ $<

fuzz:
	@scripts/install-deps.sh fuzz
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) FUZZ_ENGINE=libfuzzer \
	    OPT=-O1 EXTRA_CFLAGS="-fsanitize=fuzzer-no-link $(FUZZ_SAN)" \
	    EXTRA_LDFLAGS="$(FUZZ_SAN)" fuzz-bins
	@FUZZ_BIN_DIR=$(FUZZ_BUILD)/tests/fuzz FUZZ_SECONDS=$(FUZZ_SECONDS) \
	    tests/fuzz/run.sh $(FUZZ_TARGETS)

clean-fuzz:
	rm -rf $(FUZZ_BUILD)

-include $(FUZZ_BINS:=.d) $(FUZZ_MAIN:.o=.d) $(BUILD)/tests/fuzz/nodus_main.d
# ---- end of fuzzing ---------------------------------------------------------------------

-include $(LIB_OBJS:.o=.d) $(NODUS_OBJS:.o=.d) $(EMU_OBJS:.o=.d) $(UNIT_BINS:=.d) $(UNIT_HELP_OBJS:.o=.d) \
    $(HOSTILE_SEND).d
