// SPDX-License-Identifier: MIT
/*
 * Event tables and event-spec parser, on the host.
 *
 * The ARMv8 tables are hand-written; every entry is checked against the kernel's perf JSON
 * (names must be identical and numbers equal), and every event perf lists for a core must be
 * found by a lookup for that core. The JSON is read with a small scanner of its own, enough
 * for the flat arrays of flat objects perf uses.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kselftest_harness.h"
#include "pmuser.h"

#define JSON_DIR	PMUSER_CACHE "/ksrc/tools/perf/pmu-events/arch/arm64"

#define MIDR_A7		0x410fc075
#define MIDR_A15	0x412fc0f3
#define MIDR_A53	0x410fd034
#define MIDR_A57	0x411fd070
#define MIDR_A72	0x410fd083
#define MIDR_A76	0x414fd0b1
#define MIDR_1176	0x410fb767
#define MIDR_A5		0x410fc051
#define MIDR_A8		0x413fc082
#define MIDR_A9		0x413fc090
#define MIDR_A12	0x410fc0d1
#define MIDR_A17	0x410fc0e1

/* ---- a minimal reader for perf's pmu-events JSON ------------------------------------------ */

struct json_event {
	char name[64];		/* EventName, or the ArchStdEvent it refers to */
	char std[64];		/* ArchStdEvent, if the object has one */
	long code;		/* EventCode, or -1 until resolved */
};

struct json_events {
	struct json_event *ev;
	size_t n;
};

/* Copies the string starting after an opening quote; returns the text after its closing quote. */
static const char *json_string(const char *p, char *buf, size_t size)
{
	size_t n = 0;

	while (*p && *p != '"') {
		if (*p == '\\' && p[1])
			p++;
		if (n + 1 < size)
			buf[n++] = *p;
		p++;
	}
	buf[n] = '\0';
	return *p ? p + 1 : p;
}

static char *file_read(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	long size;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET)) {
		text = calloc(1, size + 1);
		if (text && fread(text, 1, size, f) != (size_t)size) {
			free(text);
			text = NULL;
		}
	}
	fclose(f);
	return text;
}

/* Appends the EventName/EventCode/ArchStdEvent of every object in one file; 0 or -errno. */
static int json_load(const char *path, struct json_events *out)
{
	char *text = file_read(path), key[64], val[64];
	struct json_event cur = { .code = -1 };
	const char *p;

	if (!text)
		return -errno;
	for (p = text; *p;) {
		if (*p == '{') {
			memset(&cur, 0, sizeof(cur));
			cur.code = -1;
			p++;
		} else if (*p == '}') {
			if (cur.name[0] || cur.std[0]) {
				out->ev = realloc(out->ev, (out->n + 1) * sizeof(*out->ev));
				if (!out->ev)
					abort();
				out->ev[out->n++] = cur;
			}
			p++;
		} else if (*p == '"') {
			p = json_string(p + 1, key, sizeof(key));
			while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
				p++;
			if (*p != ':')
				continue;
			for (p++; *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'; p++)
				;
			if (*p != '"')
				continue;
			p = json_string(p + 1, val, sizeof(val));
			if (!strcmp(key, "EventName"))
				snprintf(cur.name, sizeof(cur.name), "%s", val);
			else if (!strcmp(key, "ArchStdEvent"))
				snprintf(cur.std, sizeof(cur.std), "%s", val);
			else if (!strcmp(key, "EventCode"))
				cur.code = strtol(val, NULL, 16);
		} else {
			p++;
		}
	}
	free(text);
	return 0;
}

static const struct json_event *json_find(const struct json_events *set, const char *name)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (!strcmp(set->ev[i].name, name))
			return &set->ev[i];
	return NULL;
}

/* The events architected for every core: the common ones and the recommended ones. */
static int json_load_std(struct json_events *std)
{
	int ret = json_load(JSON_DIR "/common-and-microarch.json", std);

	return ret ? ret : json_load(JSON_DIR "/recommended.json", std);
}

/* All *.json of one core directory, ArchStdEvent references resolved through std. */
static int json_load_core(const char *dir, const struct json_events *std,
			  struct json_events *core)
{
	const struct json_event *ref;
	char path[512];
	struct dirent *de;
	size_t i, len;
	DIR *d;
	int ret = 0;

	snprintf(path, sizeof(path), JSON_DIR "/arm/%s", dir);
	d = opendir(path);
	if (!d)
		return -errno;
	while (!ret && (de = readdir(d))) {
		len = strlen(de->d_name);
		if (len < 5 || strcmp(de->d_name + len - 5, ".json"))
			continue;
		snprintf(path, sizeof(path), JSON_DIR "/arm/%s/%s", dir, de->d_name);
		ret = json_load(path, core);
	}
	closedir(d);
	for (i = 0; !ret && i < core->n; i++) {
		if (!core->ev[i].std[0])
			continue;
		ref = json_find(std, core->ev[i].std);
		if (!ref)
			return -ENOENT;
		snprintf(core->ev[i].name, sizeof(core->ev[i].name), "%s", ref->name);
		if (core->ev[i].code < 0)
			core->ev[i].code = ref->code;
	}
	return ret;
}

static bool json_present(void)
{
	DIR *d = opendir(JSON_DIR);

	if (d)
		closedir(d);
	return d;
}

/* ---- ARMv8 tables against the JSON -------------------------------------------------------- */

TEST(armv8_common_matches_json)
{
	const struct pmuser_event_table *tables[PMUSER_CORE_TABLES];
	struct json_events common = { 0 };
	const struct pmuser_event *ev;
	const struct json_event *je;
	size_t i;

	if (!json_present())
		SKIP(return, "no perf JSON in %s", JSON_DIR);
	ASSERT_EQ(0, json_load(JSON_DIR "/common-and-microarch.json", &common));
	ASSERT_LT(50, common.n);
	ASSERT_EQ(2, pmuser_core_tables(MIDR_A72, tables));
	ASSERT_STREQ("armv8", tables[0]->name);

	for (i = 0; i < tables[0]->nr_events; i++) {
		ev = &tables[0]->events[i];
		je = json_find(&common, ev->name);
		EXPECT_NE(NULL, je) TH_LOG("%s not in common-and-microarch.json", ev->name);
		if (je)
			EXPECT_EQ(je->code, ev->number) TH_LOG("%s", ev->name);
	}
	/* The table covers the ranges PMCEID reports; above them are SVE/SME-era events. */
	for (i = 0; i < common.n; i++) {
		if (common.ev[i].code >= 0x8000)
			continue;
		ASSERT_EQ(0, pmuser_event_lookup(0, common.ev[i].name, &ev))
			TH_LOG("%s missing", common.ev[i].name);
		EXPECT_EQ(common.ev[i].code, ev->number) TH_LOG("%s", ev->name);
	}
	free(common.ev);
}

/* The core's own table matches its JSON directory, and every event perf lists resolves. */
static void core_check(struct __test_metadata *_metadata, uint32_t midr, const char *dir)
{
	const struct pmuser_event_table *tables[PMUSER_CORE_TABLES];
	struct json_events std = { 0 }, core = { 0 };
	const struct pmuser_event *ev;
	const struct json_event *je;
	char *mapfile, line[64];
	size_t i;

	if (!json_present())
		SKIP(return, "no perf JSON in %s", JSON_DIR);
	ASSERT_EQ(2, pmuser_core_tables(midr, tables));
	ASSERT_STREQ("armv8", tables[0]->name);
	ASSERT_STREQ(dir, tables[1]->name);
	ASSERT_EQ(0, json_load_std(&std));
	ASSERT_EQ(0, json_load_core(dir, &std, &core));
	ASSERT_LT(10, core.n);

	/* perf's own MIDR map sends this core to the same directory. */
	mapfile = file_read(JSON_DIR "/mapfile.csv");
	ASSERT_NE(NULL, mapfile);
	snprintf(line, sizeof(line), "0x00000000%02x0f%03x0,v1,arm/%s,", midr >> 24,
		 (midr >> 4) & 0xfff, dir);
	EXPECT_NE(NULL, strstr(mapfile, line)) TH_LOG("mapfile.csv has no %s", line);
	free(mapfile);

	for (i = 0; i < tables[1]->nr_events; i++) {
		ev = &tables[1]->events[i];
		je = json_find(&core, ev->name);
		EXPECT_NE(NULL, je) TH_LOG("%s not in arm/%s", ev->name, dir);
		if (je)
			EXPECT_EQ(je->code, ev->number) TH_LOG("%s", ev->name);
	}
	for (i = 0; i < core.n; i++) {
		ASSERT_EQ(0, pmuser_event_lookup(midr, core.ev[i].name, &ev))
			TH_LOG("%s of arm/%s missing", core.ev[i].name, dir);
		EXPECT_EQ(core.ev[i].code, ev->number) TH_LOG("%s", ev->name);
	}
	free(std.ev);
	free(core.ev);
}

