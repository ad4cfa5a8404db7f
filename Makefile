# pmuser: user-space access to ARM PMU counters.
#
# On an ARM board:   make              module (against the running kernel), library, samples
#                    make load/unload  insmod/rmmod build/native/pmuser.ko
# On an x86 box:     make demo         boot emulated arm64 Debian, load the module, read counters
#                    make check        host tests + every emulated target; ends "N passed, N failed"
#                    make check-quick  host, static and the arm64-6.12 guest (the inner loop)
#                    make check-TARGET one target (PMUSER_TARGETS in emu/targets.sh)
#                    make vm-run TARGET=arm64-6.1 CMD='pmu-info' [FILES='a b'] [RESULTS=dir]
#                    make setup        install host packages, fetch kernels (done on demand too)

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
PMUSER_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/pmuser
KSFT := $(PMUSER_CACHE)/ksrc/tools/testing/selftests
export PMUSER_CACHE

# ---- native / cross build of one configuration into $(OUT) -----------------------------------
OUT ?= $(TOP)/build/native
KDIR ?= /lib/modules/$(shell uname -r)/build
CROSS_COMPILE ?=
CC := $(CROSS_COMPILE)gcc
AR := $(CROSS_COMPILE)ar

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS ?= -O2 -g
PMUSER_CFLAGS := -std=gnu11 $(WARN) -I$(TOP)/uapi -I$(TOP)/userlib -D_GNU_SOURCE
LDLIBS ?= -lm
# The kselftest harness trips these under -Wextra; test code only.
TEST_CFLAGS := -Wno-clobbered -Wno-sign-compare -Wno-unused-parameter -Wno-missing-prototypes

