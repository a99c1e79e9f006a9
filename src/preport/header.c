/* SPDX-License-Identifier: MIT */
/*
 * preport --header / --header-only: the recording's header, feature by feature, in the order
 * of the feature bits and in `# key : value` lines, so that it reads like perf's header dump.
 *
 * Every payload comes from the file and is decoded with the bounds-checked cursor of
 * prec_reader.h.  Each feature is first printed into a memory stream; only when its payload
 * decoded completely is that text written out, otherwise one `# NAME: malformed` line is, and
 * the next feature is printed anyway.  Strings are cleaned of control characters before they
 * reach the terminal.  In pipe form the caller must have called prec_reader__read_header().
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "prec_abi.h"
#include "preport.h"

/* What printers need besides their own payload. */
struct hdr {
	struct prec_reader *r;
	bool have_nrcpus;
	uint32_t nr_cpus_avail;
};

typedef int (*feat_printer)(const struct hdr *h, struct prec_feat_cursor *c, FILE *out);

/* ---- small helpers ------------------------------------------------------------------------ */

/* Replace control characters so that a hostile string cannot drive the terminal. */
static char *clean(char *s)
{
	unsigned char *p;

	for (p = (unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
	return s;
}

/* A string from the cursor, cleaned; the caller frees it. */
static int get_str(struct prec_feat_cursor *c, char **ret)
{
	int err = prec_feat__string(c, ret);

	if (!err)
		clean(*ret);
	return err;
}

/* Print a string feature as "# label : value". */
static int print_str(struct prec_feat_cursor *c, FILE *out, const char *label)
{
	char *s;
	int err = get_str(c, &s);

	if (err)
		return err;
	fprintf(out, "# %s : %s\n", label, s);
	free(s);
	return 0;
}

static int skip_str(struct prec_feat_cursor *c)
{
	const void *p;
	uint32_t len;
	int err = prec_feat__u32(c, &len);

	return err ? err : prec_feat__bytes(c, len, &p);
}

static int skip_str_list(struct prec_feat_cursor *c)
{
	uint32_t nr, i;
	int err = prec_feat__u32(c, &nr);

	for (i = 0; !err && i < nr; i++)
		err = skip_str(c);
	return err;
}

/* Each string of a string list on its own line, "# label : s". */
static int print_str_list_lines(struct prec_feat_cursor *c, FILE *out, const char *label)
{
	uint32_t nr, i;
	int err = prec_feat__u32(c, &nr);

	for (i = 0; !err && i < nr; i++)
		err = print_str(c, out, label);
	return err;
}

/* "24G", "128M", "32K", "512": the largest binary unit that leaves a value of at least 1. */
static void human_size(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	uint64_t div = 1;
	int u = -1;

	while (u < 5 && bytes / div >= 1024) {
		div *= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%" PRIu64, bytes);
	else if (bytes % div == 0)
		snprintf(buf, len, "%" PRIu64 "%c", bytes / div, units[u]);
	else
		snprintf(buf, len, "%.1f%c", (double)bytes / (double)div, units[u]);
}

static bool bit_set(const unsigned char *words, uint64_t bit)
{
	uint64_t w;

	memcpy(&w, words + bit / 64 * 8, 8);
	return (w >> (bit % 64)) & 1;
}

/* The set bits of a bitmap as ranges: "0-23,32-199". */
static void print_bit_ranges(FILE *out, const unsigned char *words, uint64_t nbits)
{
	uint64_t b = 0, start;
	bool first = true;

	while (b < nbits) {
		if (!bit_set(words, b)) {
			b++;
			continue;
		}
		start = b;
		while (b + 1 < nbits && bit_set(words, b + 1))
			b++;
		fprintf(out, "%s%" PRIu64, first ? "" : ",", start);
		if (b > start)
			fprintf(out, "-%" PRIu64, b);
		first = false;
		b++;
	}
	if (first)
		fputs("none", out);
}

/* Names of the set bits of `mask`, joined by '|'; unknown bits as one hex remainder. */
static void print_mask(FILE *out, uint64_t mask, const char *const *names, unsigned int nr)
{
	bool first = true;
	unsigned int i;

	for (i = 0; i < nr && i < 64; i++) {
		if (!(mask & (1ULL << i)))
			continue;
		fprintf(out, "%s%s", first ? "" : "|", names[i]);
		mask &= ~(1ULL << i);
		first = false;
	}
	if (mask)
		fprintf(out, "%s%#" PRIx64, first ? "" : "|", mask);
	else if (first)
		fputc('0', out);
}

/* ---- events --------------------------------------------------------------------------------- */

static const char *const sample_type_names[] = {
	"IP",	     "TID",	      "TIME",	       "ADDR",	     "READ",
	"CALLCHAIN", "ID",	      "CPU",	       "PERIOD",     "STREAM_ID",
	"RAW",	     "BRANCH_STACK",  "REGS_USER",     "STACK_USER", "WEIGHT",
	"DATA_SRC",  "IDENTIFIER",    "TRANSACTION",   "REGS_INTR",  "PHYS_ADDR",
	"AUX",	     "CGROUP",	      "DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT",
};

static const char *const read_format_names[] = {
	"TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST",
};

/* The attr flag word (the bit-fields after read_format), by bit number and width. */
static const struct attr_flag {
	const char *name;
	unsigned char bit, width;
} attr_flags[] = {
	{ "disabled", 0, 1 },	    { "inherit", 1, 1 },
	{ "pinned", 2, 1 },	    { "exclusive", 3, 1 },
	{ "exclude_user", 4, 1 },   { "exclude_kernel", 5, 1 },
	{ "exclude_hv", 6, 1 },	    { "exclude_idle", 7, 1 },
	{ "mmap", 8, 1 },	    { "comm", 9, 1 },
	{ "freq", 10, 1 },	    { "inherit_stat", 11, 1 },
	{ "enable_on_exec", 12, 1 }, { "task", 13, 1 },
	{ "watermark", 14, 1 },	    { "precise_ip", 15, 2 },
	{ "mmap_data", 17, 1 },	    { "sample_id_all", 18, 1 },
	{ "exclude_host", 19, 1 },  { "exclude_guest", 20, 1 },
	{ "exclude_callchain_kernel", 21, 1 }, { "exclude_callchain_user", 22, 1 },
	{ "mmap2", 23, 1 },	    { "comm_exec", 24, 1 },
	{ "use_clockid", 25, 1 },   { "context_switch", 26, 1 },
	{ "write_backward", 27, 1 }, { "namespaces", 28, 1 },
	{ "ksymbol", 29, 1 },	    { "bpf_event", 30, 1 },
	{ "aux_output", 31, 1 },    { "cgroup", 32, 1 },
	{ "text_poke", 33, 1 },	    { "build_id", 34, 1 },
	{ "inherit_thread", 35, 1 }, { "remove_on_exec", 36, 1 },
	{ "sigtrap", 37, 1 },
};

static const char *attr_type_name(uint32_t type)
{
	static const char *const names[] = {
		"hardware", "software", "tracepoint", "hw-cache", "raw", "breakpoint",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : NULL;
}

/* One "# event : ..." line. `ids` may be unaligned (it points into a payload). */
static void print_event(FILE *out, const char *name, const struct perf_event_attr *a,
			const void *ids, size_t nr_ids)
{
	const unsigned char *idp = ids;
	const char *tname = attr_type_name(a->type);
	uint64_t flags, id;
	unsigned int i;
	size_t k;

	memcpy(&flags, (const char *)a + offsetof(struct perf_event_attr, read_format) + 8, 8);

	fprintf(out, "# event : name = %s", name);
	if (nr_ids) {
		fputs(", id = {", out);
		for (k = 0; k < nr_ids; k++) {
			memcpy(&id, idp + k * 8, 8);
			fprintf(out, "%s %" PRIu64, k ? "," : "", id);
		}
		fputs(" }", out);
	}
	fprintf(out, ", type = %u", a->type);
	if (tname)
		fprintf(out, " (%s)", tname);
	fprintf(out, ", size = %u, config = %#" PRIx64, a->size, (uint64_t)a->config);
	fprintf(out, ", %s = %" PRIu64, a->freq ? "sample_freq" : "sample_period",
		(uint64_t)a->sample_period);
	fputs(", sample_type = ", out);
	print_mask(out, a->sample_type, sample_type_names,
		   sizeof(sample_type_names) / sizeof(sample_type_names[0]));
	fputs(", read_format = ", out);
	print_mask(out, a->read_format, read_format_names,
		   sizeof(read_format_names) / sizeof(read_format_names[0]));
	for (i = 0; i < sizeof(attr_flags) / sizeof(attr_flags[0]); i++) {
		const struct attr_flag *f = &attr_flags[i];
		uint64_t v = (flags >> f->bit) & ((1ULL << f->width) - 1);

		if (v)
			fprintf(out, ", %s = %" PRIu64, f->name, v);
	}
	if (flags >> 38)
		fprintf(out, ", reserved flag bits = %#" PRIx64, (flags >> 38) << 38);
	if (a->wakeup_events)
		fprintf(out, ", %s = %u", a->watermark ? "wakeup_watermark" : "wakeup_events",
			a->wakeup_events);
	if (a->bp_type)
		fprintf(out, ", bp_type = %#x", a->bp_type);
	if (a->config1)
		fprintf(out, ", %s = %#" PRIx64,
			a->type == PERF_TYPE_BREAKPOINT ? "bp_addr" : "config1",
			(uint64_t)a->config1);
	if (a->config2)
		fprintf(out, ", %s = %#" PRIx64,
			a->type == PERF_TYPE_BREAKPOINT ? "bp_len" : "config2",
			(uint64_t)a->config2);
	if (a->branch_sample_type)
		fprintf(out, ", branch_sample_type = %#" PRIx64, (uint64_t)a->branch_sample_type);
	if (a->sample_regs_user)
		fprintf(out, ", sample_regs_user = %#" PRIx64, (uint64_t)a->sample_regs_user);
	if (a->sample_stack_user)
		fprintf(out, ", sample_stack_user = %u", a->sample_stack_user);
	if (a->use_clockid || a->clockid)
		fprintf(out, ", clockid = %d", a->clockid);
	if (a->sample_regs_intr)
		fprintf(out, ", sample_regs_intr = %#" PRIx64, (uint64_t)a->sample_regs_intr);
	if (a->aux_watermark)
		fprintf(out, ", aux_watermark = %u", a->aux_watermark);
	if (a->sample_max_stack)
		fprintf(out, ", sample_max_stack = %u", a->sample_max_stack);
	if (a->aux_sample_size)
		fprintf(out, ", aux_sample_size = %u", a->aux_sample_size);
	if (a->sig_data)
		fprintf(out, ", sig_data = %#" PRIx64, (uint64_t)a->sig_data);
	fputc('\n', out);
}

/* EVENT_DESC: u32 nr, u32 attr_size, then per event attr, u32 nr_ids, string name, u64 ids[]. */
static int print_event_desc(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	uint32_t nr, asz, nids, i;
	struct perf_event_attr a;
	const void *p, *ids;
	char *name;
	int err;

	(void)h;
	err = prec_feat__u32(c, &nr);
	if (!err)
		err = prec_feat__u32(c, &asz);
	if (err)
		return err;
	if (nr && asz < PERF_ATTR_SIZE_VER0)
		return -EBADMSG;
	for (i = 0; i < nr; i++) {
		err = prec_feat__bytes(c, asz, &p);
		if (!err)
			err = prec_feat__u32(c, &nids);
		if (err)
			return err;
		memset(&a, 0, sizeof(a));
		memcpy(&a, p, asz < sizeof(a) ? asz : sizeof(a));
		err = get_str(c, &name);
		if (err)
			return err;
		err = prec_feat__bytes(c, (size_t)nids * 8, &ids);
		if (!err)
			print_event(out, name, &a, ids, nids);
		free(name);
		if (err)
			return err;
	}
	return 0;
}

/* Without EVENT_DESC: the events from the attrs section or the HEADER_ATTR records. */
static void print_evsels(struct prec_reader *r, FILE *out)
{
	size_t i, n = prec_reader__nr_evsels(r);

	for (i = 0; i < n; i++) {
		const struct prec_evsel *e = prec_reader__evsel(r, i);

		print_event(out, e->name, &e->attr, e->ids, e->nr_ids);
	}
}

/* ---- the features ------------------------------------------------------------------------- */

static int print_tracing_data(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	(void)h;
	fprintf(out, "# tracing data : %zu bytes\n", c->len);
	return 0;
}

/* BUILD_ID: entries of {perf_event_header, pid, build id, name}, each sized by its header. */
static int print_build_id(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	struct perf_event_header eh;
	unsigned long n = 0;
	const void *p;
	int err;

	(void)h;
	while (c->off < c->len) {
		err = prec_feat__bytes(c, sizeof(eh), &p);
		if (err)
			return err;
		memcpy(&eh, p, sizeof(eh));
		if (eh.size < sizeof(eh))
			return -EBADMSG;
		err = prec_feat__bytes(c, eh.size - sizeof(eh), &p);
		if (err)
			return err;
		n++;
	}
	fprintf(out, "# build id entries : %lu\n", n);
	return 0;
}

static int print_hostname(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	(void)h;
	return print_str(c, out, "hostname");
}

static int print_osrelease(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	(void)h;
	return print_str(c, out, "os release");
}

static int print_version(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	(void)h;
	return print_str(c, out, "perf version");
}

static int print_arch(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	(void)h;
	return print_str(c, out, "arch");
}

static int print_nrcpus(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	uint32_t avail, online;
	int err;

	(void)h;
	err = prec_feat__u32(c, &avail);
	if (!err)
		err = prec_feat__u32(c, &online);
	if (err)
		return err;
	fprintf(out, "# nrcpus online : %u\n# nrcpus avail : %u\n", online, avail);
	return 0;
}

static int print_cpudesc(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	(void)h;
	return print_str(c, out, "cpudesc");
}

static int print_cpuid(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	(void)h;
	return print_str(c, out, "cpuid");
}

static int print_total_mem(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	uint64_t kb;
	int err;

	(void)h;
	err = prec_feat__u64(c, &kb);
	if (err)
		return err;
	fprintf(out, "# total memory : %" PRIu64 " kB\n", kb);
	return 0;
}

static int print_cmdline(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	uint32_t nr, i;
	char *s;
	int err;

	(void)h;
	err = prec_feat__u32(c, &nr);
	if (err)
		return err;
	fputs("# cmdline :", out);
	for (i = 0; i < nr; i++) {
		err = get_str(c, &s);
		if (err)
			return err;
		fprintf(out, " %s", s);
		free(s);
	}
	fputc('\n', out);
	return 0;
}

/*
 * CPU_TOPOLOGY: sockets list, threads list, {core, socket} per available CPU, then optionally
 * a dies list and a die id per CPU.  Printed outermost first: sockets, dies, threads, CPUs.
 */
static int print_cpu_topology(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	struct prec_feat_cursor sockets, threads, cpus, dies, die_ids;
	bool have_dies = false;
	const void *p;
	uint32_t i, core, socket, die = 0;
	int err;

	sockets = *c;
	err = skip_str_list(c);
	threads = *c;
	if (!err)
		err = skip_str_list(c);
	if (err)
		return err;
	cpus = *c;
	if (h->have_nrcpus) {
		err = prec_feat__bytes(c, (size_t)h->nr_cpus_avail * 8, &p);
		if (err)
			return err;
		if (c->off < c->len) {
			dies = *c;
			err = skip_str_list(c);
			die_ids = *c;
			if (!err)
				err = prec_feat__bytes(c, (size_t)h->nr_cpus_avail * 4, &p);
			if (err)
				return err;
			have_dies = true;
		}
	}

	err = print_str_list_lines(&sockets, out, "sibling sockets");
	if (!err && have_dies)
		err = print_str_list_lines(&dies, out, "sibling dies   ");
	if (!err)
		err = print_str_list_lines(&threads, out, "sibling threads");
	if (err)
		return err;
	if (!h->have_nrcpus) {
		fputs("# per-CPU topology : not shown (no NRCPUS feature)\n", out);
		return 0;
	}
	for (i = 0; i < h->nr_cpus_avail; i++) {
		prec_feat__u32(&cpus, &core); /* sizes were checked above */
		prec_feat__u32(&cpus, &socket);
		if (have_dies)
			prec_feat__u32(&die_ids, &die);
		if (core == UINT32_MAX && socket == UINT32_MAX) {
			fprintf(out, "# CPU %u: not online\n", i);
			continue;
		}
		fprintf(out, "# CPU %u: Core ID %d, ", i, (int32_t)core);
		if (have_dies)
			fprintf(out, "Die ID %d, ", (int32_t)die);
		fprintf(out, "Socket ID %d\n", (int32_t)socket);
	}
	return 0;
}

/* NUMA_TOPOLOGY: u32 nr, then per node u32 node, u64 total kB, u64 free kB, string cpus. */
static int print_numa_topology(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	uint32_t nr, i, node;
	uint64_t total, free_kb;
	char *cpus;
	int err;

	(void)h;
	err = prec_feat__u32(c, &nr);
	for (i = 0; !err && i < nr; i++) {
		err = prec_feat__u32(c, &node);
		if (!err)
			err = prec_feat__u64(c, &total);
		if (!err)
			err = prec_feat__u64(c, &free_kb);
		if (!err)
			err = get_str(c, &cpus);
		if (err)
			break;
		fprintf(out, "# node%u meminfo  : total = %" PRIu64 " kB, free = %" PRIu64 " kB\n",
			node, total, free_kb);
		fprintf(out, "# node%u cpu list : %s\n", node, cpus);
		free(cpus);
	}
	return err;
}

static int print_branch_stack(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	(void)h;
	(void)c;
	fputs("# contains samples with branch stack\n", out);
	return 0;
}

/* PMU_MAPPINGS: u32 nr, then per PMU u32 type, string name. */
static int print_pmu_mappings(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	uint32_t nr, i, type;
	char *name;
	int err;

	(void)h;
	err = prec_feat__u32(c, &nr);
	if (err)
		return err;
	fputs("# pmu mappings :", out);
	for (i = 0; i < nr; i++) {
		err = prec_feat__u32(c, &type);
		if (!err)
			err = get_str(c, &name);
		if (err)
			return err;
		fprintf(out, "%s %s = %u", i ? "," : "", name, type);
		free(name);
	}
	fputs(nr ? "\n" : " none\n", out);
	return 0;
}

/* GROUP_DESC: u32 nr, then per group string name, u32 leader index, u32 nr members. */
static int print_group_desc(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	size_t nr_evsels = prec_reader__nr_evsels(h->r);
	uint32_t nr, i, leader, members, k;
	char *name;
	int err;

	err = prec_feat__u32(c, &nr);
	for (i = 0; !err && i < nr; i++) {
		err = get_str(c, &name);
		if (err)
			break;
		err = prec_feat__u32(c, &leader);
		if (!err)
			err = prec_feat__u32(c, &members);
		if (!err && (leader >= nr_evsels || members > nr_evsels - leader))
			err = -EBADMSG;
		if (!err) {
			fputs("# group : ", out);
			if (strcmp(name, "{anon_group}"))
				fprintf(out, "%s ", name);
			for (k = 0; k < members; k++)
				fprintf(out, "%s%s", k ? "," : "{",
					prec_reader__evsel(h->r, leader + k)->name);
			fputs(members ? "}\n" : "{}\n", out);
		}
		free(name);
	}
	return err;
}

/* AUXTRACE: u64 nr, then nr {u64 offset, u64 size} index entries. */
static int print_auxtrace(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	const void *p;
	uint64_t nr;
	int err;

	(void)h;
	err = prec_feat__u64(c, &nr);
	if (!err && nr > (c->len - c->off) / 16)
		err = -EBADMSG;
	if (!err)
		err = prec_feat__bytes(c, (size_t)nr * 16, &p);
	if (err)
		return err;
	fprintf(out, "# auxtrace index : %" PRIu64 " entries\n", nr);
	return 0;
}

static int print_stat(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	(void)h;
	(void)c;
	fputs("# contains stat data\n", out);
	return 0;
}

/* CACHE: u32 version (1), u32 nr, then per cache 4 u32 and 3 strings. */
static int print_cache(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	uint32_t version, nr, i, level, line, sets, ways;
	char *type = NULL, *size = NULL, *map = NULL;
	int err;

	(void)h;
	err = prec_feat__u32(c, &version);
	if (!err && version != 1)
		err = -EBADMSG;
	if (!err)
		err = prec_feat__u32(c, &nr);
	for (i = 0; !err && i < nr; i++) {
		err = prec_feat__u32(c, &level);
		if (!err)
			err = prec_feat__u32(c, &line);
		if (!err)
			err = prec_feat__u32(c, &sets);
		if (!err)
			err = prec_feat__u32(c, &ways);
		if (!err)
			err = get_str(c, &type);
		if (!err)
			err = get_str(c, &size);
		if (!err)
			err = get_str(c, &map);
		if (!err)
			fprintf(out,
				"# cache L%u %-11s : %6s, CPUs %s; line %u B, %u-way, %u sets\n",
				level, type, size, map, line, ways, sets);
		free(type);
		free(size);
		free(map);
		type = size = map = NULL;
	}
	return err;
}

/* SAMPLE_TIME: u64 first, u64 last, in ns of the sample clock. */
static int print_sample_time(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	uint64_t first, last;
	int err;

	(void)h;
	err = prec_feat__u64(c, &first);
	if (!err)
		err = prec_feat__u64(c, &last);
	if (err)
		return err;
	fprintf(out, "# time of first sample : %" PRIu64 ".%06" PRIu64 "\n", first / 1000000000,
		first % 1000000000 / 1000);
	fprintf(out, "# time of last sample : %" PRIu64 ".%06" PRIu64 "\n", last / 1000000000,
		last % 1000000000 / 1000);
	fprintf(out, "# sample duration : %.3f ms\n",
		last >= first ? (double)(last - first) / 1e6 : 0.0);
	return 0;
}

/*
 * MEM_TOPOLOGY: u64 version (1), u64 block size, u64 nr, then per node u64 node, u64 size,
 * u64 nbits and the bitmap of its memory blocks in u64 words.
 */
static int print_mem_topology(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	uint64_t version, bsize, nr, i, node, size, nbits, words, k, nblocks;
	const unsigned char *map;
	const void *p;
	char hb[32], hs[32];
	int err;

	(void)h;
	err = prec_feat__u64(c, &version);
	if (!err && version != 1)
		err = -EBADMSG;
	if (!err)
		err = prec_feat__u64(c, &bsize);
	if (!err)
		err = prec_feat__u64(c, &nr);
	if (err)
		return err;
	human_size(bsize, hb, sizeof(hb));
	fprintf(out, "# memory nodes : %" PRIu64 ", block size %#" PRIx64 " (%s)\n", nr, bsize, hb);
	for (i = 0; i < nr; i++) {
		err = prec_feat__u64(c, &node);
		if (!err)
			err = prec_feat__u64(c, &size);
		if (!err)
			err = prec_feat__u64(c, &nbits);
		if (err)
			return err;
		words = nbits / 64 + (nbits % 64 != 0);
		if (words > (c->len - c->off) / 8)
			return -EBADMSG;
		err = prec_feat__bytes(c, (size_t)words * 8, &p);
		if (err)
			return err;
		map = p;
		for (k = 0, nblocks = 0; k < nbits; k++)
			nblocks += bit_set(map, k);
		human_size(nblocks * bsize, hs, sizeof(hs));
		fprintf(out, "# memory node %" PRIu64 " : %s in blocks ", node, hs);
		print_bit_ranges(out, map, nbits);
		fputc('\n', out);
	}
	return 0;
}

static int print_clockid(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	uint64_t res;
	int err;

	(void)h;
	err = prec_feat__u64(c, &res);
	if (err)
		return err;
	/* perf's wording, so that what users grep for is there */
	if (res)
		fprintf(out, "# clockid frequency: %" PRIu64 " MHz\n", 1000 / res);
	else
		fputs("# clockid frequency: unknown\n", out);
	return 0;
}

static int print_dir_format(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	uint64_t version;
	int err;

	(void)h;
	err = prec_feat__u64(c, &version);
	if (err)
		return err;
	fprintf(out, "# directory data version : %" PRIu64 "\n", version);
	return 0;
}

static int print_bpf_prog_info(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	uint32_t nr;
	int err;

	(void)h;
	err = prec_feat__u32(c, &nr);
	if (err)
		return err;
	fprintf(out, "# bpf programs : %u\n", nr);
	return 0;
}

/* BPF_BTF: u32 nr, then nr {u32 id, u32 size, size bytes}. */
static int print_bpf_btf(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	uint32_t nr, i, id, size;
	const void *p;
	int err;

	(void)h;
	err = prec_feat__u32(c, &nr);
	for (i = 0; !err && i < nr; i++) {
		err = prec_feat__u32(c, &id);
		if (!err)
			err = prec_feat__u32(c, &size);
		if (!err)
			err = prec_feat__bytes(c, size, &p);
	}
	if (err)
		return err;
	fprintf(out, "# bpf btf entries : %u\n", nr);
	return 0;
}

/* COMPRESSED: u32 version, type, level, ratio, mmap_len. */
static int print_compressed(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	uint32_t v[5], i;
	int err = 0;

	(void)h;
	for (i = 0; !err && i < 5; i++)
		err = prec_feat__u32(c, &v[i]);
	if (err)
		return err;
	fputs("# compressed : ", out);
	if (v[1] == 1)
		fputs("Zstd", out);
	else if (v[1] == 0)
		fputs("none", out);
	else
		fprintf(out, "unknown type %u", v[1]);
	fprintf(out, ", level = %u, ratio = %u\n", v[2], v[3]);
	return 0;
}

/* A list of nr {string name, string value}, as "name=value, ...". */
static int print_caps(struct prec_feat_cursor *c, uint32_t nr, FILE *out)
{
	char *name, *value;
	uint32_t i;
	int err;

	for (i = 0; i < nr; i++) {
		err = get_str(c, &name);
		if (err)
			return err;
		err = get_str(c, &value);
		if (err) {
			free(name);
			return err;
		}
		fprintf(out, "%s%s=%s", i ? ", " : "", name, value);
		free(name);
		free(value);
	}
	if (!nr)
		fputs("none", out);
	return 0;
}

static int print_cpu_pmu_caps(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	uint32_t nr;
	int err;

	(void)h;
	err = prec_feat__u32(c, &nr);
	if (err)
		return err;
	fputs("# cpu pmu capabilities : ", out);
	err = print_caps(c, nr, out);
	fputc('\n', out);
	return err;
}

static const char *clock_name(uint32_t id)
{
	static const char *const names[] = {
		"realtime",	   "monotonic",	      "process_cputime", "thread_cputime",
		"monotonic_raw",   "realtime_coarse", "monotonic_coarse", "boottime",
		"realtime_alarm",  "boottime_alarm",  NULL,		 "tai",
	};

	return id < sizeof(names) / sizeof(names[0]) && names[id] ? names[id] : "unknown";
}

/* CLOCK_DATA: u32 version (1), u32 clockid, u64 wall-clock ns, u64 clockid ns, same moment. */
static int print_clock_data(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	uint32_t version, clockid;
	uint64_t tod, clk;
	char tbuf[64];
	struct tm tm;
	time_t secs;
	int err;

	(void)h;
	err = prec_feat__u32(c, &version);
	if (!err && version != 1)
		err = -EBADMSG;
	if (!err)
		err = prec_feat__u32(c, &clockid);
	if (!err)
		err = prec_feat__u64(c, &tod);
	if (!err)
		err = prec_feat__u64(c, &clk);
	if (err)
		return err;
	fprintf(out, "# clockid: %s (%u)\n", clock_name(clockid), clockid);
	secs = (time_t)(tod / 1000000000);
	if (localtime_r(&secs, &tm) && strftime(tbuf, sizeof(tbuf), "%Y-%m-%d %H:%M:%S", &tm))
		fprintf(out, "# reference time: %s.%06" PRIu64 " = ", tbuf,
			tod % 1000000000 / 1000);
	else
		fputs("# reference time: ", out);
	fprintf(out, "%" PRIu64 ".%06" PRIu64 " (TOD) = %" PRIu64 ".%09" PRIu64 " (%s)\n",
		tod / 1000000000, tod % 1000000000 / 1000, clk / 1000000000, clk % 1000000000,
		clock_name(clockid));
	return 0;
}

/* HYBRID_TOPOLOGY: u32 nr, then nr {string pmu name, string cpus}. */
static int print_hybrid_topology(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	uint32_t nr, i;
	char *name, *cpus;
	int err;

	(void)h;
	err = prec_feat__u32(c, &nr);
	for (i = 0; !err && i < nr; i++) {
		err = get_str(c, &name);
		if (err)
			break;
		err = get_str(c, &cpus);
		if (!err)
			fprintf(out, "# %s cpu list : %s\n", name, cpus);
		free(name);
		if (!err)
			free(cpus);
	}
	return err;
}

/* PMU_CAPS: u32 nr_pmu, then per PMU u32 nr_caps, the caps, string pmu name. */
static int print_pmu_caps(const struct hdr *h, struct prec_feat_cursor *c, FILE *out)
{
	struct prec_feat_cursor caps;
	uint32_t nr, i, k, ncaps;
	char *name;
	int err;

	(void)h;
	err = prec_feat__u32(c, &nr);
	if (!err && !nr)
		fputs("# pmu capabilities : none\n", out);
	for (i = 0; !err && i < nr; i++) {
		err = prec_feat__u32(c, &ncaps);
		caps = *c;
		for (k = 0; !err && k < ncaps; k++) {
			err = skip_str(c); /* name */
			if (!err)
				err = skip_str(c); /* value */
		}
		if (!err)
			err = get_str(c, &name);
		if (err)
			break;
		fprintf(out, "# %s pmu capabilities : ", name);
		free(name);
		err = print_caps(&caps, ncaps, out);
		fputc('\n', out);
	}
	return err;
}

static const feat_printer printers[PREC_FEAT_LAST] = {
	[PREC_FEAT_TRACING_DATA] = print_tracing_data,
	[PREC_FEAT_BUILD_ID] = print_build_id,
	[PREC_FEAT_HOSTNAME] = print_hostname,
	[PREC_FEAT_OSRELEASE] = print_osrelease,
	[PREC_FEAT_VERSION] = print_version,
	[PREC_FEAT_ARCH] = print_arch,
	[PREC_FEAT_NRCPUS] = print_nrcpus,
	[PREC_FEAT_CPUDESC] = print_cpudesc,
	[PREC_FEAT_CPUID] = print_cpuid,
	[PREC_FEAT_TOTAL_MEM] = print_total_mem,
	[PREC_FEAT_CMDLINE] = print_cmdline,
	[PREC_FEAT_EVENT_DESC] = print_event_desc,
	[PREC_FEAT_CPU_TOPOLOGY] = print_cpu_topology,
	[PREC_FEAT_NUMA_TOPOLOGY] = print_numa_topology,
	[PREC_FEAT_BRANCH_STACK] = print_branch_stack,
	[PREC_FEAT_PMU_MAPPINGS] = print_pmu_mappings,
	[PREC_FEAT_GROUP_DESC] = print_group_desc,
	[PREC_FEAT_AUXTRACE] = print_auxtrace,
	[PREC_FEAT_STAT] = print_stat,
	[PREC_FEAT_CACHE] = print_cache,
	[PREC_FEAT_SAMPLE_TIME] = print_sample_time,
	[PREC_FEAT_MEM_TOPOLOGY] = print_mem_topology,
	[PREC_FEAT_CLOCKID] = print_clockid,
	[PREC_FEAT_DIR_FORMAT] = print_dir_format,
	[PREC_FEAT_BPF_PROG_INFO] = print_bpf_prog_info,
	[PREC_FEAT_BPF_BTF] = print_bpf_btf,
	[PREC_FEAT_COMPRESSED] = print_compressed,
	[PREC_FEAT_CPU_PMU_CAPS] = print_cpu_pmu_caps,
	[PREC_FEAT_CLOCK_DATA] = print_clock_data,
	[PREC_FEAT_HYBRID_TOPOLOGY] = print_hybrid_topology,
	[PREC_FEAT_PMU_CAPS] = print_pmu_caps,
};

/* Print one feature whole, or one "malformed" line. -ENOMEM is the only error. */
static int print_feature(const struct hdr *h, unsigned int feat, const void *data, size_t len,
			 FILE *out)
{
	struct prec_feat_cursor c = { data, len, 0 };
	char *text = NULL;
	size_t tlen = 0;
	FILE *m;
	int err;

	m = open_memstream(&text, &tlen);
	if (!m)
		return -ENOMEM;
	err = printers[feat](h, &c, m);
	if (fclose(m) && !err)
		err = -ENOMEM;
	if (!err)
		fwrite(text, 1, tlen, out);
	else if (err == -EBADMSG)
		fprintf(out, "# %s: malformed\n", prec_feature_name(feat));
	free(text);
	return err == -EBADMSG ? 0 : err;
}

/* ---- the file part ------------------------------------------------------------------------ */

/* The file header's section fields, read again from the input (not kept by the reader). */
static void print_file_sections(int fd, FILE *out)
{
	uint64_t fh[7];
	ssize_t got = pread(fd, fh, sizeof(fh), 0);

	if (got != (ssize_t)sizeof(fh) || fh[0] != PREC_MAGIC)
		return;
	fprintf(out, "# file header    : %" PRIu64 " bytes (PERFILE2)\n", fh[1]);
	fprintf(out, "# data offset    : %" PRIu64 "\n", fh[5]);
	if (!fh[6]) {
		fputs("# data size      : 0 (the recording did not finish)\n", out);
		return;
	}
	fprintf(out, "# data size      : %" PRIu64 "\n", fh[6]);
	if (fh[1] == PREC_FILE_HEADER_SIZE && fh[5] <= UINT64_MAX - fh[6])
		fprintf(out, "# feat offset    : %" PRIu64 "\n", fh[5] + fh[6]);
}

/*
 * The opening block.  Only a regular file is looked at again: opening a FIFO a second time
 * could block, and the bytes of a pipe are gone.
 */
static void print_file_part(struct prec_reader *r, const char *input, FILE *out)
{
	bool is_stdin = !strcmp(input, "-");
	int fd = -1;
	struct stat st;
	struct tm tm;
	char tbuf[64];

	fputs("# ========\n", out);
	if (is_stdin ? fstat(STDIN_FILENO, &st) : stat(input, &st))
		st.st_mode = 0;
	if (S_ISREG(st.st_mode)) {
		if (localtime_r(&st.st_mtime, &tm) &&
		    strftime(tbuf, sizeof(tbuf), "%a %b %e %T %Y", &tm))
			fprintf(out, "# captured on    : %s\n", tbuf);
		fd = is_stdin ? STDIN_FILENO : open(input, O_RDONLY | O_CLOEXEC);
	}
	if (prec_reader__is_pipe(r))
		fputs("# data format    : pipe (features from HEADER_FEATURE records)\n", out);
	else if (fd >= 0)
		print_file_sections(fd, out);
	if (fd >= 0 && !is_stdin)
		close(fd);
}

int preport_print_header(struct prec_reader *r, const char *input, FILE *out)
{
	struct hdr h = { .r = r };
	unsigned int feat;
	bool missing = false;
	const void *data;
	size_t len;
	int err;

	data = prec_reader__feature(r, PREC_FEAT_NRCPUS, &len);
	if (data && len >= 4) {
		memcpy(&h.nr_cpus_avail, data, 4);
		h.have_nrcpus = true;
	}

	print_file_part(r, input, out);
	for (feat = 1; feat < PREC_FEAT_LAST; feat++) {
		data = prec_reader__feature(r, feat, &len);
		if (!data) {
			if (feat == PREC_FEAT_EVENT_DESC)
				print_evsels(r, out);
			continue;
		}
		err = print_feature(&h, feat, data, len, out);
		if (err)
			return err;
	}
	/* In pipe form the file-only features are never sent: not worth listing. */
	if (!prec_reader__is_pipe(r)) {
		for (feat = 1; feat < PREC_FEAT_LAST; feat++) {
			if (prec_reader__feature(r, feat, NULL))
				continue;
			fprintf(out, "%s %s", missing ? "" : "# missing features :",
				prec_feature_name(feat));
			missing = true;
		}
		if (missing)
			fputc('\n', out);
	}
	fputs("# ========\n#\n", out);
	return ferror(out) ? -EIO : 0;
}
