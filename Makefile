# plateau: one non-recursive GNU Makefile.  `make V=1` shows the commands.
#   make            build/lib/libplateau.a, build/plateau, build/plateaud
#   make demo       install what is missing, build, run a real short run
#   make check      install what is missing, build, run every test; and
#                   build everything again under ASan+UBSan in build-san/
#                   (SAN_B) to run the unit tests and the daemon tests of
#                   SAN_TESTS on it (daemon-faults.t and fuzz.t run only
#                   there; make check-san alone: only that part); its
#                   last line is "make check: N passed, N failed, N skipped"
#   make bench      `plateau run` (the product path) against fio, side by side
#   make install    PREFIX=/usr/local DESTDIR= (make uninstall: the same files)
#
# Test settings, on the command line or in the environment (the tests read
# them from the environment):
#   FUZZ_CASES=N    fuzz.t: N mutated plans and N socket requests instead of
#                   30000 and 3000 (make check FUZZ_CASES=100000); then no
#                   time bound unless FUZZ_SECONDS=S (default 20 s each)
#   FUZZ_SEED=N     fuzz.t's seed (default 1: the same cases every time)
#   PLATEAU_FAULT_SEED=N, PLATEAU_FAULT_KILLS=N   daemon-faults.t's seed
#                   (default: the time) and number of kills (default 24)

B       ?= build
PREFIX  ?= /usr/local
DESTDIR ?=
VERSION := 0.1.0

PKGS    := liburing libsystemd sqlite3 libnvme json-c
CC      ?= gcc
CFLAGS  ?= -O2 -g
# -Wall -Wextra plus OpenBSD's usual set (usr.sbin/ntpd/Makefile)
WARN    := -Wall -Wextra -Werror -Wstrict-prototypes -Wmissing-prototypes \
           -Wmissing-declarations -Wshadow -Wpointer-arith -Wcast-qual -Wsign-compare
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   = $(shell pkg-config --libs $(PKGS))

ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
endif

ALL_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS) -D_GNU_SOURCE \
             -DPLATEAU_VERSION='"$(VERSION)"' -Ilib -Itests -I$(B)/gen $(PKG_CFLAGS) -pthread -MMD -MP
ALL_LDFLAGS = $(LDFLAGS) $(SANFLAGS) -pthread
LIBS    = $(PKG_LIBS) -lm

ifneq ($(V),1)
Q := @
quiet = printf '  %-7s %s\n' $(1) $(2);
endif