TEST(cortex_a53_matches_json)
{
	core_check(_metadata, MIDR_A53, "cortex-a53");
}

TEST(cortex_a57_matches_json)
{
	core_check(_metadata, MIDR_A57, "cortex-a57-a72");
}

TEST(cortex_a72_matches_json)
{
	core_check(_metadata, MIDR_A72, "cortex-a57-a72");
}

TEST(cortex_a76_matches_json)
{
	core_check(_metadata, MIDR_A76, "cortex-a76");
}

/* ARMv7 borrowed the ARMv8 mnemonics: where perf knows a name, the number must agree. */
TEST(armv7_names_agree_with_json)
{
	static const uint32_t midrs[] = { MIDR_A7, MIDR_A15 };
	const struct pmuser_event_table *tables[PMUSER_CORE_TABLES];
	struct json_events std = { 0 };
	const struct pmuser_event *ev;
	const struct json_event *je;
	unsigned int m, t, n;
	size_t i, found = 0;

	if (!json_present())
		SKIP(return, "no perf JSON in %s", JSON_DIR);
	ASSERT_EQ(0, json_load_std(&std));
	for (m = 0; m < ARRAY_SIZE(midrs); m++) {
		n = pmuser_core_tables(midrs[m], tables);
		for (t = 0; t < n; t++) {
			for (i = 0; i < tables[t]->nr_events; i++) {
				ev = &tables[t]->events[i];
				je = json_find(&std, ev->name);
				if (!je)
					continue;
				found++;
				EXPECT_EQ(je->code, ev->number) TH_LOG("%s", ev->name);
			}
		}
	}
	EXPECT_LT(60, found);
	free(std.ev);
}

/* ---- every table: uniqueness and spot values ----------------------------------------------- */

static const uint32_t all_midrs[] = {
	MIDR_1176, MIDR_A7, MIDR_A15, MIDR_A53, MIDR_A57, MIDR_A72, MIDR_A76, 0,
};

TEST(tables_unique_and_sorted)
{
	const struct pmuser_event_table *tables[PMUSER_CORE_TABLES];
	const struct pmuser_event *a, *b;
	unsigned int m, n, t, u;
	size_t i, j;

	for (m = 0; m < ARRAY_SIZE(all_midrs); m++) {
		n = pmuser_core_tables(all_midrs[m], tables);
		ASSERT_LE(1, n);
		for (t = 0; t < n; t++) {
			ASSERT_LT(0, tables[t]->nr_events);
			for (i = 0; i < tables[t]->nr_events; i++) {
				a = &tables[t]->events[i];
				if (i)
					EXPECT_LT(a[-1].number, a->number) TH_LOG("%s", a->name);
				/* Upper case, and not something the parser would take as raw r<hex>. */
				EXPECT_EQ(strlen(a->name), strspn(a->name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"))
					TH_LOG("%s", a->name);
				EXPECT_FALSE(a->name[0] == 'R' &&
					     strspn(a->name + 1, "0123456789ABCDEF") ==
					     strlen(a->name + 1)) TH_LOG("%s", a->name);
				/* Against every later entry of this core's tables. */
				for (u = t; u < n; u++) {
					for (j = u == t ? i + 1 : 0; j < tables[u]->nr_events; j++) {
						b = &tables[u]->events[j];
						EXPECT_NE(a->number, b->number)
							TH_LOG("%s %s", a->name, b->name);
						EXPECT_NE(0, strcasecmp(a->name, b->name))
							TH_LOG("%s", a->name);
					}
				}
			}
		}
	}
}

TEST(armv7_common_equals_armv8)
{
	const struct pmuser_event_table *tables[PMUSER_CORE_TABLES];
	const char *v8;
	size_t i;

	ASSERT_EQ(2, pmuser_core_tables(MIDR_A15, tables));
	ASSERT_STREQ("armv7", tables[0]->name);
	ASSERT_STREQ("cortex-a15", tables[1]->name);
	EXPECT_EQ(0x1e, tables[0]->nr_events);
	for (i = 0; i < tables[0]->nr_events; i++) {
		v8 = pmuser_event_name(MIDR_A53, tables[0]->events[i].number);
		ASSERT_NE(NULL, v8);
		EXPECT_STREQ(v8, tables[0]->events[i].name);
	}
}

static long number_of(uint32_t midr, const char *name)
{
	const struct pmuser_event *ev;
	int ret = pmuser_event_lookup(midr, name, &ev);

	return ret ? ret : ev->number;
}

TEST(spot_values)
{
	/* ARM1176: numbers as in the kernel's ARMv6 PMU driver. */
	EXPECT_EQ(0x00, number_of(MIDR_1176, "ICACHE_MISS"));
	EXPECT_EQ(0x01, number_of(MIDR_1176, "IBUF_STALL"));
	EXPECT_EQ(0x05, number_of(MIDR_1176, "BR_EXEC"));
	EXPECT_EQ(0x06, number_of(MIDR_1176, "BR_MISPREDICT"));
	EXPECT_EQ(0x07, number_of(MIDR_1176, "INSTR_EXEC"));
	EXPECT_EQ(0x0a, number_of(MIDR_1176, "DCACHE_ACCESS"));
	EXPECT_EQ(0x0b, number_of(MIDR_1176, "DCACHE_MISS"));
	EXPECT_EQ(0x0f, number_of(MIDR_1176, "MAIN_TLB_MISS"));
	EXPECT_EQ(0xff, number_of(MIDR_1176, "CPU_CYCLES"));
	EXPECT_EQ(-ENOENT, number_of(MIDR_1176, "INST_RETIRED"));
	/* ARMv7 common and per core. */
	EXPECT_EQ(0x08, number_of(MIDR_A7, "INST_RETIRED"));
	EXPECT_EQ(0x11, number_of(MIDR_A15, "CPU_CYCLES"));
	EXPECT_EQ(0x60, number_of(MIDR_A7, "BUS_ACCESS_RD"));
	EXPECT_EQ(0xc9, number_of(MIDR_A7, "STALL_SB_FULL"));
	EXPECT_EQ(0x40, number_of(MIDR_A15, "L1D_CACHE_RD"));
	EXPECT_EQ(0x76, number_of(MIDR_A15, "PC_WRITE_SPEC"));
	EXPECT_EQ(-ENOENT, number_of(MIDR_A7, "L1D_CACHE_RD"));
	EXPECT_EQ(-ENOENT, number_of(MIDR_A15, "STALL_FRONTEND"));
	/* ARMv8 core-specific names resolve only on their core. */
	EXPECT_EQ(0x42, number_of(MIDR_A72, "L1D_CACHE_REFILL_RD"));
	EXPECT_EQ(0x42, number_of(MIDR_A76, "L1D_CACHE_REFILL_RD"));
	EXPECT_EQ(-ENOENT, number_of(MIDR_A53, "L1D_CACHE_REFILL_RD"));
	EXPECT_EQ(0xc7, number_of(MIDR_A53, "STALL_SB_FULL"));
	EXPECT_EQ(-ENOENT, number_of(MIDR_A72, "STALL_SB_FULL"));
	EXPECT_EQ(0x4004, number_of(MIDR_A76, "CNT_CYCLES"));
}

/* ---- cores --------------------------------------------------------------------------------- */

TEST(core_names)
{
	static const struct {
		uint32_t midr;
		const char *name;
	} cases[] = {
		{ 0x410fd034, "Cortex-A53" },
		{ 0x410fd083, "Cortex-A72" },
		{ 0x413fd081, "Cortex-A72" },	/* other variant and revision */
		{ 0x414fd0b1, "Cortex-A76" },
		{ 0x410fc075, "Cortex-A7" },
		{ 0x412fc0f3, "Cortex-A15" },
		{ 0x410fb767, "ARM1176" },
		{ 0x410fd051, "Cortex-A55" },
		{ 0x411fd070, "Cortex-A57" },
		{ 0x410fd092, "Cortex-A73" },
		{ 0x412fd0a0, "Cortex-A75" },
		{ 0x413fd0c1, "Neoverse-N1" },
		{ 0x411fd402, "Neoverse-V1" },
		{ 0x410fd490, "Neoverse-N2" },
		{ 0xc00fac30, "AmpereOne" },
		{ 0x410fd0ff, NULL },		/* unknown Arm part */
		{ 0x510fd030, NULL },		/* A53's part number, other implementer */
		{ 0, NULL },
	};
	const char *name;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		name = pmuser_core_name(cases[i].midr);
		if (cases[i].name) {
			EXPECT_STREQ(cases[i].name, name ? name : "(null)")
				TH_LOG("MIDR 0x%08x", cases[i].midr);
		} else {
			EXPECT_EQ(NULL, name) TH_LOG("MIDR 0x%08x: %s", cases[i].midr, name);
		}
	}
}

TEST(core_tables)
{
	static const struct {
		uint32_t midr;
		const char *common, *own;
	} cases[] = {
		{ MIDR_A53, "armv8", "cortex-a53" },
		{ MIDR_A57, "armv8", "cortex-a57-a72" },
		{ MIDR_A72, "armv8", "cortex-a57-a72" },
		{ MIDR_A76, "armv8", "cortex-a76" },
		{ 0x410fd051, "armv8", NULL },	/* A55: no table of its own */
		{ 0x410fd7f0, "armv8", NULL },	/* unknown Arm ARMv8 part */
		{ 0xc00fac30, "armv8", NULL },	/* AmpereOne */
		{ 0, "armv8", NULL },
		{ MIDR_A7, "armv7", "cortex-a7" },
		{ MIDR_A15, "armv7", "cortex-a15" },
		{ 0x410fc090, "armv7", NULL },	/* A9 */
		{ MIDR_1176, NULL, "arm1176" },
		{ 0x410fb022, NULL, NULL },	/* ARM11 MPCore: nothing known */
	};
	const struct pmuser_event_table *tables[PMUSER_CORE_TABLES];
	unsigned int n, want;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		n = pmuser_core_tables(cases[i].midr, tables);
		want = !!cases[i].common + !!cases[i].own;
		ASSERT_EQ(want, n) TH_LOG("MIDR 0x%08x", cases[i].midr);
		if (cases[i].common)
			EXPECT_STREQ(cases[i].common, tables[0]->name);
		if (cases[i].own)
			EXPECT_STREQ(cases[i].own, tables[n - 1]->name);
	}
	EXPECT_EQ(-ENOENT, number_of(0x410fb022, "CPU_CYCLES"));
	EXPECT_EQ(NULL, pmuser_event_name(0x410fb022, 0x11));
}

