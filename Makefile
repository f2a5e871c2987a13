# plateau: one non-recursive GNU Makefile.  `make V=1` shows the commands.
#   make            build/lib/libplateau.a, build/plateau, build/plateaud
#   make demo       install what is missing, build, run a real short run
#   make check      install what is missing, build, run every test (and the
#                   unit tests again under ASan+UBSan in build-san/)
#   make bench      plateau's engine against fio, side by side
#   make install    PREFIX=/usr/local DESTDIR=

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
.PHONY: all unit tests check check-unit check-san deps deps-check demo bench install clean format
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
check: deps-check
	$(Q)$(MAKE) --no-print-directory tests
	$(Q)$(MAKE) --no-print-directory check-san
	$(Q)PLATEAU_BUILD=$(abspath $(B)) PLATEAU_SRC=$(CURDIR) $(PROVE) $(PROVE_FLAGS) \
		$(UNIT_BIN) $(sort $(wildcard tests/integration/*.t tests/vm/*.t))

check-unit: tests
	$(Q)PLATEAU_BUILD=$(abspath $(B)) PLATEAU_SRC=$(CURDIR) $(PROVE) $(PROVE_FLAGS) $(UNIT_BIN)

check-san:
	$(Q)$(MAKE) --no-print-directory B=build-san SAN=1 CFLAGS='-O1 -g' unit
	$(Q)PLATEAU_BUILD=$(abspath build-san) PLATEAU_SRC=$(CURDIR) ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1 $(PROVE) $(PROVE_FLAGS) \
		$(UNIT_SRC:tests/unit/%.c=build-san/tests/unit/%)

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh tools/demo.sh $(abspath $(B))

bench: all
	$(Q)sh tools/bench.sh $(abspath $(B))

BINDIR     ?= $(PREFIX)/bin
SBINDIR    ?= $(PREFIX)/sbin
DATADIR    ?= $(PREFIX)/share/plateau
MANDIR     ?= $(PREFIX)/share/man
UNITDIR    ?= $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)
SYSUSERSDIR ?= $(shell pkg-config --variable=sysusersdir systemd 2>/dev/null || echo /usr/lib/sysusers.d)
TMPFILESDIR ?= $(shell pkg-config --variable=tmpfilesdir systemd 2>/dev/null || echo /usr/lib/tmpfiles.d)

$(B)/plateaud.service: systemd/plateaud.service.in
	$(Q)$(call quiet,GEN,$@)sed 's|@SBINDIR@|$(SBINDIR)|g' $< > $@

install: all $(B)/plateaud.service
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) $(DESTDIR)$(UNITDIR) \
		$(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(DATADIR)/schema \
		$(DESTDIR)$(DATADIR)/examples/hooks $(DESTDIR)$(DATADIR)/examples/prometheus \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(MANDIR)/man8
	install -m 0755 $(B)/plateau $(DESTDIR)$(BINDIR)/plateau
	install -m 0755 $(B)/plateaud $(DESTDIR)$(SBINDIR)/plateaud
	install -m 0644 $(B)/plateaud.service systemd/plateaud.socket $(DESTDIR)$(UNITDIR)/
	install -m 0644 systemd/plateau.sysusers $(DESTDIR)$(SYSUSERSDIR)/plateau.conf
	install -m 0644 systemd/plateau.tmpfiles $(DESTDIR)$(TMPFILESDIR)/plateau.conf
	install -m 0644 $(SCHEMA) $(DESTDIR)$(DATADIR)/schema/
	install -m 0644 $(wildcard examples/*.plan) $(DESTDIR)$(DATADIR)/examples/
	install -m 0755 $(wildcard examples/hooks/*) $(DESTDIR)$(DATADIR)/examples/hooks/
	install -m 0644 $(wildcard examples/prometheus/*) $(DESTDIR)$(DATADIR)/examples/prometheus/
	install -m 0644 docs/plateau.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 docs/plateau.plan.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 docs/plateaud.8 $(DESTDIR)$(MANDIR)/man8/
	@echo "installed; as root: systemd-sysusers; systemd-tmpfiles --create;" \
	      "systemctl daemon-reload; systemctl enable --now plateaud.socket plateaud.service"

format:
	clang-format -i $(LIB_SRC) $(wildcard lib/*.h) $(DAEMON_SRC) $(wildcard daemon/*.h) \
		$(TOOLS_SRC) $(wildcard tools/*.h) $(UNIT_SRC) $(HELPER_SRC) $(MOCK_SRC)

clean:
	rm -rf $(B) build-san

-include $(shell find $(B) -name '*.d' 2>/dev/null)