LIB_SRCS := $(wildcard $(TOP)/userlib/*.c)
# The library's headers: pmuser.h, the one programs include, its inline fast path in pmuser/,
# the internal ones, and the ABI.
LIB_HDRS := $(wildcard $(TOP)/userlib/*.h $(TOP)/userlib/pmuser/*.h $(TOP)/uapi/linux/*.h)
LIB_OBJS := $(patsubst $(TOP)/userlib/%.c,$(OUT)/userlib/%.o,$(LIB_SRCS))
# Tools: pmu-*.c at the top of samples/ and in its family folders. A family's other .c files
# are its code, linked into its tools only; samples/common/ (the option parser) goes into
# every tool but pmu-hello (below). pmu-sweep (sweep/) builds on pmu-lat's code (lat/): FAMILY_USES_<family> names
# the families whose code a family's tools link and include besides their own.
SAMPLE_FAMILIES := lat sweep stat kernels
FAMILY_USES_sweep := lat
SAMPLE_SRCS := $(wildcard $(TOP)/samples/pmu-*.c $(TOP)/samples/*/pmu-*.c)
SAMPLES := $(patsubst %.c,$(OUT)/bin/%,$(notdir $(SAMPLE_SRCS)))
SAMPLE_HDRS := $(wildcard $(TOP)/samples/*/*.h) $(LIB_HDRS)
COMMON_OBJS := $(patsubst $(TOP)/samples/%.c,$(OUT)/samples/%.o,$(wildcard $(TOP)/samples/common/*.c))
family_objs = $(patsubst $(TOP)/samples/%.c,$(OUT)/samples/%.o,$(filter-out \
	$(TOP)/samples/$(1)/pmu-%.c,$(wildcard $(TOP)/samples/$(1)/*.c)))
# Host tests reach into every family's code.
SAMPLE_LIB_OBJS := $(COMMON_OBJS) $(foreach f,$(SAMPLE_FAMILIES),$(call family_objs,$(f)))
SAMPLE_INCLUDES := $(addprefix -I$(TOP)/samples/,common $(SAMPLE_FAMILIES))
GUEST_TEST_SRCS := $(wildcard $(TOP)/tests/guest/*.c)
GUEST_TESTS := $(patsubst $(TOP)/tests/guest/%.c,$(OUT)/tests/%,$(GUEST_TEST_SRCS))
HOST_TEST_SRCS := $(wildcard $(TOP)/tests/host/*.c)
HOST_TESTS := $(patsubst $(TOP)/tests/host/%.c,$(OUT)/tests/host/%,$(HOST_TEST_SRCS))

.PHONY: all module user lib samples guest-tests load unload clean
all: user module
user: lib samples
lib: $(OUT)/libpmuser.a
samples: $(SAMPLES)
guest-tests: $(GUEST_TESTS)

$(OUT)/userlib/%.o: $(TOP)/userlib/%.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(PMUSER_CFLAGS) $(CFLAGS) -c -o $@ $<

$(OUT)/samples/%.o: $(TOP)/samples/%.c $(SAMPLE_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(PMUSER_CFLAGS) -I$(TOP)/samples/common -I$(dir $<) $(SAMPLE_EXTRA) $(CFLAGS) \
		-c -o $@ $<

# The tools' --version prints the package's VERSION (below), defined once.
$(OUT)/samples/common/tool_opts.o: SAMPLE_EXTRA = -DPMUSER_VERSION='"$(VERSION)"'

$(OUT)/libpmuser.a: $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

# tool_rule BINARIES, FOLDER (with its slash, or empty), OBJECTS, LIBRARIES
define tool_rule
$(1): $(OUT)/bin/%: $(OUT)/samples/$(2)%.o $(3) $(COMMON_OBJS) $(OUT)/libpmuser.a
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS) $$(LDFLAGS) -o $$@ $$< $(3) $(COMMON_OBJS) $$(OUT)/libpmuser.a $(4) $$(LDLIBS)
endef
$(foreach f,$(SAMPLE_FAMILIES),$(eval $(call tool_rule,$(patsubst \
	$(TOP)/samples/$(f)/%.c,$(OUT)/bin/%,$(wildcard $(TOP)/samples/$(f)/pmu-*.c)),$(f)/,$(foreach \
	u,$(f) $(FAMILY_USES_$(f)),$(call family_objs,$(u))))))
$(foreach f,$(SAMPLE_FAMILIES),$(if $(FAMILY_USES_$(f)),$(eval $(OUT)/samples/$(f)/%.o: \
	SAMPLE_EXTRA = $(addprefix -I$(TOP)/samples/,$(FAMILY_USES_$(f))))))
$(eval $(call tool_rule,$(OUT)/bin/pmu-info $(OUT)/bin/pmu-scale,,))

# pmu-hello is the program to copy: built as one outside the tree is, from <pmuser.h> and the
# library alone (no samples/common), with the package's version for its --version.
$(OUT)/samples/pmu-hello.o: $(TOP)/samples/pmu-hello.c $(wildcard $(TOP)/userlib/*.h \
		$(TOP)/uapi/linux/*.h)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -I$(TOP)/uapi -I$(TOP)/userlib -DPMUSER_VERSION='"$(VERSION)"' \
		$(CFLAGS) -c -o $@ $<
$(OUT)/bin/pmu-hello: $(OUT)/samples/pmu-hello.o $(OUT)/libpmuser.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# pmu-overhead and its peers (samples/overhead/): Linux's libperf and PAPI, where the caller
# names them (emu/build.sh does for arm64 from emu/setup.sh fetch_peers), e.g.
#   OVH_PEER_CFLAGS='-DPMUSER_HAVE_PAPI' OVH_PEER_LIBS='-lpapi -lpfm'
OVH_PEER_CFLAGS ?=
OVH_PEER_LIBS ?=
$(OUT)/samples/pmu-overhead.o: SAMPLE_EXTRA = -I$(TOP)/samples/kernels -I$(TOP)/samples/overhead
$(OUT)/samples/overhead/ovh_peers.o: SAMPLE_EXTRA = $(OVH_PEER_CFLAGS)
$(eval $(call tool_rule,$(OUT)/bin/pmu-overhead,,$(call family_objs,kernels) \
	$(OUT)/samples/overhead/ovh_peers.o,$$(OVH_PEER_LIBS) -lpthread))

# Tests use the kselftest harness from the kernel source (fetched into the cache by setup).
$(OUT)/tests/%: $(TOP)/tests/guest/%.c $(OUT)/libpmuser.a $(wildcard $(TOP)/tests/guest/*.h $(TOP)/tests/*.h) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(PMUSER_CFLAGS) $(TEST_CFLAGS) -I$(KSFT) -I$(TOP)/tests/guest $(CFLAGS) $(LDFLAGS) -o $@ $< $(OUT)/libpmuser.a $(LDLIBS) -lpthread

$(OUT)/tests/host/%: $(TOP)/tests/host/%.c $(OUT)/libpmuser.a $(SAMPLE_LIB_OBJS) $(wildcard $(TOP)/tests/host/*.h $(TOP)/tests/*.h) $(SAMPLE_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(PMUSER_CFLAGS) $(TEST_CFLAGS) -I$(KSFT) $(SAMPLE_INCLUDES) -I$(TOP)/tests/host $(CFLAGS) -DPMUSER_TOP='"$(TOP)"' -DPMUSER_CACHE='"$(PMUSER_CACHE)"' -DPMUSER_VERSION='"$(VERSION)"' $(LDFLAGS) -o $@ $< $(SAMPLE_LIB_OBJS) $(OUT)/libpmuser.a $(LDLIBS) -lpthread

# The module is built from a private copy so several targets can be built from one checkout.
MOD_SRCS := $(TOP)/Kbuild $(wildcard $(TOP)/module/*.[ch] $(TOP)/uapi/linux/*.h)
module: $(OUT)/pmuser.ko
$(OUT)/pmuser.ko: $(MOD_SRCS)
	@mkdir -p $(OUT)/kmod
	cp -u $(TOP)/Kbuild $(OUT)/kmod/ && mkdir -p $(OUT)/kmod/module $(OUT)/kmod/uapi
	cp -u $(TOP)/module/* $(OUT)/kmod/module/ && cp -ru $(TOP)/uapi/* $(OUT)/kmod/uapi/
	$(MAKE) -C $(KDIR) M=$(OUT)/kmod $(KBUILD_ARGS) modules
	cp $(OUT)/kmod/pmuser.ko $@

load: $(OUT)/pmuser.ko
	insmod $<
unload:
	rmmod pmuser

clean:
	rm -rf $(TOP)/build

# ---- install -------------------------------------------------------------------------------
# make install [PREFIX=/usr/local] [DESTDIR=] [LIBDIR= INCLUDEDIR= BINDIR= MANDIR= SYSCONFDIR=]
# installs the library (static, and shared with soname libpmuser.so.$(SOVERSION)), the headers,
# pmuser.pc, the tools, the man pages and the boot-time files; make dkms-install puts the
# module's source under /usr/src for DKMS and builds it for the running kernel.
VERSION := $(shell sed -n 's/^\#define PMUSER_VERSION_[A-Z]*[[:space:]]*//p' \
	$(TOP)/module/pmuser_drv.h | paste -sd.)
SOVERSION := 0
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
SYSCONFDIR ?= /etc
DKMS_SRC ?= /usr/src/pmuser-$(VERSION)
INSTALL ?= install
# What <pmuser.h> includes from beside it (its inline fast path): $(INCLUDEDIR)/pmuser/.
INNER_HDRS := $(wildcard $(TOP)/userlib/pmuser/*.h)

LIB_PIC_OBJS := $(patsubst $(TOP)/userlib/%.c,$(OUT)/userlib-pic/%.o,$(LIB_SRCS))
SHLIB := $(OUT)/libpmuser.so.$(VERSION)
$(OUT)/userlib-pic/%.o: $(TOP)/userlib/%.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(PMUSER_CFLAGS) $(CFLAGS) -fPIC -c -o $@ $<
$(SHLIB): $(LIB_PIC_OBJS) $(TOP)/userlib/libpmuser.map
	$(CC) -shared $(CFLAGS) $(filter-out -static,$(LDFLAGS)) -Wl,-soname,libpmuser.so.$(SOVERSION) \
		-Wl,--version-script=$(TOP)/userlib/libpmuser.map -o $@ $(LIB_PIC_OBJS) $(LDLIBS)
shlib: $(SHLIB)

# Tool pages are made from each tool's --help, run on the build machine: the option tables
# are the same on every architecture.
HOST_BIN := $(TOP)/build/host/bin
TOOL_NAMES := $(patsubst %.c,%,$(notdir $(SAMPLE_SRCS)))
TOOL_PAGES := $(patsubst %,$(OUT)/man/%.1,$(TOOL_NAMES))
# One build of the host tools per make, under a lock: guest builds for several targets run at
# once and share build/host.
host-tools: FORCE
	@mkdir -p $(TOP)/build
	+flock $(TOP)/build/.host.lock $(MAKE) -s OUT=$(TOP)/build/host CROSS_COMPILE= \
		CFLAGS='-O2 -g' LDFLAGS= OVH_PEER_CFLAGS= OVH_PEER_LIBS= \
		$(addprefix $(HOST_BIN)/,$(TOOL_NAMES))
$(OUT)/man/%.1: host-tools
	@mkdir -p $(dir $@)
	bash $(TOP)/man/tool-page.sh $* $(VERSION) $(HOST_BIN)/$* >$@.tmp && mv $@.tmp $@
man-pages: $(TOOL_PAGES)
FORCE:

install: lib shlib samples man-pages
	$(INSTALL) -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(BINDIR) \
		$(DESTDIR)$(INCLUDEDIR)/linux $(DESTDIR)$(INCLUDEDIR)/pmuser \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(SYSCONFDIR)/udev/rules.d \
		$(DESTDIR)$(SYSCONFDIR)/modules-load.d $(DESTDIR)$(SYSCONFDIR)/sysctl.d \
		$(DESTDIR)$(SYSCONFDIR)/modprobe.d
	$(INSTALL) -m 644 $(OUT)/libpmuser.a $(DESTDIR)$(LIBDIR)/
	$(INSTALL) -m 755 $(SHLIB) $(DESTDIR)$(LIBDIR)/
	ln -sf libpmuser.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libpmuser.so.$(SOVERSION)
	ln -sf libpmuser.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libpmuser.so
	$(INSTALL) -m 644 $(TOP)/userlib/pmuser.h $(DESTDIR)$(INCLUDEDIR)/
	$(INSTALL) -m 644 $(INNER_HDRS) $(DESTDIR)$(INCLUDEDIR)/pmuser/
	$(INSTALL) -m 644 $(TOP)/uapi/linux/pmuser.h $(DESTDIR)$(INCLUDEDIR)/linux/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(VERSION)|' $(TOP)/packaging/pmuser.pc.in \
		>$(DESTDIR)$(PKGCONFIGDIR)/pmuser.pc
	$(INSTALL) -m 755 $(SAMPLES) $(DESTDIR)$(BINDIR)/
	$(INSTALL) -m 644 $(TOOL_PAGES) $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 644 $(wildcard $(TOP)/man/*.3) $(DESTDIR)$(MANDIR)/man3/
	$(INSTALL) -m 644 $(wildcard $(TOP)/man/*.7) $(DESTDIR)$(MANDIR)/man7/
	$(INSTALL) -m 644 $(TOP)/packaging/60-pmuser.rules $(DESTDIR)$(SYSCONFDIR)/udev/rules.d/
	$(INSTALL) -m 644 $(TOP)/packaging/modules-load.conf \
		$(DESTDIR)$(SYSCONFDIR)/modules-load.d/pmuser.conf
	$(INSTALL) -m 644 $(TOP)/packaging/sysctl.conf $(DESTDIR)$(SYSCONFDIR)/sysctl.d/60-pmuser.conf
	$(INSTALL) -m 644 $(TOP)/packaging/modprobe.conf $(DESTDIR)$(SYSCONFDIR)/modprobe.d/pmuser.conf
	$(MAKE) -s dkms-tree DKMS_SRC=$(DKMS_SRC)
	@# A library installed into the running system is found at once.
	[ -n "$(DESTDIR)" ] || ldconfig

# The module's source as DKMS wants it: dkms.conf beside Kbuild, module/ and uapi/.
dkms-tree:
	$(INSTALL) -d $(DESTDIR)$(DKMS_SRC)/module $(DESTDIR)$(DKMS_SRC)/uapi/linux
	$(INSTALL) -m 644 $(TOP)/Kbuild $(DESTDIR)$(DKMS_SRC)/
	$(INSTALL) -m 644 $(wildcard $(TOP)/module/*.[ch]) $(DESTDIR)$(DKMS_SRC)/module/
	$(INSTALL) -m 644 $(TOP)/uapi/linux/pmuser.h $(DESTDIR)$(DKMS_SRC)/uapi/linux/
	sed 's|@VERSION@|$(VERSION)|' $(TOP)/packaging/dkms.conf.in >$(DESTDIR)$(DKMS_SRC)/dkms.conf

# On the board, as root, after make install: DKMS rebuilds the module at every kernel update.
dkms-install: dkms-tree
	dkms add pmuser/$(VERSION) || dkms status pmuser/$(VERSION) | grep -q .
	dkms install pmuser/$(VERSION)
	getent group pmuser >/dev/null || groupadd --system pmuser
	-udevadm control --reload && udevadm trigger --name-match=pmuser
	-sysctl -q -p $(SYSCONFDIR)/sysctl.d/60-pmuser.conf
	modprobe pmuser

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libpmuser.a $(DESTDIR)$(LIBDIR)/libpmuser.so* \
		$(DESTDIR)$(PKGCONFIGDIR)/pmuser.pc $(DESTDIR)$(INCLUDEDIR)/pmuser.h \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/pmuser/,$(notdir $(INNER_HDRS))) \
		$(DESTDIR)$(INCLUDEDIR)/linux/pmuser.h \
		$(addprefix $(DESTDIR)$(BINDIR)/,$(TOOL_NAMES)) \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(addsuffix .1,$(TOOL_NAMES))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(wildcard $(TOP)/man/*.3))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man7/,$(notdir $(wildcard $(TOP)/man/*.7))) \
		$(DESTDIR)$(SYSCONFDIR)/udev/rules.d/60-pmuser.rules \
		$(DESTDIR)$(SYSCONFDIR)/modules-load.d/pmuser.conf \
		$(DESTDIR)$(SYSCONFDIR)/sysctl.d/60-pmuser.conf \
		$(DESTDIR)$(SYSCONFDIR)/modprobe.d/pmuser.conf
	[ ! -d $(DESTDIR)$(INCLUDEDIR)/pmuser ] || \
		rmdir --ignore-fail-on-non-empty $(DESTDIR)$(INCLUDEDIR)/pmuser
	rm -rf $(DESTDIR)$(DKMS_SRC)

# Debian packages for arm64 and armhf (DEB_ARCHES), cross-built: build/deb/*.deb.
DEB_ARCHES ?= arm64 armhf
deb:
	bash $(TOP)/packaging/deb.sh $(DEB_ARCHES)
print-version:
	@echo $(VERSION)

.PHONY: shlib host-tools man-pages install dkms-tree dkms-install uninstall deb print-version FORCE

# ---- x86 host: emulated targets ----------------------------------------------------------
# The targets are listed once, as PMUSER_TARGETS in emu/targets.sh (a bash file, in make
# check's order); a copy of the tree without emu/, as make deb builds in, has none.
TARGETS := $(if $(wildcard $(TOP)/emu/targets.sh),$(shell bash -c \
	'. "$(TOP)/emu/targets.sh" && echo "$$PMUSER_TARGETS"'))
TARGET ?= arm64-6.1

.PHONY: setup demo bench-scale bench-overhead check check-quick check-host vm-run $(addprefix check-,$(TARGETS)) $(addprefix build-,$(TARGETS))
setup:
	bash $(TOP)/emu/setup.sh

$(addprefix build-,$(TARGETS)): build-%:
	bash $(TOP)/emu/build.sh $*

HOST_O := $(TOP)/build/host
check-host:
	bash $(TOP)/emu/setup.sh --ksrc-only
	$(MAKE) OUT=$(HOST_O) CROSS_COMPILE= $(HOST_O)/libpmuser.a \
		$(patsubst %.c,$(HOST_O)/bin/%,$(notdir $(SAMPLE_SRCS))) \
		$(patsubst $(TOP)/tests/host/%.c,$(HOST_O)/tests/host/%,$(HOST_TEST_SRCS))
	bash $(TOP)/tests/run-host.sh $(HOST_O)

$(addprefix check-,$(TARGETS)): check-%:
	bash $(TOP)/emu/check.sh $*

check:
	bash $(TOP)/emu/check.sh all

check-quick:
	bash $(TOP)/emu/check.sh quick

demo:
	bash $(TOP)/emu/demo.sh

# The module's per-call costs on guests of 1 to 32 CPUs (emu/bench-scale.sh).
bench-scale:
	bash $(TOP)/emu/bench-scale.sh

# The read and context-switch costs of docs/design.md ("Read costs"): arm64-6.1, armhf-6.1,
# armhf-6.12-v8 (emu/bench-overhead.sh).
bench-overhead:
	bash $(TOP)/emu/bench-overhead.sh

# CMD and FILES reach the shell as given: make expands neither, single quotes survive.
vm-run:
	PMUSER_RESULTS='$(subst ','\'',$(value RESULTS))' bash $(TOP)/emu/vm-run.sh $(TARGET) \
		'$(subst ','\'',$(value CMD))' '$(subst ','\'',$(value FILES))'