TEST(lookup_ignores_case)
{
	const struct pmuser_event *ev;

	ASSERT_EQ(0, pmuser_event_lookup(MIDR_A72, "inst_retired", &ev));
	EXPECT_EQ(0x08, ev->number);
	EXPECT_STREQ("INST_RETIRED", ev->name);
	ASSERT_EQ(0, pmuser_event_lookup(MIDR_A72, "Inst_Retired", &ev));
	EXPECT_EQ(0x08, ev->number);
	ASSERT_EQ(0, pmuser_event_lookup(MIDR_A72, "l1d_cache_refill_rd", &ev));
	EXPECT_STREQ("L1D_CACHE_REFILL_RD", ev->name);
	ASSERT_EQ(0, pmuser_event_lookup(MIDR_1176, "dcache_miss", &ev));
	EXPECT_EQ(0x0b, ev->number);
	/* Whole names only. */
	EXPECT_EQ(-ENOENT, pmuser_event_lookup(MIDR_A72, "inst_retire", &ev));
	EXPECT_EQ(-ENOENT, pmuser_event_lookup(MIDR_A72, "inst_retired ", &ev));
	EXPECT_EQ(-ENOENT, pmuser_event_lookup(MIDR_A72, "", &ev));
	EXPECT_EQ(-EINVAL, pmuser_event_lookup(MIDR_A72, NULL, &ev));

	EXPECT_STREQ("L1D_CACHE_REFILL_RD", pmuser_event_name(MIDR_A72, 0x42));
	EXPECT_EQ(NULL, pmuser_event_name(MIDR_A53, 0x42));
	EXPECT_EQ(NULL, pmuser_event_name(MIDR_A72, 0x10011));
}

TEST(event_supported)
{
	struct pmuser_cpu_info ci = {
		.pmceid_source = PMUSER_PMCEID_HW,
		/* As the module fills it: [0] events 0x00..0x3f, [1] events 0x4000..0x403f. */
		.pmceid = { 1ULL << 0x08 | 1ULL << 0x3f, 1ULL << 0x04 | 1ULL << 0x3f, 0, 0 },
	};

	EXPECT_TRUE(pmuser_event_supported(&ci, 0x08));
	EXPECT_FALSE(pmuser_event_supported(&ci, 0x09));
	EXPECT_TRUE(pmuser_event_supported(&ci, 0x3f));
	EXPECT_TRUE(pmuser_event_supported(&ci, 0x4004));
	EXPECT_FALSE(pmuser_event_supported(&ci, 0x4005));
	EXPECT_TRUE(pmuser_event_supported(&ci, 0x403f));
	/* Outside what PMCEID describes: the tables decide. */
	EXPECT_TRUE(pmuser_event_supported(&ci, 0x42));
	EXPECT_TRUE(pmuser_event_supported(&ci, 0xc0));
	EXPECT_TRUE(pmuser_event_supported(&ci, 0x4040));
	ci.pmceid_source = PMUSER_PMCEID_NONE;
	EXPECT_TRUE(pmuser_event_supported(&ci, 0x09));
}

/* ---- event specs --------------------------------------------------------------------------- */

TEST(evspec_example)
{
	struct pmuser_evspec_entry e[8];
	char err[128] = "stale";
	size_t n = 0;

	ASSERT_EQ(0, pmuser_evspec_parse("inst_retired,cpu_cycles:u,0x11,l1d_cache_refill:k,r1b",
					 MIDR_A72, e, ARRAY_SIZE(e), &n, err, sizeof(err)));
	EXPECT_STREQ("", err);
	ASSERT_EQ(5, n);
	EXPECT_EQ(0x08, e[0].event);
	EXPECT_EQ(PMUSER_COUNT_USER, e[0].flags);
	EXPECT_STREQ("INST_RETIRED", e[0].name);
	EXPECT_EQ(0x11, e[1].event);
	EXPECT_EQ(PMUSER_COUNT_USER, e[1].flags);
	EXPECT_STREQ("CPU_CYCLES", e[1].name);
	EXPECT_EQ(0x11, e[2].event);
	EXPECT_EQ(PMUSER_COUNT_USER, e[2].flags);
	EXPECT_STREQ("CPU_CYCLES", e[2].name);
	EXPECT_EQ(0x03, e[3].event);
	EXPECT_EQ(PMUSER_COUNT_KERNEL, e[3].flags);
	EXPECT_STREQ("L1D_CACHE_REFILL", e[3].name);
	EXPECT_EQ(0x1b, e[4].event);
	EXPECT_EQ(PMUSER_COUNT_USER, e[4].flags);
	EXPECT_STREQ("INST_SPEC", e[4].name);
}

/* A spec that parses to one event: its number, modes and name (NULL: a raw number). */
struct parse_case {
	uint32_t midr;
	const char *spec;
	uint32_t event, flags;
	const char *name;
};

static void expect_parses(struct __test_metadata *_metadata, const struct parse_case *cases,
			  size_t nr)
{
	struct pmuser_evspec_entry e;
	char err[160];
	size_t i, n;

	for (i = 0; i < nr; i++) {
		ASSERT_EQ(0, pmuser_evspec_parse(cases[i].spec, cases[i].midr, &e, 1, &n, err,
						 sizeof(err))) TH_LOG("%s: %s", cases[i].spec, err);
		ASSERT_EQ(1, n);
		EXPECT_EQ(cases[i].event, e.event) TH_LOG("%s", cases[i].spec);
		EXPECT_EQ(cases[i].flags, e.flags) TH_LOG("%s", cases[i].spec);
		if (cases[i].name) {
			EXPECT_STREQ(cases[i].name, e.name ? e.name : "(null)");
		} else {
			EXPECT_EQ(NULL, e.name) TH_LOG("%s: %s", cases[i].spec, e.name);
		}
	}
}

/* A spec the parser refuses (at most 2 events): its error, and words its message has. */
struct error_case {
	uint32_t midr;
	const char *spec;
	int ret;
	const char *msg[2];	/* both must appear in the message */
};

static void expect_errors(struct __test_metadata *_metadata, const struct error_case *cases,
			  size_t nr)
{
	struct pmuser_evspec_entry e[2];
	char err[200];
	size_t i, j, n;

	for (i = 0; i < nr; i++) {
		memset(err, 'x', sizeof(err));
		EXPECT_EQ(cases[i].ret, pmuser_evspec_parse(cases[i].spec, cases[i].midr, e,
							    ARRAY_SIZE(e), &n, err, sizeof(err)))
			TH_LOG("%s", cases[i].spec);
		ASSERT_NE(NULL, memchr(err, '\0', sizeof(err)));
		for (j = 0; j < ARRAY_SIZE(cases[i].msg) && cases[i].msg[j]; j++)
			EXPECT_NE(NULL, strstr(err, cases[i].msg[j]))
				TH_LOG("'%s' lacks \"%s\"", err, cases[i].msg[j]);
	}
}

