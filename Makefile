# pmuser: user-space access to ARM PMU counters.
#
# On an ARM board:   make              module (against the running kernel), library, samples
#                    make load/unload  insmod/rmmod build/native/pmuser.ko
# On an x86 box:     make demo         boot emulated arm64 Debian, load the module, read counters
#                    make check        host tests + every emulated target; ends "N passed, N failed"
#                    make check-quick  host, static and the arm64-6.12 guest (the inner loop)
#                    make check-TARGET one target (see TARGETS below)
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
LIB_OBJS := $(patsubst $(TOP)/userlib/%.c,$(OUT)/userlib/%.o,$(LIB_SRCS))
SAMPLE_SRCS := $(wildcard $(TOP)/samples/*.c)
SAMPLES := $(patsubst $(TOP)/samples/%.c,$(OUT)/bin/%,$(SAMPLE_SRCS))
SAMPLE_LIB_SRCS := $(wildcard $(TOP)/samples/common/*.c)
SAMPLE_LIB_OBJS := $(patsubst $(TOP)/samples/common/%.c,$(OUT)/samples/common/%.o,$(SAMPLE_LIB_SRCS))
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

$(OUT)/userlib/%.o: $(TOP)/userlib/%.c $(wildcard $(TOP)/userlib/*.h $(TOP)/uapi/linux/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(PMUSER_CFLAGS) $(CFLAGS) -c -o $@ $<

$(OUT)/samples/common/%.o: $(TOP)/samples/common/%.c $(wildcard $(TOP)/samples/common/*.h $(TOP)/userlib/*.h $(TOP)/uapi/linux/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(PMUSER_CFLAGS) -I$(TOP)/samples/common $(CFLAGS) -c -o $@ $<

$(OUT)/libpmuser.a: $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(OUT)/bin/%: $(TOP)/samples/%.c $(OUT)/libpmuser.a $(SAMPLE_LIB_OBJS) $(wildcard $(TOP)/samples/common/*.h $(TOP)/userlib/*.h $(TOP)/uapi/linux/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(PMUSER_CFLAGS) -I$(TOP)/samples/common $(CFLAGS) $(LDFLAGS) -o $@ $< $(SAMPLE_LIB_OBJS) $(OUT)/libpmuser.a $(LDLIBS)

# pmu-overhead and its peers (samples/overhead/): Linux's libperf and PAPI, where the caller
# names them (emu/build.sh does for arm64 from emu/setup.sh fetch_peers), e.g.
#   OVH_PEER_CFLAGS='-DPMUSER_HAVE_PAPI' OVH_PEER_LIBS='-lpapi -lpfm'
OVH_PEER_CFLAGS ?=
OVH_PEER_LIBS ?=
OVH_OBJS := $(OUT)/samples/overhead/ovh_peers.o
$(OUT)/samples/overhead/%.o: $(TOP)/samples/overhead/%.c $(wildcard $(TOP)/samples/overhead/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(PMUSER_CFLAGS) $(CFLAGS) $(OVH_PEER_CFLAGS) -c -o $@ $<

$(OUT)/bin/pmu-overhead: $(TOP)/samples/pmu-overhead.c $(OUT)/libpmuser.a $(SAMPLE_LIB_OBJS) $(OVH_OBJS) $(wildcard $(TOP)/samples/common/*.h $(TOP)/samples/overhead/*.h $(TOP)/userlib/*.h $(TOP)/uapi/linux/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(PMUSER_CFLAGS) -I$(TOP)/samples/common -I$(TOP)/samples/overhead $(CFLAGS) $(LDFLAGS) -o $@ $< $(SAMPLE_LIB_OBJS) $(OVH_OBJS) $(OUT)/libpmuser.a $(OVH_PEER_LIBS) $(LDLIBS) -lpthread

# Tests use the kselftest harness from the kernel source (fetched into the cache by setup).
$(OUT)/tests/%: $(TOP)/tests/guest/%.c $(OUT)/libpmuser.a $(wildcard $(TOP)/tests/guest/*.h $(TOP)/tests/*.h $(TOP)/userlib/*.h $(TOP)/uapi/linux/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(PMUSER_CFLAGS) $(TEST_CFLAGS) -I$(KSFT) -I$(TOP)/tests/guest $(CFLAGS) $(LDFLAGS) -o $@ $< $(OUT)/libpmuser.a $(LDLIBS) -lpthread

$(OUT)/tests/host/%: $(TOP)/tests/host/%.c $(OUT)/libpmuser.a $(SAMPLE_LIB_OBJS) $(wildcard $(TOP)/tests/host/*.h $(TOP)/tests/*.h $(TOP)/samples/common/*.h $(TOP)/userlib/*.h $(TOP)/uapi/linux/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(PMUSER_CFLAGS) $(TEST_CFLAGS) -I$(KSFT) -I$(TOP)/samples/common -I$(TOP)/tests/host $(CFLAGS) -DPMUSER_TOP='"$(TOP)"' -DPMUSER_CACHE='"$(PMUSER_CACHE)"' $(LDFLAGS) -o $@ $< $(SAMPLE_LIB_OBJS) $(OUT)/libpmuser.a $(LDLIBS) -lpthread

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

# ---- x86 host: emulated targets ----------------------------------------------------------
TARGETS := arm64-6.1 arm64-6.12 armhf-6.1 armel-6.1 armhf-6.12 armhf-6.12-v8 arm64-7.3 arm64-7.3-rt
TARGET ?= arm64-6.1

.PHONY: setup demo check check-quick check-host vm-run $(addprefix check-,$(TARGETS)) $(addprefix build-,$(TARGETS))
setup:
	bash $(TOP)/emu/setup.sh

$(addprefix build-,$(TARGETS)): build-%:
	bash $(TOP)/emu/build.sh $*

HOST_O := $(TOP)/build/host
check-host:
	bash $(TOP)/emu/setup.sh --ksrc-only
	$(MAKE) OUT=$(HOST_O) CROSS_COMPILE= $(HOST_O)/libpmuser.a \
		$(patsubst $(TOP)/samples/%.c,$(HOST_O)/bin/%,$(SAMPLE_SRCS)) \
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

# CMD and FILES reach the shell as given: make expands neither, single quotes survive.
vm-run:
	PMUSER_RESULTS='$(subst ','\'',$(value RESULTS))' bash $(TOP)/emu/vm-run.sh $(TARGET) \
		'$(subst ','\'',$(value CMD))' '$(subst ','\'',$(value FILES))'