LIB_SRC    := $(wildcard lib/*.c)
DAEMON_SRC := $(wildcard daemon/*.c)
TOOLS_SRC  := $(wildcard tools/*.c)
UNIT_SRC   := $(wildcard tests/unit/*.c)
HELPER_SRC := $(wildcard tests/helpers/*.c)
MOCK_SRC   := $(wildcard tests/mock/*.c)
SCHEMA     := $(sort $(wildcard schema/[0-9][0-9][0-9]-*.sql))
ASSETS     := $(sort $(wildcard tools/assets/*))

LIBA       := $(B)/lib/libplateau.a
LIB_OBJ    := $(LIB_SRC:%.c=$(B)/%.o) $(B)/gen/schema.o
DAEMON_OBJ := $(DAEMON_SRC:%.c=$(B)/%.o)
TOOLS_OBJ  := $(TOOLS_SRC:%.c=$(B)/%.o) $(B)/gen/assets.o
TAP_OBJ    := $(B)/tests/tap.o
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/unit/%)
HELPER_BIN := $(HELPER_SRC:tests/helpers/%.c=$(B)/tests/helpers/%)
MOCK_SO    := $(MOCK_SRC:tests/mock/%.c=$(B)/tests/mock/%.so)

.SECONDARY:
.PHONY: all unit tests check check-unit check-san check-layers check-format deps deps-check demo bench install uninstall clean format
all: $(LIBA) $(B)/plateau $(B)/plateaud

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(call quiet,CC,$<)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/gen/%.o: $(B)/gen/%.c
	$(Q)$(call quiet,CC,$<)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# SQL migrations and report assets are compiled into the binaries, so an
# installed plateau never depends on finding them on disk.
$(B)/gen/schema.c: $(SCHEMA) tools/embed.sh
	@mkdir -p $(dir $@)
	$(Q)$(call quiet,EMBED,$@)sh tools/embed.sh store_schema $@ $(SCHEMA)

$(B)/gen/assets.c: $(ASSETS) tools/embed.sh
	@mkdir -p $(dir $@)
	$(Q)$(call quiet,EMBED,$@)sh tools/embed.sh assets $@ $(ASSETS)

$(LIBA): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(Q)$(call quiet,AR,$@)rm -f $@ && ar rcs $@ $^

$(B)/plateau: $(TOOLS_OBJ) $(LIBA)
	$(Q)$(call quiet,LD,$@)$(CC) $(ALL_LDFLAGS) -o $@ $(TOOLS_OBJ) $(LIBA) $(LIBS)

$(B)/plateaud: $(DAEMON_OBJ) $(LIBA)
	$(Q)$(call quiet,LD,$@)$(CC) $(ALL_LDFLAGS) -o $@ $(DAEMON_OBJ) $(LIBA) $(LIBS)

$(B)/tests/unit/%: $(B)/tests/unit/%.o $(TAP_OBJ) $(LIBA)
	$(Q)$(call quiet,LD,$@)$(CC) $(ALL_LDFLAGS) -o $@ $< $(TAP_OBJ) $(LIBA) $(LIBS)

$(B)/tests/helpers/%: $(B)/tests/helpers/%.o $(TAP_OBJ) $(LIBA)
	$(Q)$(call quiet,LD,$@)$(CC) $(ALL_LDFLAGS) -o $@ $< $(TAP_OBJ) $(LIBA) $(LIBS)

# LD_PRELOAD interposers (ioctl mock for libnvme); never sanitized.
$(B)/tests/mock/%.so: tests/mock/%.c
	@mkdir -p $(dir $@)
	$(Q)$(call quiet,CC,$<)$(CC) -std=gnu11 $(WARN) $(CFLAGS) -D_GNU_SOURCE -Ilib -fPIC -shared -o $@ $< -ldl

unit: $(UNIT_BIN)
tests: all $(UNIT_BIN) $(HELPER_BIN) $(MOCK_SO)

deps:
	$(Q)sh tools/deps.sh build
deps-check:
	$(Q)sh tools/deps.sh check

# Every test is its own TAP program; prove runs them.  Integration tests find
# the binaries through PLATEAU_BUILD.
PROVE ?= prove
export FUZZ_CASES FUZZ_SECONDS FUZZ_SEED PLATEAU_FAULT_SEED PLATEAU_FAULT_KILLS

# The sanitizer build: every binary, helpers included (the LD_PRELOAD mock
# is never sanitized, so the tests that use it are not in SAN_TESTS).
SAN_B     ?= build-san
# daemon-kill.t: resume after kill -9 in every phase; daemon-faults.t: two
# dozen kills at random points; fuzz.t: the plan parser and the control
# socket under mutated input.  These two run only here, not twice.
# (daemon-protocol.t is left out: it runs the CLI and ctl-send some hundred
# times, and each sanitized process costs ~150 ms: 90 s instead of 11.)
SAN_TESTS := tests/integration/daemon-kill.t tests/integration/daemon-faults.t \
             tests/integration/fuzz.t
SAN_ONLY  := tests/integration/daemon-faults.t tests/integration/fuzz.t
# An ASan or UBSan error ends the process with a non-zero status, and
# LeakSanitizer checks each process at its exit (tests/lsan.supp: what is
# known to leak, and why); every report also goes to $(SAN_B)/sanitizer/,
# and check-san fails when a test ran a process that reported anything
# (daemon-faults.t and fuzz.t send their daemon's reports to its log and
# check it themselves).
SAN_ENV    = ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:log_path=$(abspath $(SAN_B))/sanitizer/asan \
             UBSAN_OPTIONS=print_stacktrace=1:log_path=$(abspath $(SAN_B))/sanitizer/ubsan \
             LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0

# Every TAP stream is also dumped under $(B)/tap (PERL_TEST_HARNESS_DUMP_TAP),
# and the last line is tools/tap-summary.sh's "N passed, N failed, N skipped"
# over all of them; a failing part does not stop the others.
TAP_DIR := $(abspath $(B))/tap
# lib/ is a stack of layers (docs/design.md, Layers): no file includes a
# header of a layer above its own
check-layers:
	$(Q)sh tools/layers.sh

check: deps-check check-layers check-format
	$(Q)$(MAKE) --no-print-directory tests
	$(Q)rm -rf $(TAP_DIR); st=0; \
	$(MAKE) --no-print-directory check-san TAP_DUMP=$(TAP_DIR)/san || st=1; \
	PLATEAU_BUILD=$(abspath $(B)) PLATEAU_SRC=$(CURDIR) PERL_TEST_HARNESS_DUMP_TAP=$(TAP_DIR)/main \
		$(PROVE) $(PROVE_FLAGS) $(UNIT_BIN) \
		$(filter-out $(SAN_ONLY),$(sort $(wildcard tests/integration/*.t tests/vm/*.t))) || st=1; \
	sh tools/tap-summary.sh $(TAP_DIR); exit $$st

check-unit: tests
	$(Q)PLATEAU_BUILD=$(abspath $(B)) PLATEAU_SRC=$(CURDIR) $(PROVE) $(PROVE_FLAGS) $(UNIT_BIN)

check-san:
	$(Q)$(MAKE) --no-print-directory B=$(SAN_B) SAN=1 CFLAGS='-O1 -g' tests
	$(Q)PLATEAU_BUILD=$(abspath $(SAN_B)) PLATEAU_SRC=$(CURDIR) ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1 $(if $(TAP_DUMP),PERL_TEST_HARNESS_DUMP_TAP=$(TAP_DUMP)/unit) \
		$(PROVE) $(PROVE_FLAGS) \
		$(UNIT_SRC:tests/unit/%.c=$(SAN_B)/tests/unit/%)
	$(Q)rm -rf $(SAN_B)/sanitizer && mkdir -p $(SAN_B)/sanitizer
	$(Q)PLATEAU_BUILD=$(abspath $(SAN_B)) PLATEAU_SRC=$(CURDIR) $(SAN_ENV) \
		$(if $(TAP_DUMP),PERL_TEST_HARNESS_DUMP_TAP=$(TAP_DUMP)/daemon) \
		$(PROVE) $(PROVE_FLAGS) $(SAN_TESTS); st=$$?; \
	if [ -n "$$(ls -A $(SAN_B)/sanitizer)" ]; then \
		echo "sanitizer reports from the tests' processes ($(SAN_B)/sanitizer/):"; \
		head -n 60 $(SAN_B)/sanitizer/*; st=1; \
	fi; exit $$st

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh tools/demo.sh $(abspath $(B))

bench: all
	$(Q)sh tools/bench.sh $(abspath $(B))

BINDIR     ?= $(PREFIX)/bin
SBINDIR    ?= $(PREFIX)/sbin
DATADIR    ?= $(PREFIX)/share/plateau
MANDIR     ?= $(PREFIX)/share/man
# plateaud reads /etc/plateau/plateaud.conf whatever the prefix (lib/paths.h)
SYSCONFDIR ?= /etc
# systemd's directories as pkg-config's systemd.pc gives them: as they are
# for PREFIX=/usr (the distribution's own, /lib/systemd/system on Debian
# 12), and with its prefix defined to PREFIX otherwise, so that the files
# stay under the prefix that make uninstall empties.  For /usr/local that
# is /usr/local/lib/systemd/system (and .../sysusers.d, .../tmpfiles.d),
# which systemd searches; below any other prefix systemd does not look, and
# install says how to link the units (or set UNITDIR=/etc/systemd/system).
ifeq ($(PREFIX),/usr)
SD_PC      := pkg-config
SD_ROOT    :=
else
SD_PC      := pkg-config --define-variable=prefix=$(PREFIX) \
              --define-variable=root_prefix=$(PREFIX) --define-variable=rootprefix=$(PREFIX)
SD_ROOT    := $(PREFIX)
endif
UNITDIR    ?= $(or $(shell $(SD_PC) --variable=systemdsystemunitdir systemd 2>/dev/null),$(SD_ROOT)/lib/systemd/system)
SYSUSERSDIR ?= $(or $(shell $(SD_PC) --variable=sysusersdir systemd 2>/dev/null),$(PREFIX)/lib/sysusers.d)
TMPFILESDIR ?= $(or $(shell $(SD_PC) --variable=tmpfilesdir systemd 2>/dev/null),$(PREFIX)/lib/tmpfiles.d)
# bash-completion looks in $XDG_DATA_DIRS (/usr/local/share:/usr/share)
COMPLETIONDIR ?= $(or $(shell pkg-config --define-variable=prefix=$(PREFIX) \
                 --variable=completionsdir bash-completion 2>/dev/null),$(PREFIX)/share/bash-completion/completions)

# Every file make install writes, as SOURCE:DESTINATION:MODE; make uninstall
# removes exactly these (the schema is compiled into the binaries: no
# schema/*.sql is installed).
INSTALL_FILES = \
	$(B)/plateau:$(BINDIR)/plateau:0755 \
	$(B)/plateaud:$(SBINDIR)/plateaud:0755 \
	systemd/plateaud.service.in:$(UNITDIR)/plateaud.service:0644 \
	systemd/plateaud.socket:$(UNITDIR)/plateaud.socket:0644 \
	systemd/plateau.sysusers:$(SYSUSERSDIR)/plateau.conf:0644 \
	systemd/plateau.tmpfiles:$(TMPFILESDIR)/plateau.conf:0644 \
	tools/plateau.bash-completion:$(COMPLETIONDIR)/plateau:0644 \
	$(foreach f,$(wildcard examples/*.plan) examples/plateaud.conf $(wildcard examples/prometheus/*),$(f):$(DATADIR)/$(f):0644) \
	$(foreach f,$(wildcard examples/hooks/*),$(f):$(DATADIR)/$(f):0755) \
	docs/plateau.1:$(MANDIR)/man1/plateau.1:0644 \
	docs/plateau.plan.5:$(MANDIR)/man5/plateau.plan.5:0644 \
	docs/plateaud.8:$(MANDIR)/man8/plateaud.8:0644
# the configuration: installed when there is none, never over one
CONF := $(SYSCONFDIR)/plateau/plateaud.conf

# (a *.in file gets the paths of this install: the unit's ExecStart)
install: all
	$(Q)set -e; for e in $(INSTALL_FILES); do \
		src=$${e%%:*}; rest=$${e#*:}; dst=$(DESTDIR)$${rest%:*}; mode=$${rest##*:}; \
		install -d "$${dst%/*}"; \
		case $$src in \
		*.in) sed 's|@SBINDIR@|$(SBINDIR)|g' "$$src" >"$$dst.tmp" && \
			install -m $$mode "$$dst.tmp" "$$dst" && rm -f "$$dst.tmp";; \
		*) install -m $$mode "$$src" "$$dst";; \
		esac; echo "  INSTALL $$dst"; \
	done
	$(Q)if [ -e $(DESTDIR)$(CONF) ]; then \
		echo "  KEEP    $(DESTDIR)$(CONF) (not overwritten; examples/plateaud.conf is in $(DATADIR)/examples)"; \
	else \
		install -d -m 0755 $(DESTDIR)$(SYSCONFDIR)/plateau; \
		install -m 0644 examples/plateaud.conf $(DESTDIR)$(CONF); echo "  INSTALL $(DESTDIR)$(CONF)"; \
	fi
	$(Q)case "$(UNITDIR)" in \
	/lib/systemd/system|/usr/lib/systemd/system|/usr/local/lib/systemd/system|/etc/systemd/system) ;; \
	*) echo "systemd does not look in $(UNITDIR): as root, systemctl link $(UNITDIR)/plateaud.socket $(UNITDIR)/plateaud.service" \
		"(and copy the sysusers and tmpfiles files to /etc/sysusers.d and /etc/tmpfiles.d)";; \
	esac
	@echo "installed; as root: systemd-sysusers; systemd-tmpfiles --create;" \
	      "systemctl daemon-reload; systemctl enable --now plateaud.socket plateaud.service"

# what install wrote, and the directories of plateau's own it made; the
# configuration only while it is the one install put there, unchanged
uninstall:
	$(Q)for e in $(INSTALL_FILES); do \
		rest=$${e#*:}; dst=$(DESTDIR)$${rest%:*}; \
		if [ -e "$$dst" ] || [ -L "$$dst" ]; then rm -f "$$dst"; echo "  RM      $$dst"; fi; \
	done
	$(Q)if [ -f $(DESTDIR)$(CONF) ] && cmp -s examples/plateaud.conf $(DESTDIR)$(CONF); then \
		rm -f $(DESTDIR)$(CONF); echo "  RM      $(DESTDIR)$(CONF)"; \
	elif [ -e $(DESTDIR)$(CONF) ]; then \
		echo "  KEEP    $(DESTDIR)$(CONF) (changed since install)"; \
	fi
	$(Q)for d in $(DATADIR)/examples/hooks $(DATADIR)/examples/prometheus $(DATADIR)/examples \
		$(DATADIR) $(SYSCONFDIR)/plateau; do \
		[ -d $(DESTDIR)$$d ] && rmdir $(DESTDIR)$$d 2>/dev/null; true; \
	done

FORMAT_SRC = $(LIB_SRC) $(wildcard lib/*.h) $(DAEMON_SRC) $(wildcard daemon/*.h) \
	     $(TOOLS_SRC) $(wildcard tools/*.h) $(UNIT_SRC) $(HELPER_SRC) $(MOCK_SRC) \
	     tests/tap.c tests/tap.h
format:
	clang-format -i $(FORMAT_SRC)

# every C source as .clang-format writes it (make format fixes it)
check-format:
	$(Q)clang-format --dry-run --Werror $(FORMAT_SRC) || \
		{ echo "not formatted as .clang-format says: run make format" >&2; exit 1; }

clean:
	rm -rf $(B) $(SAN_B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