TEST(evspec_forms)
{
	static const struct parse_case cases[] = {
		{ MIDR_A72, "cpu_cycles:uk", 0x11, PMUSER_COUNT_MASK, "CPU_CYCLES" },
		{ MIDR_A72, "cpu_cycles:ku", 0x11, PMUSER_COUNT_MASK, "CPU_CYCLES" },
		{ MIDR_A72, "CPU_Cycles:k", 0x11, PMUSER_COUNT_KERNEL, "CPU_CYCLES" },
		{ MIDR_A72, "0X1B", 0x1b, PMUSER_COUNT_USER, "INST_SPEC" },
		{ MIDR_A72, "R1b:uk", 0x1b, PMUSER_COUNT_MASK, "INST_SPEC" },
		{ MIDR_A72, "r0", 0x00, PMUSER_COUNT_USER, "SW_INCR" },
		{ MIDR_A72, "0x000000011", 0x11, PMUSER_COUNT_USER, "CPU_CYCLES" },
		{ MIDR_A72, "0xffff", 0xffff, PMUSER_COUNT_USER, NULL },
		{ MIDR_A72, "0x4004:k", 0x4004, PMUSER_COUNT_KERNEL, "CNT_CYCLES" },
		{ MIDR_A72, "l1d_cache_refill_rd", 0x42, PMUSER_COUNT_USER, "L1D_CACHE_REFILL_RD" },
		{ MIDR_A72, "0xc0", 0xc0, PMUSER_COUNT_USER, NULL },
		{ MIDR_A53, "0xc0", 0xc0, PMUSER_COUNT_USER, "EXT_MEM_REQ" },
		{ MIDR_A76, "l3d_cache_rd", 0xa0, PMUSER_COUNT_USER, "L3D_CACHE_RD" },
		{ MIDR_A15, "l2d_cache_wr:k", 0x51, PMUSER_COUNT_KERNEL, "L2D_CACHE_WR" },
		{ MIDR_A7, "ext_snoop", 0xca, PMUSER_COUNT_USER, "EXT_SNOOP" },
		{ MIDR_1176, "instr_exec:uk", 0x07, PMUSER_COUNT_MASK, "INSTR_EXEC" },
		{ MIDR_1176, "r11", 0x11, PMUSER_COUNT_USER, "LSU_FULL_STALL" },
		{ 0, "stall_slot", 0x3f, PMUSER_COUNT_USER, "STALL_SLOT" },
	};
	expect_parses(_metadata, cases, ARRAY_SIZE(cases));
}

TEST(evspec_errors)
{
	static const struct error_case cases[] = {
		{ MIDR_A72, "", -EINVAL, { "empty event spec" } },
		{ MIDR_A72, NULL, -EINVAL, { "empty event spec" } },
		{ MIDR_A72, "inst_retired,,cpu_cycles", -EINVAL, { "event 2 ''", "empty" } },
		{ MIDR_A72, ",inst_retired", -EINVAL, { "event 1 ''", "empty" } },
		{ MIDR_A72, "inst_retired,", -EINVAL, { "event 2 ''", "empty" } },
		{ MIDR_A72, "r0x1b", -EINVAL, { "'r0x1b'", "raw number is r and hex digits" } },
		{ MIDR_A72, "inst_retired,bogus_event", -ENOENT,
		  { "event 2 'bogus_event'", "Cortex-A72" } },
		{ MIDR_A53, "cpu_cycles,l1d_cache_refill_rd:k", -ENOENT,
		  { "event 2 'l1d_cache_refill_rd:k'", "Cortex-A53" } },
		{ 0x410fd7f0, "nope", -ENOENT, { "event 1 'nope'", "MIDR 0x410fd7f0" } },
		{ MIDR_1176, "inst_retired", -ENOENT, { "'inst_retired'", "ARM1176" } },
		{ MIDR_A72, "cpu_cycles:x", -EINVAL, { "event 1 'cpu_cycles:x'", "modifier ':x'" } },
		{ MIDR_A72, "cpu_cycles:uu", -EINVAL, { "'cpu_cycles:uu'", "modifier ':uu'" } },
		{ MIDR_A72, "cpu_cycles:kuk", -EINVAL, { "'cpu_cycles:kuk'", "modifier ':kuk'" } },
		{ MIDR_A72, "cpu_cycles:", -EINVAL, { "'cpu_cycles:'", "modifier ':'" } },
		{ MIDR_A72, "cpu_cycles:U", -EINVAL, { "'cpu_cycles:U'", "modifier ':U'" } },
		{ MIDR_A72, "cpu_cycles:u:k", -EINVAL, { "'cpu_cycles:u:k'", "modifier ':u:k'" } },
		{ MIDR_A72, "0x10000", -ERANGE, { "event 1 '0x10000'", "above 0xffff" } },
		{ MIDR_A72, "cpu_cycles,r123456789abcdef0123", -ERANGE,
		  { "event 2 'r123456789abcdef0123'", "above 0xffff" } },
		{ MIDR_A72, "0x11zz", -EINVAL, { "event 1 '0x11zz'", "unexpected 'z'" } },
		{ MIDR_A72, "0x", -EINVAL, { "event 1 '0x'", "no hex digits" } },
		{ MIDR_A72, "0xg:u", -EINVAL, { "event 1 '0xg:u'", "no hex digits" } },
		{ MIDR_A72, "inst_retired!", -EINVAL, { "'inst_retired!'", "unexpected '!'" } },
		{ MIDR_A72, "inst retired", -EINVAL, { "'inst retired'", "unexpected ' '" } },
		{ MIDR_A72, "-inst_retired", -EINVAL, { "'-inst_retired'", "unexpected '-'" } },
		{ MIDR_A72, "inst_retired\x01", -EINVAL, { "event 1", "byte 0x01" } },
		{ MIDR_A72, "17", -EINVAL, { "event 1 '17'", "decimal" } },
		{ MIDR_A72, "cpu_cycles,1b", -EINVAL, { "event 2 '1b'", "hex" } },
		{ MIDR_A72, ":u", -EINVAL, { "event 1 ':u'", "missing event" } },
		{ MIDR_A72, "inst_retired,cpu_cycles,br_mis_pred,0x12", -E2BIG,
		  { "event 3 'br_mis_pred'", "more than 2 events" } },
	};
	expect_errors(_metadata, cases, ARRAY_SIZE(cases));
}

/* perf's generic names, with modifiers and the entry's name. */
TEST(evspec_perf_names)
{
	static const struct parse_case cases[] = {
		{ MIDR_A72, "cycles", 0x11, PMUSER_COUNT_USER, "CPU_CYCLES" },
		{ MIDR_A72, "cpu-cycles:k", 0x11, PMUSER_COUNT_KERNEL, "CPU_CYCLES" },
		{ MIDR_A72, "instructions:u", 0x08, PMUSER_COUNT_USER, "INST_RETIRED" },
		{ MIDR_A72, "Instructions:uk", 0x08, PMUSER_COUNT_MASK, "INST_RETIRED" },
		{ MIDR_A72, "branches", 0x21, PMUSER_COUNT_USER, "BR_RETIRED" },
		{ MIDR_A72, "stalled-cycles-frontend", 0x23, PMUSER_COUNT_USER, "STALL_FRONTEND" },
		{ 0, "instructions", 0x08, PMUSER_COUNT_USER, "INST_RETIRED" },
		{ MIDR_A7, "branches", 0x0c, PMUSER_COUNT_USER, "PC_WRITE_RETIRED" },
		{ MIDR_A15, "branches:k", 0x76, PMUSER_COUNT_KERNEL, "PC_WRITE_SPEC" },
		{ MIDR_A15, "bus-cycles", 0x1d, PMUSER_COUNT_USER, "BUS_CYCLES" },
		/* Events the core's tables have no name for. */
		{ MIDR_A7, "cycles:uk", 0x11, PMUSER_COUNT_MASK, "CPU_CYCLES" },
		{ MIDR_A9, "instructions", 0x68, PMUSER_COUNT_USER, NULL },
		{ MIDR_A17, "branches", 0x76, PMUSER_COUNT_USER, NULL },
		{ MIDR_1176, "cycles", 0xff, PMUSER_COUNT_USER, "CPU_CYCLES" },
		{ MIDR_1176, "instructions:k", 0x07, PMUSER_COUNT_KERNEL, "INSTR_EXEC" },
		{ MIDR_1176, "stalled-cycles-backend", 0x11, PMUSER_COUNT_USER, "LSU_FULL_STALL" },
		/* A CPU PMU's events, as perf names them. */
		{ MIDR_A72, "armv8_pmuv3_0/inst_retired/", 0x08, PMUSER_COUNT_USER, "INST_RETIRED" },
		{ MIDR_A72, "armv8_pmuv3/cpu_cycles/k", 0x11, PMUSER_COUNT_KERNEL, "CPU_CYCLES" },
		{ MIDR_A72, "armv8_cortex_a72/event=0x8/", 0x08, PMUSER_COUNT_USER, "INST_RETIRED" },
		{ MIDR_A72, "armv8_cortex_a72/event=8/uk", 0x08, PMUSER_COUNT_MASK, "INST_RETIRED" },
		{ MIDR_A72, "armv8_pmuv3_0/event=0x11/:u", 0x11, PMUSER_COUNT_USER, "CPU_CYCLES" },
		{ MIDR_A72, "armv8_pmuv3_0/event=0/", 0x00, PMUSER_COUNT_USER, "SW_INCR" },
		{ MIDR_A72, "armv8_pmuv3_0/event=0xc0/", 0xc0, PMUSER_COUNT_USER, NULL },
		{ MIDR_A72, "armv8_pmuv3_0/instructions/", 0x08, PMUSER_COUNT_USER, "INST_RETIRED" },
		{ MIDR_A7, "armv7_cortex_a7/l1d_cache/", 0x04, PMUSER_COUNT_USER, "L1D_CACHE" },
		{ MIDR_1176, "armv6_1176/event=0x7/", 0x07, PMUSER_COUNT_USER, "INSTR_EXEC" },
	};
	expect_parses(_metadata, cases, ARRAY_SIZE(cases));
}

/* perf's generic names, in the order of the rows below. */
static const char *const perf_names[] = {
	"cycles", "cpu-cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-instructions", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend",
};

/* The kernel's map has no event for the name (HW_OP_UNSUPPORTED): perf says not supported. */
#define NO	(-1)

/*
 * Every generic name on a core of each of perf's maps, as the kernel's map gives it: ARMv8
 * from drivers/perf/arm_pmuv3.c (armv8_pmuv3_perf_map), ARMv7 from perf_event_v7.c
 * (arch/arm/kernel/ in 6.1, drivers/perf/arm_v7_pmu.c in 6.12 and 7.3), the ARM1176 from
 * perf_event_v6.c (drivers/perf/arm_v6_pmu.c in 6.12 and 7.3). Both drivers count cycles on
 * the cycle counter, as event 0xff; on ARMv7 the library takes the architected CPU_CYCLES
 * event (0x11) instead, since a counter set holds the cycle counter for its own cycles.
 */
static const struct {
	uint32_t midr;
	const char *core;
	int event[ARRAY_SIZE(perf_names)];
} perf_map_rows[] = {
	/* armv8_pmuv3_perf_map; branches BR_RETIRED (6.12 on, where PMCEID has it). */
	{ MIDR_A72, "Cortex-A72",
	  { 0x11, 0x11, 0x08, 0x04, 0x03, 0x21, 0x21, 0x10, 0x1d, 0x23, 0x24 } },
	{ MIDR_A53, "Cortex-A53",
	  { 0x11, 0x11, 0x08, 0x04, 0x03, 0x21, 0x21, 0x10, 0x1d, 0x23, 0x24 } },
	/* armv7_a5_perf_map */
	{ MIDR_A5, "Cortex-A5",
	  { 0x11, 0x11, 0x08, 0x04, 0x03, 0x0c, 0x0c, 0x10, NO, NO, NO } },
	/* armv7_a7_perf_map */
	{ MIDR_A7, "Cortex-A7",
	  { 0x11, 0x11, 0x08, 0x04, 0x03, 0x0c, 0x0c, 0x10, 0x1d, NO, NO } },
	/* armv7_a8_perf_map: ARMV7_A8_PERFCTR_STALL_ISIDE */
	{ MIDR_A8, "Cortex-A8",
	  { 0x11, 0x11, 0x08, 0x04, 0x03, 0x0c, 0x0c, 0x10, NO, 0x56, NO } },
	/* armv7_a9_perf_map: INSTR_CORE_RENAME, STALL_ICACHE, STALL_DISPATCH */
	{ MIDR_A9, "Cortex-A9",
	  { 0x11, 0x11, 0x68, 0x04, 0x03, 0x0c, 0x0c, 0x10, NO, 0x60, 0x66 } },
	/* armv7_a12_perf_map, the A17's too: ARMV7_A12_PERFCTR_PC_WRITE_SPEC */
	{ MIDR_A12, "Cortex-A12",
	  { 0x11, 0x11, 0x08, 0x04, 0x03, 0x76, 0x76, 0x10, 0x1d, NO, NO } },
	{ MIDR_A17, "Cortex-A17",
	  { 0x11, 0x11, 0x08, 0x04, 0x03, 0x76, 0x76, 0x10, 0x1d, NO, NO } },
	/* armv7_a15_perf_map: ARMV7_A15_PERFCTR_PC_WRITE_SPEC */
	{ MIDR_A15, "Cortex-A15",
	  { 0x11, 0x11, 0x08, 0x04, 0x03, 0x76, 0x76, 0x10, 0x1d, NO, NO } },
	/* armv6_perf_map: INSTR_EXEC, BR_EXEC, BR_MISPREDICT, IBUF_STALL, LSU_FULL_STALL */
	{ MIDR_1176, "ARM1176",
	  { 0xff, 0xff, 0x07, NO, NO, 0x05, 0x05, 0x06, NO, 0x01, 0x11 } },
};

TEST(evspec_perf_maps)
{
	struct pmuser_evspec_entry e;
	char err[200], want[120];
	size_t r, i, n;
	int ret;

	for (r = 0; r < ARRAY_SIZE(perf_map_rows); r++) {
		uint32_t midr = perf_map_rows[r].midr;
		const char *name;

		ASSERT_STREQ(perf_map_rows[r].core, pmuser_core_name(midr));
		snprintf(want, sizeof(want), "perf's name is not supported on this core (%s)",
			 perf_map_rows[r].core);
		for (i = 0; i < ARRAY_SIZE(perf_names); i++) {
			int ev = perf_map_rows[r].event[i];

			ret = pmuser_evspec_parse(perf_names[i], midr, &e, 1, &n, err, sizeof(err));
			if (ev == NO) {
				EXPECT_EQ(-ENOENT, ret)
					TH_LOG("%s on %s", perf_names[i], perf_map_rows[r].core);
				EXPECT_NE(NULL, strstr(err, want)) TH_LOG("%s: %s", perf_names[i], err);
				continue;
			}
			ASSERT_EQ(0, ret) TH_LOG("%s: %s", perf_names[i], err);
			EXPECT_EQ((uint32_t)ev, e.event)
				TH_LOG("%s on %s", perf_names[i], perf_map_rows[r].core);
			/* The entry's name is the tables' for that number, if they have one. */
			name = pmuser_event_name(midr, e.event);
			if (name) {
				EXPECT_STREQ(name, e.name);
			} else {
				EXPECT_EQ(NULL, e.name);
			}
		}
	}
}

/*
 * perf's hardware cache names, in the order of the rows below: every cache, operation and
 * result perf takes together (tools/perf/util/evsel.c, evsel__hw_cache_stat: L1-icache
 * loads and prefetches only, iTLB and branch loads only), as perf prints them.
 */
static const char *const cache_names[] = {
	"L1-dcache-loads", "L1-dcache-load-misses", "L1-dcache-stores", "L1-dcache-store-misses",
	"L1-dcache-prefetches", "L1-dcache-prefetch-misses",
	"L1-icache-loads", "L1-icache-load-misses", "L1-icache-prefetches",
	"L1-icache-prefetch-misses",
	"LLC-loads", "LLC-load-misses", "LLC-stores", "LLC-store-misses", "LLC-prefetches",
	"LLC-prefetch-misses",
	"dTLB-loads", "dTLB-load-misses", "dTLB-stores", "dTLB-store-misses", "dTLB-prefetches",
	"dTLB-prefetch-misses",
	"iTLB-loads", "iTLB-load-misses",
	"branch-loads", "branch-load-misses",
	"node-loads", "node-load-misses", "node-stores", "node-store-misses", "node-prefetches",
	"node-prefetch-misses",
};

#define MIDR_A35	0x410fd041
#define MIDR_A73	0x410fd092
#define MIDR_THUNDERX	0x431f0a11
#define MIDR_THUNDERX81	0x430f0a20
#define MIDR_VULCAN	0x420f5160
#define MIDR_THUNDERX2	0x431f0af1

/*
 * Every cache name on a core of each of the drivers' cache maps, as the kernel gives it, row
 * by row in the columns above (L1-dcache 6, L1-icache 4, LLC 6, dTLB 6, iTLB 2, branch 2,
 * node 6). ARMv8: drivers/perf/arm_pmuv3.c (arch/arm64/kernel/perf_event.c in 6.1, the same
 * maps), armv8_pmuv3_perf_cache_map for every core, then where it has no event the map the
 * core's devicetree compatible selects (armv8_pmuv3_map_event() and the core-specific
 * *_map_event()). ARMv7: drivers/perf/arm_v7_pmu.c's armv7_*_perf_cache_map; the ARM1176:
 * drivers/perf/arm_v6_pmu.c's armv6_perf_cache_map.
 */
static const struct {
	uint32_t midr;
	const char *what;
	int event[ARRAY_SIZE(cache_names)];
} cache_map_rows[] = {
	/* armv8_pmuv3_perf_cache_map, then armv8_a57_perf_cache_map (the A72's too). */
	{ MIDR_A72, "Cortex-A72",
	  { 0x04, 0x03, 0x41, 0x43, NO, NO,  0x14, 0x01, NO, NO,  0x36, 0x37, NO, NO, NO, NO,
	    0x25, 0x05, NO, 0x4d, NO, NO,  0x26, 0x02,  0x12, 0x10,  0x60, NO, 0x61, NO, NO, NO } },
	{ MIDR_A57, "Cortex-A57",
	  { 0x04, 0x03, 0x41, 0x43, NO, NO,  0x14, 0x01, NO, NO,  0x36, 0x37, NO, NO, NO, NO,
	    0x25, 0x05, NO, 0x4d, NO, NO,  0x26, 0x02,  0x12, 0x10,  0x60, NO, 0x61, NO, NO, NO } },
	/* armv8_a53_perf_cache_map (the A35's too): ARMV8_A53_PERFCTR_PREF_LINEFILL, bus. */
	{ MIDR_A53, "Cortex-A53",
	  { 0x04, 0x03, NO, NO, NO, 0xc2,  0x14, 0x01, NO, NO,  0x36, 0x37, NO, NO, NO, NO,
	    0x25, 0x05, NO, NO, NO, NO,  0x26, 0x02,  0x12, 0x10,  0x60, NO, 0x61, NO, NO, NO } },
	{ MIDR_A35, "Cortex-A35",
	  { 0x04, 0x03, NO, NO, NO, 0xc2,  0x14, 0x01, NO, NO,  0x36, 0x37, NO, NO, NO, NO,
	    0x25, 0x05, NO, NO, NO, NO,  0x26, 0x02,  0x12, 0x10,  0x60, NO, 0x61, NO, NO, NO } },
	/* armv8_a73_perf_cache_map: L1D_CACHE_WR. */
	{ MIDR_A73, "Cortex-A73",
	  { 0x04, 0x03, 0x41, NO, NO, NO,  0x14, 0x01, NO, NO,  0x36, 0x37, NO, NO, NO, NO,
	    0x25, 0x05, NO, NO, NO, NO,  0x26, 0x02,  0x12, 0x10,  NO, NO, NO, NO, NO, NO } },
	/* A core without a map of its own: the architected events alone. */
	{ MIDR_A76, "Cortex-A76",
	  { 0x04, 0x03, NO, NO, NO, NO,  0x14, 0x01, NO, NO,  0x36, 0x37, NO, NO, NO, NO,
	    0x25, 0x05, NO, NO, NO, NO,  0x26, 0x02,  0x12, 0x10,  NO, NO, NO, NO, NO, NO } },
	{ MIDR_THUNDERX81, "ThunderX 81xx",
	  { 0x04, 0x03, NO, NO, NO, NO,  0x14, 0x01, NO, NO,  0x36, 0x37, NO, NO, NO, NO,
	    0x25, 0x05, NO, NO, NO, NO,  0x26, 0x02,  0x12, 0x10,  NO, NO, NO, NO, NO, NO } },
	/* armv8_thunder_perf_cache_map: ARMV8_THUNDER_PERFCTR_*, L1D_TLB_RD/_WR. */
	{ MIDR_THUNDERX, "ThunderX",
	  { 0x04, 0x03, 0x41, 0xe9, 0xea, 0xeb,  0x14, 0x01, 0xec, 0xed,
	    0x36, 0x37, NO, NO, NO, NO,  0x25, 0x05, 0x4f, 0x4d, NO, NO,  0x26, 0x02,
	    0x12, 0x10,  NO, NO, NO, NO, NO, NO } },
	/* armv8_vulcan_perf_cache_map, ThunderX2's too. */
	{ MIDR_VULCAN, "Vulcan",
	  { 0x04, 0x03, 0x41, 0x43, NO, NO,  0x14, 0x01, NO, NO,  0x36, 0x37, NO, NO, NO, NO,
	    0x25, 0x05, 0x4f, 0x4d, NO, NO,  0x26, 0x02,  0x12, 0x10,  0x60, NO, 0x61, NO, NO, NO } },
	{ MIDR_THUNDERX2, "ThunderX2",
	  { 0x04, 0x03, 0x41, 0x43, NO, NO,  0x14, 0x01, NO, NO,  0x36, 0x37, NO, NO, NO, NO,
	    0x25, 0x05, 0x4f, 0x4d, NO, NO,  0x26, 0x02,  0x12, 0x10,  0x60, NO, 0x61, NO, NO, NO } },
	/* armv7_a5_perf_cache_map: ARMV7_A5_PERFCTR_PREFETCH_LINEFILL(_DROP), I and D. */
	{ MIDR_A5, "Cortex-A5",
	  { 0x04, 0x03, 0x04, 0x03, 0xc2, 0xc3,  0x14, 0x01, 0xc2, 0xc3,  NO, NO, NO, NO, NO, NO,
	    NO, 0x05, NO, 0x05, NO, NO,  NO, 0x02,  0x12, 0x10,  NO, NO, NO, NO, NO, NO } },
	/* armv7_a7_perf_cache_map: ARMV7_PERFCTR_L2_CACHE_ACCESS, _REFILL. */
	{ MIDR_A7, "Cortex-A7",
	  { 0x04, 0x03, 0x04, 0x03, NO, NO,  0x14, 0x01, NO, NO,  0x16, 0x17, 0x16, 0x17, NO, NO,
	    NO, 0x05, NO, 0x05, NO, NO,  NO, 0x02,  0x12, 0x10,  NO, NO, NO, NO, NO, NO } },
	/* armv7_a8_perf_cache_map: ARMV7_A8_PERFCTR_L1_ICACHE_ACCESS, _L2_CACHE_*. */
	{ MIDR_A8, "Cortex-A8",
	  { 0x04, 0x03, 0x04, 0x03, NO, NO,  0x50, 0x01, NO, NO,  0x43, 0x44, 0x43, 0x44, NO, NO,
	    NO, 0x05, NO, 0x05, NO, NO,  NO, 0x02,  0x12, 0x10,  NO, NO, NO, NO, NO, NO } },
	/* armv7_a9_perf_cache_map */
	{ MIDR_A9, "Cortex-A9",
	  { 0x04, 0x03, 0x04, 0x03, NO, NO,  NO, 0x01, NO, NO,  NO, NO, NO, NO, NO, NO,
	    NO, 0x05, NO, 0x05, NO, NO,  NO, 0x02,  0x12, 0x10,  NO, NO, NO, NO, NO, NO } },
	/* armv7_a12_perf_cache_map, the A17's too: ARMV7_A12_PERFCTR_*, PF_TLB_REFILL. */
	{ MIDR_A12, "Cortex-A12",
	  { 0x40, 0x03, 0x41, 0x03, NO, NO,  0x14, 0x01, NO, NO,  0x50, 0x17, 0x51, 0x17, NO, NO,
	    NO, 0x05, NO, 0x05, NO, 0xe7,  NO, 0x02,  0x12, 0x10,  NO, NO, NO, NO, NO, NO } },
	{ MIDR_A17, "Cortex-A17",
	  { 0x40, 0x03, 0x41, 0x03, NO, NO,  0x14, 0x01, NO, NO,  0x50, 0x17, 0x51, 0x17, NO, NO,
	    NO, 0x05, NO, 0x05, NO, 0xe7,  NO, 0x02,  0x12, 0x10,  NO, NO, NO, NO, NO, NO } },
	/* armv7_a15_perf_cache_map: ARMV7_A15_PERFCTR_* by direction. */
	{ MIDR_A15, "Cortex-A15",
	  { 0x40, 0x42, 0x41, 0x43, NO, NO,  0x14, 0x01, NO, NO,  0x50, 0x52, 0x51, 0x53, NO, NO,
	    NO, 0x4c, NO, 0x4d, NO, NO,  NO, 0x02,  0x12, 0x10,  NO, NO, NO, NO, NO, NO } },
	/* armv6_perf_cache_map: DCACHE_ACCESS, DCACHE_MISS, ICACHE_MISS, DTLB_MISS, ITLB_MISS. */
	{ MIDR_1176, "ARM1176",
	  { 0x0a, 0x0b, 0x0a, 0x0b, NO, NO,  NO, 0x00, NO, NO,  NO, NO, NO, NO, NO, NO,
	    NO, 0x04, NO, 0x04, NO, NO,  NO, 0x03,  NO, NO,  NO, NO, NO, NO, NO, NO } },
	/* An ARMv7 part perf's maps do not name: which map its driver takes is unknown. */
	{ 0x410fc0b0, "MIDR 0x410fc0b0",
	  { NO, NO, NO, NO, NO, NO,  NO, NO, NO, NO,  NO, NO, NO, NO, NO, NO,
	    NO, NO, NO, NO, NO, NO,  NO, NO,  NO, NO,  NO, NO, NO, NO, NO, NO } },
};

TEST(evspec_perf_cache_maps)
{
	struct pmuser_evspec_entry e;
	char err[200], want[120], canon[40];
	size_t r, i, n;
	int ret;

	for (r = 0; r < ARRAY_SIZE(cache_map_rows); r++) {
		uint32_t midr = cache_map_rows[r].midr;
		const char *core = pmuser_core_name(midr), *name;

		if (core)
			snprintf(want, sizeof(want), "perf's name is not supported on this core (%s)",
				 core);
		else
			snprintf(want, sizeof(want),
				 "perf's name is not supported on this core (MIDR 0x%08x)", midr);
		for (i = 0; i < ARRAY_SIZE(cache_names); i++) {
			int ev = cache_map_rows[r].event[i];

			/* The columns are perf's own names. */
			ASSERT_EQ(0, pmuser_evspec_perf_name(cache_names[i], canon, sizeof(canon)));
			EXPECT_STREQ(cache_names[i], canon);
			ret = pmuser_evspec_parse(cache_names[i], midr, &e, 1, &n, err, sizeof(err));
			if (ev == NO) {
				EXPECT_EQ(-ENOENT, ret)
					TH_LOG("%s on %s", cache_names[i], cache_map_rows[r].what);
				EXPECT_NE(NULL, strstr(err, want)) TH_LOG("%s: %s", cache_names[i], err);
				continue;
			}
			ASSERT_EQ(0, ret) TH_LOG("%s on %s: %s", cache_names[i],
						 cache_map_rows[r].what, err);
			EXPECT_EQ((uint32_t)ev, e.event)
				TH_LOG("%s on %s", cache_names[i], cache_map_rows[r].what);
			name = pmuser_event_name(midr, e.event);
			if (name) {
				EXPECT_STREQ(name, e.name);
			} else {
				EXPECT_EQ(NULL, e.name);
			}
		}
	}
}

/*
 * perf's other spellings (evsel.c's alias words, in any case, an operation and a result in
 * either order; no operation is a load, no result an access) are the same events, and are
 * named as perf prints the event.
 */
TEST(evspec_perf_cache_spellings)
{
	static const struct {
		const char *spelled, *perf;
	} cases[] = {
		{ "L1-dcache", "L1-dcache-loads" },
		{ "l1-d-load", "L1-dcache-loads" },
		{ "l1d-misses", "L1-dcache-load-misses" },
		{ "L1-data-read-miss", "L1-dcache-load-misses" },
		{ "L1-dcache-misses", "L1-dcache-load-misses" },
		{ "L1-dcache-misses-load", "L1-dcache-load-misses" },
		{ "l1d-refs", "L1-dcache-loads" },
		{ "L1-dcache-loads-access", "L1-dcache-loads" },
		{ "L1-dcache-ops", "L1-dcache-loads" },
		{ "L1-dcache-Reference", "L1-dcache-loads" },
		{ "L1-DCACHE-STORE", "L1-dcache-stores" },
		{ "l1d-write-misses", "L1-dcache-store-misses" },
		{ "L1-dcache-speculative-read", "L1-dcache-prefetches" },
		{ "L1-dcache-speculative-load-miss", "L1-dcache-prefetch-misses" },
		{ "l1i", "L1-icache-loads" },
		{ "l1-i-misses", "L1-icache-load-misses" },
		{ "L1-instruction-prefetch", "L1-icache-prefetches" },
		{ "LLC", "LLC-loads" },
		{ "L2-misses", "LLC-load-misses" },
		{ "llc-stores", "LLC-stores" },
		{ "dtlb", "dTLB-loads" },
		{ "d-tlb-misses", "dTLB-load-misses" },
		{ "Data-TLB-store-misses", "dTLB-store-misses" },
		{ "i-tlb", "iTLB-loads" },
		{ "Instruction-TLB-miss", "iTLB-load-misses" },
		{ "branch", "branch-loads" },
		{ "bpu-misses", "branch-load-misses" },
		{ "btb-load", "branch-loads" },
		{ "bpc-miss", "branch-load-misses" },
		{ "branches-loads", "branch-loads" },
		{ "node", "node-loads" },
		{ "node-write", "node-stores" },
		/* perf's generic hardware names, by the one perf prints. */
		{ "cpu-cycles", "cycles" },
		{ "CYCLES", "cycles" },
		{ "branch-instructions", "branches" },
		{ "branches", "branches" },
		{ "branch-misses", "branch-misses" },
		{ "stalled-cycles-backend", "stalled-cycles-backend" },
	};
	static const uint32_t midrs[] = { MIDR_A72, MIDR_A53, MIDR_THUNDERX, MIDR_A7, MIDR_A15,
					   MIDR_1176 };
	struct pmuser_evspec_entry a, b, two[2];
	char err[200], canon[40];
	size_t i, k, n;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		ASSERT_EQ(0, pmuser_evspec_perf_name(cases[i].spelled, canon, sizeof(canon)))
			TH_LOG("%s", cases[i].spelled);
		EXPECT_STREQ(cases[i].perf, canon);
		/* The same event as the name perf prints, or the same refusal, on every map. */
		for (k = 0; k < ARRAY_SIZE(midrs); k++) {
			ret = pmuser_evspec_parse(cases[i].perf, midrs[k], &b, 1, &n, err,
						  sizeof(err));
			EXPECT_EQ(ret, pmuser_evspec_parse(cases[i].spelled, midrs[k], &a, 1, &n,
							   err, sizeof(err)))
				TH_LOG("%s on 0x%08x", cases[i].spelled, midrs[k]);
			if (!ret)
				EXPECT_EQ(b.event, a.event) TH_LOG("%s", cases[i].spelled);
		}
	}
	/* Modifiers follow as with any name. */
	ASSERT_EQ(0, pmuser_evspec_parse("L1-dcache-load-misses:k,dTLB-loads:uk", MIDR_A72, two,
					 ARRAY_SIZE(two), &n, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(2, n);
	EXPECT_EQ(0x03, two[0].event);
	EXPECT_EQ(PMUSER_COUNT_KERNEL, two[0].flags);
	EXPECT_EQ(0x25, two[1].event);
	EXPECT_EQ(PMUSER_COUNT_MASK, two[1].flags);
	ASSERT_EQ(0, pmuser_evspec_parse("LLC-load-misses:k", MIDR_A7, &a, 1, &n, err,
					 sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(0x17, a.event);
	EXPECT_EQ(PMUSER_COUNT_KERNEL, a.flags);
	ASSERT_EQ(0, pmuser_evspec_parse("armv8_pmuv3_0/L1-dcache-loads/k", MIDR_A72, &a, 1, &n,
					 err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(0x04, a.event);
	/* What is none of perf's names. */
	EXPECT_EQ(-ENOENT, pmuser_evspec_perf_name("inst_retired", canon, sizeof(canon)));
	EXPECT_EQ(-ENOENT, pmuser_evspec_perf_name("L1-icache-stores", canon, sizeof(canon)));
	EXPECT_EQ(-ENOENT, pmuser_evspec_perf_name("L1-dcache-loads:u", canon, sizeof(canon)));
	EXPECT_EQ(-ENOENT, pmuser_evspec_perf_name("l1d_cache", canon, sizeof(canon)));
	EXPECT_EQ(-ENOENT, pmuser_evspec_perf_name("", canon, sizeof(canon)));
	EXPECT_EQ(-ENOSPC, pmuser_evspec_perf_name("l1d-misses", canon, 21));
	EXPECT_EQ(0, pmuser_evspec_perf_name("l1d-misses", canon, 22));
	EXPECT_EQ(-EINVAL, pmuser_evspec_perf_name(NULL, canon, sizeof(canon)));
}

TEST(evspec_perf_cache_errors)
{
	static const struct error_case cases[] = {
		/* Operations perf does not take for the cache (evsel__hw_cache_stat). */
		{ MIDR_A72, "L1-icache-stores", -ENOENT,
		  { "'L1-icache-stores'", "perf has no L1-icache stores: it counts loads and prefetches" } },
		{ MIDR_A72, "iTLB-prefetch-misses", -ENOENT, { "no iTLB prefetches", "loads of it" } },
		{ MIDR_A7, "cycles,branch-stores", -ENOENT, { "event 2 'branch-stores'", "no branch stores" } },
		/* perf would drop the second of two operations or results: refused. */
		{ MIDR_A72, "L1-dcache-load-store", -EINVAL, { "two operations" } },
		{ MIDR_A72, "LLC-misses-miss", -EINVAL, { "two results" } },
		{ MIDR_A72, "L1-dcache-load-misses-x", -EINVAL, { "no more" } },
		{ MIDR_A72, "L1-dcache-bogus", -EINVAL, { "'bogus' is none of perf's cache operations" } },
		{ MIDR_A72, "dTLB-", -EINVAL, { "ends in '-'" } },
		{ MIDR_A72, "dTLB--loads", -EINVAL, { "an empty word" } },
		/* A cache word must end at a '-': these are names of nothing. */
		{ MIDR_A72, "L1-dcachex", -EINVAL, { "unexpected '-'" } },
		{ MIDR_A72, "nodes", -ENOENT, { "no event of that name" } },
		/* A name the core's map has no event for. */
		{ MIDR_A9, "LLC-loads:u", -ENOENT,
		  { "'LLC-loads:u'", "not supported on this core (Cortex-A9)" } },
		{ MIDR_1176, "branch-loads", -ENOENT, { "not supported on this core (ARM1176)" } },
		{ MIDR_A76, "L1-dcache-stores", -ENOENT, { "not supported on this core (Cortex-A76)" } },
	};
	expect_errors(_metadata, cases, ARRAY_SIZE(cases));
}

/* A PMU's slashes keep their comma: the element does not end there. */
TEST(evspec_perf_sets)
{
	struct pmuser_evspec_entry e[4];
	char err[160];
	size_t n = 0;

	ASSERT_EQ(0, pmuser_evspec_parse("cycles:u,armv8_pmuv3_0/inst_retired/k,instructions",
					 MIDR_A72, e, ARRAY_SIZE(e), &n, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(3, n);
	EXPECT_EQ(0x11, e[0].event);
	EXPECT_EQ(0x08, e[1].event);
	EXPECT_EQ(PMUSER_COUNT_KERNEL, e[1].flags);
	EXPECT_EQ(0x08, e[2].event);
	EXPECT_EQ(PMUSER_COUNT_USER, e[2].flags);
	/* Each entry says where it was written. */
	ASSERT_EQ(0, pmuser_evspec_parse("r8,armv8_pmuv3_0/inst_retired/k,cycles",
					 MIDR_A72, e, ARRAY_SIZE(e), &n, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(3, n);
	EXPECT_EQ(0, e[0].offset);
	EXPECT_EQ(2, e[0].length);
	EXPECT_EQ(3, e[1].offset);
	EXPECT_EQ(28, e[1].length);
	EXPECT_EQ(32, e[2].offset);
	EXPECT_EQ(6, e[2].length);
}

TEST(evspec_perf_errors)
{
	static const struct error_case cases[] = {
		{ MIDR_A7, "stalled-cycles-frontend", -ENOENT,
		  { "'stalled-cycles-frontend'", "not supported on this core (Cortex-A7)" } },
		{ MIDR_1176, "cycles,cache-misses", -ENOENT,
		  { "event 2 'cache-misses'", "not supported on this core (ARM1176)" } },
		/* An ARMv7 part perf's maps do not name: which map its driver takes is unknown. */
		{ 0x410fc0b0, "instructions", -ENOENT, { "not supported", "MIDR 0x410fc0b0" } },
		{ 0x410fb022, "cycles", -ENOENT, { "not supported", "MIDR 0x410fb022" } },
		{ MIDR_A72, "instructions:p", -EINVAL, { "'instructions:p'", "modifier ':p'" } },
		{ MIDR_A72, "cpu-cyclez", -EINVAL, { "'cpu-cyclez'", "unexpected '-'" } },
		{ MIDR_A72, "arm_dsu_0/event=0x11/", -ENOENT,
		  { "'arm_dsu_0' is not a CPU PMU", "armv8_pmuv3_0" } },
		{ MIDR_A72, "/inst_retired/", -EINVAL, { "missing PMU name" } },
		{ MIDR_A72, "armv8_pmuv3_0/inst_retired", -EINVAL, { "no closing '/'" } },
		{ MIDR_A72, "armv8_pmuv3_0//", -EINVAL, { "no event between the slashes" } },
		{ MIDR_A72, "armv8_pmuv3_0/bogus/", -ENOENT,
		  { "'armv8_pmuv3_0/bogus/'", "no event of that name on this core (Cortex-A72)" } },
		{ MIDR_A72, "armv8_pmuv3_0/event=0x8,config1=1/", -EINVAL, { "one term" } },
		{ MIDR_A72, "armv8_pmuv3_0/config=0x8/", -EINVAL,
		  { "term 'config=0x8' is not supported" } },
		{ MIDR_A72, "armv8_pmuv3_0/event=/", -EINVAL, { "event= needs a number" } },
		{ MIDR_A72, "armv8_pmuv3_0/event=010/", -EINVAL, { "octal" } },
		{ MIDR_A72, "armv8_pmuv3_0/event=0x/", -EINVAL, { "no hex digits" } },
		{ MIDR_A72, "armv8_pmuv3_0/event=8z/", -EINVAL, { "unexpected 'z' after the number" } },
		{ MIDR_A72, "armv8_pmuv3_0/event=65536/", -ERANGE, { "above 0xffff" } },
		{ MIDR_A72, "armv8_pmuv3_0/event=0x8/x", -EINVAL, { "modifier" } },
		{ MIDR_A72, "armv8_pmuv3_0/event=0x8/:", -EINVAL, { "modifier" } },
	};
	expect_errors(_metadata, cases, ARRAY_SIZE(cases));
}

TEST(evspec_long_element)
{
	struct pmuser_evspec_entry e[1];
	char spec[300], err[200], small[12];
	size_t n;

	memset(spec, 'a', sizeof(spec) - 1);
	spec[sizeof(spec) - 1] = '\0';
	EXPECT_EQ(-ENOENT, pmuser_evspec_parse(spec, MIDR_A72, e, 1, &n, err, sizeof(err)));
	/* Quoted, but shortened. */
	EXPECT_NE(NULL, strstr(err, "event 1 'aaaa"));
	EXPECT_NE(NULL, strstr(err, "...'"));
	EXPECT_GT(120, strlen(err));
	/* A buffer too small for the message still ends in a NUL; none at all is fine too. */
	EXPECT_EQ(-ENOENT, pmuser_evspec_parse("zzz", MIDR_A72, e, 1, &n, small, sizeof(small)));
	EXPECT_EQ(sizeof(small) - 1, strlen(small));
	EXPECT_EQ(-ENOENT, pmuser_evspec_parse("zzz", MIDR_A72, e, 1, &n, NULL, 0));
	EXPECT_EQ(-EINVAL, pmuser_evspec_parse("0x", MIDR_A72, e, 1, &n, small, 0));
}

TEST(evspec_max_events)
{
	struct pmuser_evspec_entry e[PMUSER_MAX_EVENTS + 1];
	char spec[PMUSER_MAX_EVENTS * 16 + 16] = "", err[128];
	size_t i, n = 0;

	for (i = 0; i < PMUSER_MAX_EVENTS; i++)
		strcat(spec, i % 2 ? "cpu_cycles," : "0x8:k,");
	spec[strlen(spec) - 1] = '\0';
	ASSERT_EQ(0, pmuser_evspec_parse(spec, MIDR_A53, e, PMUSER_MAX_EVENTS, &n, err,
					 sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(PMUSER_MAX_EVENTS, n);
	EXPECT_EQ(0x08, e[PMUSER_MAX_EVENTS - 1].event);
	EXPECT_EQ(PMUSER_COUNT_KERNEL, e[PMUSER_MAX_EVENTS - 1].flags);

	strcat(spec, ",br_pred");
	EXPECT_EQ(-E2BIG, pmuser_evspec_parse(spec, MIDR_A53, e, PMUSER_MAX_EVENTS, &n, err,
					      sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "event 32 'br_pred': more than 31 events")) TH_LOG("%s", err);
	EXPECT_EQ(0, pmuser_evspec_parse(spec, MIDR_A53, e, PMUSER_MAX_EVENTS + 1, &n, err,
					 sizeof(err)));
	EXPECT_EQ(PMUSER_MAX_EVENTS + 1, n);

	EXPECT_EQ(-E2BIG, pmuser_evspec_parse("cpu_cycles", MIDR_A53, NULL, 0, &n, err,
					      sizeof(err)));
	EXPECT_EQ(-EINVAL, pmuser_evspec_parse("cpu_cycles", MIDR_A53, NULL, 1, &n, err,
					       sizeof(err)));
	EXPECT_EQ(-EINVAL, pmuser_evspec_parse("cpu_cycles", MIDR_A53, e, 1, NULL, err,
					       sizeof(err)));
}

TEST_HARNESS_MAIN
