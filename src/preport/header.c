/* SPDX-License-Identifier: MIT */
/*
 * preport --header / --header-only: the recording's header, feature by feature, in the order
 * of the feature bits and in `# key : value` lines, so that it reads like perf's header dump.
 *
 * One table, feats[], says how each feature is printed: a value under a label, fixed fields
 * or a list whose entries a small function prints, or, for the structured ones (events, CPU
 * and memory topology, caches, ...), a function of its own.  Payloads come from the file and are decoded
 * with the bounds-checked cursor of prec_reader.h, field by field as a format string says.
 * Each feature is first printed into a memory stream; only when its payload decoded
 * completely is that text written out, otherwise one `# NAME: malformed` line is, and the
 * next feature is printed anyway.  Strings are cleaned of control characters before they
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

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* What printers need besides their own payload. */
struct hdr {
	struct prec_reader *r;
	FILE *out; /* the current feature's memory stream */
	bool have_nrcpus;
	uint32_t nr_cpus_avail;
	const char *label; /* of print_str_lines()' lines */
};

/* ---- decoding ----------------------------------------------------------------------------- */

/* One decoded field: a number (u32 or u64) or a string. */
union field {
	uint64_t u;
	char *s;
};

#define MAX_FIELDS 8

/* Replace control characters so that a hostile string cannot drive the terminal. */
static char *clean(char *s)
{
	unsigned char *p;

	for (p = (unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
	return s;
}

/*
 * Decode the fields that `fmt` lists (at most MAX_FIELDS) into f[]: 'u' a u32, 'U' a u64,
 * 's' a string (malloc'ed and cleaned), '-' a string skipped.  Stops at the first field that
 * does not decode: -EBADMSG, or -ENOMEM.  Call put() afterwards, after an error too.
 */
static int get(struct prec_feat_cursor *c, const char *fmt, union field *f)
{
	const void *skipped;
	uint32_t u32;
	int err = 0;
	size_t i;

	memset(f, 0, strlen(fmt) * sizeof(*f));
	for (i = 0; fmt[i] && !err; i++) {
		switch (fmt[i]) {
		case 'u':
			err = prec_feat__u32(c, &u32);
			f[i].u = u32;
			break;
		case 'U':
			err = prec_feat__u64(c, &f[i].u);
			break;
		case 's':
			err = prec_feat__string(c, &f[i].s);
			if (!err)
				clean(f[i].s);
			break;
		default:
			err = prec_feat__u32(c, &u32);
			if (!err)
				err = prec_feat__bytes(c, u32, &skipped);
		}
	}
	return err;
}

/* Free the strings of fields decoded by get(). */
static void put(const char *fmt, union field *f)
{
	for (; *fmt; fmt++, f++)
		if (*fmt == 's')
			free(f->s);
}

/* An entry of a list feature printed, decoded as the table's `fmt` says (or, for FK_FIELDS,
 * the feature's fields, i 0); 0 or -EBADMSG. */
typedef int (*entry_printer)(struct hdr *h, const union field *f, uint32_t i);

/*
 * u32 nr, then nr entries of `fmt`, each printed by `entry` (or only checked if it is NULL).
 * The count goes to *ret_nr if that is not NULL.
 */
static int print_entries(struct hdr *h, struct prec_feat_cursor *c, const char *fmt,
			 entry_printer entry, uint32_t *ret_nr)
{
	union field f[MAX_FIELDS];
	uint32_t nr, i;
	int err = prec_feat__u32(c, &nr);

	for (i = 0; !err && i < nr; i++) {
		err = get(c, fmt, f);
		if (!err && entry)
			err = entry(h, f, i);
		put(fmt, f);
	}
	if (!err && ret_nr)
		*ret_nr = nr;
	return err;
}

/* A string of a list on its own line, "# h->label : s". */
static int str_line(struct hdr *h, const union field *f, uint32_t i)
{
	fprintf(h->out, "# %s : %s\n", h->label, f[0].s);
	return 0;
}

/* Each string of a string list on its own line, "# label : s". */
static int print_str_lines(struct hdr *h, struct prec_feat_cursor *c, const char *label)
{
	h->label = label;
	return print_entries(h, c, "s", str_line, NULL);
}

/* ---- formatting --------------------------------------------------------------------------- */

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

/* ---- events ------------------------------------------------------------------------------- */

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

/* The attr flag word (the bit-fields after read_format), by bit; precise_ip is 2 bits wide. */
static const char *const attr_flag_names[38] = {
	"disabled", "inherit", "pinned", "exclusive", "exclude_user", "exclude_kernel",
	"exclude_hv", "exclude_idle", "mmap", "comm", "freq", "inherit_stat", "enable_on_exec",
	"task", "watermark", "precise_ip", NULL, "mmap_data", "sample_id_all", "exclude_host",
	"exclude_guest", "exclude_callchain_kernel", "exclude_callchain_user", "mmap2",
	"comm_exec", "use_clockid", "context_switch", "write_backward", "namespaces", "ksymbol",
	"bpf_event", "aux_output", "cgroup", "text_poke", "build_id", "inherit_thread",
	"remove_on_exec", "sigtrap",
};

/* ", name = value" for an attr field that is not zero. */
static void print_attr_field(FILE *out, const char *name, uint64_t v, bool hex)
{
	if (v)
		fprintf(out, hex ? ", %s = %#" PRIx64 : ", %s = %" PRIu64, name, v);
}

/* One "# event : ..." line. `ids` may be unaligned (it points into a payload). */
static void print_event(FILE *out, const char *name, const struct perf_event_attr *a,
			const void *ids, size_t nr_ids)
{
	static const char *const type_names[] = {
		"hardware", "software", "tracepoint", "hw-cache", "raw", "breakpoint",
	};
	bool bp = a->type == PERF_TYPE_BREAKPOINT;
	const unsigned char *idp = ids;
	uint64_t flags, id;
	unsigned int i;
	size_t k;

	memcpy(&flags, (const char *)a + offsetof(struct perf_event_attr, read_format) + 8, 8);

	fprintf(out, "# event : name = %s", name);
	for (k = 0; k < nr_ids; k++) {
		memcpy(&id, idp + k * 8, 8);
		fprintf(out, "%s %" PRIu64, k ? "," : ", id = {", id);
	}
	fprintf(out, "%s, type = %u", nr_ids ? " }" : "", a->type);
	if (a->type < ARRAY_LEN(type_names))
		fprintf(out, " (%s)", type_names[a->type]);
	fprintf(out, ", size = %u, config = %#" PRIx64, a->size, (uint64_t)a->config);
	fprintf(out, ", %s = %" PRIu64, a->freq ? "sample_freq" : "sample_period",
		(uint64_t)a->sample_period);
	fputs(", sample_type = ", out);
	print_mask(out, a->sample_type, sample_type_names, ARRAY_LEN(sample_type_names));
	fputs(", read_format = ", out);
	print_mask(out, a->read_format, read_format_names, ARRAY_LEN(read_format_names));
	for (i = 0; i < ARRAY_LEN(attr_flag_names); i++) {
		const char *n = attr_flag_names[i];
		uint64_t width_mask = n && !strcmp(n, "precise_ip") ? 3 : 1;

		if (n)
			print_attr_field(out, n, flags >> i & width_mask, false);
	}
	print_attr_field(out, "reserved flag bits", flags & ~0ULL << i, true); /* i is 38 */
	print_attr_field(out, a->watermark ? "wakeup_watermark" : "wakeup_events",
			 a->wakeup_events, false);
	print_attr_field(out, "bp_type", a->bp_type, true);
	print_attr_field(out, bp ? "bp_addr" : "config1", a->config1, true);
	print_attr_field(out, bp ? "bp_len" : "config2", a->config2, true);
	print_attr_field(out, "branch_sample_type", a->branch_sample_type, true);
	print_attr_field(out, "sample_regs_user", a->sample_regs_user, true);
	print_attr_field(out, "sample_stack_user", a->sample_stack_user, false);
	if (a->use_clockid || a->clockid)
		fprintf(out, ", clockid = %d", a->clockid);
	print_attr_field(out, "sample_regs_intr", a->sample_regs_intr, true);
	print_attr_field(out, "aux_watermark", a->aux_watermark, false);
	print_attr_field(out, "sample_max_stack", a->sample_max_stack, false);
	print_attr_field(out, "aux_sample_size", a->aux_sample_size, false);
	print_attr_field(out, "sig_data", a->sig_data, true);
	fputc('\n', out);
}

/* EVENT_DESC, decoded by lib/data's walker, the one the reader takes the names from. */
static int print_event_desc(struct hdr *h, struct prec_feat_cursor *c)
{
	struct prec_event_desc e;
	uint32_t nr, asz, i;
	int err = prec_event_desc__begin(c, &nr, &asz);

	for (i = 0; !err && i < nr; i++) {
		err = prec_event_desc__next(c, asz, &e);
		if (err)
			break;
		print_event(h->out, clean(e.name), &e.attr, e.ids, e.nr_ids);
		free(e.name);
	}
	return err;
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

/* ---- the structured features -------------------------------------------------------------- */

/* BUILD_ID: entries of {perf_event_header, pid, build id, name}, each sized by its header. */
static int print_build_id(struct hdr *h, struct prec_feat_cursor *c)
{
	struct perf_event_header eh;
	unsigned long n = 0;
	const void *p;
	int err = 0;

	for (; !err && c->off < c->len; n++) {
		err = prec_feat__bytes(c, sizeof(eh), &p);
		if (!err) {
			memcpy(&eh, p, sizeof(eh));
			err = eh.size < sizeof(eh) ? -EBADMSG
						   : prec_feat__bytes(c, eh.size - sizeof(eh), &p);
		}
	}
	if (!err)
		fprintf(h->out, "# build id entries : %lu\n", n);
	return err;
}

/* NRCPUS: u32 available, u32 online. */
static int nrcpus(struct hdr *h, const union field *f, uint32_t i)
{
	fprintf(h->out, "# nrcpus online : %u\n# nrcpus avail : %u\n", (uint32_t)f[1].u,
		(uint32_t)f[0].u);
	return 0;
}

/*
 * CPU_TOPOLOGY: sockets list, threads list, {core, socket} per available CPU, then optionally
 * a dies list and a die id per CPU.  Printed outermost first: sockets, dies, threads, CPUs.
 */
static int print_cpu_topology(struct hdr *h, struct prec_feat_cursor *c)
{
	struct prec_feat_cursor sockets = *c, threads, cpus, dies = *c, die_ids = *c;
	uint32_t i, n = h->have_nrcpus ? h->nr_cpus_avail : 0;
	union field f[2], die = { 0 };
	bool have_dies = false;
	const void *p;
	int err;

	err = print_entries(h, c, "-", NULL, NULL);
	threads = *c;
	if (!err)
		err = print_entries(h, c, "-", NULL, NULL);
	cpus = *c;
	if (!err)
		err = prec_feat__bytes(c, (size_t)n * 8, &p);
	if (!err && h->have_nrcpus && c->off < c->len) {
		have_dies = true;
		dies = *c;
		err = print_entries(h, c, "-", NULL, NULL);
		die_ids = *c;
		if (!err)
			err = prec_feat__bytes(c, (size_t)n * 4, &p);
	}
	if (!err)
		err = print_str_lines(h, &sockets, "sibling sockets");
	if (!err && have_dies)
		err = print_str_lines(h, &dies, "sibling dies   ");
	if (!err)
		err = print_str_lines(h, &threads, "sibling threads");
	if (!err && !h->have_nrcpus)
		fputs("# per-CPU topology : not shown (no NRCPUS feature)\n", h->out);
	for (i = 0; !err && i < n; i++) {
		get(&cpus, "uu", f); /* core, socket; sizes were checked above */
		if (have_dies)
			get(&die_ids, "u", &die);
		if (f[0].u == UINT32_MAX && f[1].u == UINT32_MAX) {
			fprintf(h->out, "# CPU %u: not online\n", i);
			continue;
		}
		fprintf(h->out, "# CPU %u: Core ID %d, ", i, (int32_t)f[0].u);
		if (have_dies)
			fprintf(h->out, "Die ID %d, ", (int32_t)die.u);
		fprintf(h->out, "Socket ID %d\n", (int32_t)f[1].u);
	}
	return err;
}

/* NUMA_TOPOLOGY entry: u32 node, u64 total kB, u64 free kB, string cpus. */
static int numa_node(struct hdr *h, const union field *f, uint32_t i)
{
	fprintf(h->out, "# node%u meminfo  : total = %" PRIu64 " kB, free = %" PRIu64 " kB\n",
		(uint32_t)f[0].u, f[1].u, f[2].u);
	fprintf(h->out, "# node%u cpu list : %s\n", (uint32_t)f[0].u, f[3].s);
	return 0;
}

/* PMU_MAPPINGS entry: u32 type, string name. */
static int pmu_mapping(struct hdr *h, const union field *f, uint32_t i)
{
	fprintf(h->out, "%s %s = %u", i ? "," : "", f[1].s, (uint32_t)f[0].u);
	return 0;
}

/* GROUP_DESC entry: string name, u32 leader index, u32 nr members. */
static int event_group(struct hdr *h, const union field *f, uint32_t i)
{
	size_t k, nr_evsels = prec_reader__nr_evsels(h->r);

	if (f[1].u >= nr_evsels || f[2].u > nr_evsels - f[1].u)
		return -EBADMSG;
	fputs("# group : ", h->out);
	if (strcmp(f[0].s, "{anon_group}"))
		fprintf(h->out, "%s ", f[0].s);
	for (k = 0; k < f[2].u; k++)
		fprintf(h->out, "%s%s", k ? "," : "{", prec_reader__evsel(h->r, f[1].u + k)->name);
	fputs(f[2].u ? "}\n" : "{}\n", h->out);
	return 0;
}

/* AUXTRACE: u64 nr, then nr {u64 offset, u64 size} index entries. */
static int print_auxtrace(struct hdr *h, struct prec_feat_cursor *c)
{
	const void *p;
	uint64_t nr;
	int err = prec_feat__u64(c, &nr);

	if (!err && nr > (c->len - c->off) / 16)
		err = -EBADMSG;
	if (!err)
		err = prec_feat__bytes(c, (size_t)nr * 16, &p);
	if (!err)
		fprintf(h->out, "# auxtrace index : %" PRIu64 " entries\n", nr);
	return err;
}

/* CACHE entry: u32 level, line size, sets, ways, strings type, size, CPU list. */
static int cache_level(struct hdr *h, const union field *f, uint32_t i)
{
	fprintf(h->out, "# cache L%u %-11s : %6s, CPUs %s; line %u B, %u-way, %u sets\n",
		(uint32_t)f[0].u, f[4].s, f[5].s, f[6].s, (uint32_t)f[1].u, (uint32_t)f[3].u,
		(uint32_t)f[2].u);
	return 0;
}

/* CACHE: u32 version (1), then the entries. */
static int print_cache(struct hdr *h, struct prec_feat_cursor *c)
{
	uint32_t version;
	int err = prec_feat__u32(c, &version);

	if (!err && version != 1)
		err = -EBADMSG;
	if (!err)
		err = print_entries(h, c, "uuuusss", cache_level, NULL);
	return err;
}

/* SAMPLE_TIME: u64 first, u64 last, in ns of the sample clock. */
static int sample_time(struct hdr *h, const union field *f, uint32_t i)
{
	uint64_t first = f[0].u, last = f[1].u;

	fprintf(h->out, "# time of first sample : %" PRIu64 ".%06" PRIu64 "\n",
		first / 1000000000, first % 1000000000 / 1000);
	fprintf(h->out, "# time of last sample : %" PRIu64 ".%06" PRIu64 "\n", last / 1000000000,
		last % 1000000000 / 1000);
	fprintf(h->out, "# sample duration : %.3f ms\n",
		last >= first ? (double)(last - first) / 1e6 : 0.0);
	return 0;
}

/*
 * MEM_TOPOLOGY: u64 version (1), u64 block size, u64 nr, then per node u64 node, u64 size,
 * u64 nbits and the bitmap of its memory blocks in u64 words.
 */
static int print_mem_topology(struct hdr *h, struct prec_feat_cursor *c)
{
	uint64_t i, k, words, nbits, nblocks;
	union field hd[3], f[3];
	char hb[32], hs[32];
	const void *map;
	int err = get(c, "UUU", hd);

	if (!err && hd[0].u != 1)
		err = -EBADMSG;
	if (err)
		return err;
	human_size(hd[1].u, hb, sizeof(hb));
	fprintf(h->out, "# memory nodes : %" PRIu64 ", block size %#" PRIx64 " (%s)\n", hd[2].u,
		hd[1].u, hb);
	for (i = 0; !err && i < hd[2].u; i++) {
		err = get(c, "UUU", f); /* node, size, nbits */
		nbits = f[2].u;
		words = nbits / 64 + (nbits % 64 != 0);
		if (!err && words > (c->len - c->off) / 8)
			err = -EBADMSG;
		if (!err)
			err = prec_feat__bytes(c, (size_t)words * 8, &map);
		if (err)
			break;
		for (k = 0, nblocks = 0; k < nbits; k++)
			nblocks += bit_set(map, k);
		human_size(nblocks * hd[1].u, hs, sizeof(hs));
		fprintf(h->out, "# memory node %" PRIu64 " : %s in blocks ", f[0].u, hs);
		print_bit_ranges(h->out, map, nbits);
		fputc('\n', h->out);
	}
	return err;
}

/* CLOCKID: u64 resolution in ns. */
static int clockid(struct hdr *h, const union field *f, uint32_t i)
{
	/* perf's wording, so that what users grep for is there */
	if (f[0].u)
		fprintf(h->out, "# clockid frequency: %" PRIu64 " MHz\n", 1000 / f[0].u);
	else
		fputs("# clockid frequency: unknown\n", h->out);
	return 0;
}

/* COMPRESSED: u32 version, type, level, ratio, mmap_len. */
static int compressed(struct hdr *h, const union field *f, uint32_t i)
{
	if (f[1].u <= 1)
		fprintf(h->out, "# compressed : %s", f[1].u ? "Zstd" : "none");
	else
		fprintf(h->out, "# compressed : unknown type %u", (uint32_t)f[1].u);
	fprintf(h->out, ", level = %u, ratio = %u\n", (uint32_t)f[2].u, (uint32_t)f[3].u);
	return 0;
}

/* An entry of CPU_PMU_CAPS and PMU_CAPS: string name, string value. */
static int pmu_cap(struct hdr *h, const union field *f, uint32_t i)
{
	fprintf(h->out, "%s%s=%s", i ? ", " : " ", f[0].s, f[1].s);
	return 0;
}

static const char *clock_name(uint64_t id)
{
	static const char *const names[] = {
		"realtime",	   "monotonic",	      "process_cputime", "thread_cputime",
		"monotonic_raw",   "realtime_coarse", "monotonic_coarse", "boottime",
		"realtime_alarm",  "boottime_alarm",  NULL,		 "tai",
	};

	return id < ARRAY_LEN(names) && names[id] ? names[id] : "unknown";
}

/* CLOCK_DATA: u32 version (1), u32 clockid, u64 wall-clock ns, u64 clockid ns, same moment. */
static int clock_data(struct hdr *h, const union field *f, uint32_t i)
{
	uint64_t tod = f[2].u, clk = f[3].u;
	char tbuf[64];

	if (f[0].u != 1)
		return -EBADMSG;
	fprintf(h->out, "# clockid: %s (%u)\n", clock_name(f[1].u), (uint32_t)f[1].u);
	preport_format_wall(tod, false, tbuf, sizeof(tbuf));
	fprintf(h->out, "# reference time: %s.%06" PRIu64 " = ", tbuf, tod % 1000000000 / 1000);
	fprintf(h->out, "%" PRIu64 ".%06" PRIu64 " (TOD) = %" PRIu64 ".%09" PRIu64 " (%s)\n",
		tod / 1000000000, tod % 1000000000 / 1000, clk / 1000000000, clk % 1000000000,
		clock_name(f[1].u));
	return 0;
}

/* HYBRID_TOPOLOGY entry: string PMU name, string CPU list. */
static int hybrid_pmu(struct hdr *h, const union field *f, uint32_t i)
{
	fprintf(h->out, "# %s cpu list : %s\n", f[0].s, f[1].s);
	return 0;
}

/* PMU_CAPS: u32 nr_pmu, then per PMU u32 nr_caps, the caps, string PMU name. */
static int print_pmu_caps(struct hdr *h, struct prec_feat_cursor *c)
{
	struct prec_feat_cursor caps;
	union field name[1];
	uint32_t nr, i, ncaps;
	int err = prec_feat__u32(c, &nr);

	if (!err && !nr)
		fputs("# pmu capabilities : none\n", h->out);
	for (i = 0; !err && i < nr; i++) {
		caps = *c;
		err = print_entries(h, c, "--", NULL, &ncaps);
		if (err)
			break;
		err = get(c, "s", name);
		if (!err) {
			fprintf(h->out, "# %s pmu capabilities :", name[0].s);
			err = print_entries(h, &caps, "ss", pmu_cap, NULL);
			fputs(ncaps ? "\n" : " none\n", h->out);
		}
		put("s", name);
	}
	return err;
}

/* CMDLINE entry: one argument. */
static int cmdline_arg(struct hdr *h, const union field *f, uint32_t i)
{
	fprintf(h->out, " %s", f[0].s);
	return 0;
}

/* ---- the table ---------------------------------------------------------------------------- */

enum feat_kind {
	FK_FUNC, /* printed by .fn */
	FK_FIELDS, /* the fields of .fmt, printed by .entry */
	FK_VALUE, /* "# label : value unit", the value one field of .fmt */
	FK_SIZE, /* "# label : payload size unit" */
	FK_NOTE, /* "# label", the payload not looked at */
	FK_LINES, /* u32 nr, then nr entries of .fmt, each printed by .entry */
	FK_COUNT, /* the same, "# label : nr" */
	FK_JOIN, /* the same on one line after "# label :", or .unit there if nr is 0 */
};

static const struct feat_desc {
	enum feat_kind kind;
	const char *label;
	const char *fmt;
	const char *unit;
	int (*fn)(struct hdr *h, struct prec_feat_cursor *c);
	entry_printer entry;
} feats[PREC_FEAT_LAST] = {
	[PREC_FEAT_TRACING_DATA] = { FK_SIZE, "tracing data", NULL, " bytes" },
	[PREC_FEAT_BUILD_ID] = { .fn = print_build_id },
	[PREC_FEAT_HOSTNAME] = { FK_VALUE, "hostname", "s" },
	[PREC_FEAT_OSRELEASE] = { FK_VALUE, "os release", "s" },
	[PREC_FEAT_VERSION] = { FK_VALUE, "perf version", "s" },
	[PREC_FEAT_ARCH] = { FK_VALUE, "arch", "s" },
	[PREC_FEAT_NRCPUS] = { FK_FIELDS, NULL, "uu", .entry = nrcpus },
	[PREC_FEAT_CPUDESC] = { FK_VALUE, "cpudesc", "s" },
	[PREC_FEAT_CPUID] = { FK_VALUE, "cpuid", "s" },
	[PREC_FEAT_TOTAL_MEM] = { FK_VALUE, "total memory", "U", " kB" },
	[PREC_FEAT_CMDLINE] = { FK_JOIN, "cmdline", "s", .entry = cmdline_arg },
	[PREC_FEAT_EVENT_DESC] = { .fn = print_event_desc },
	[PREC_FEAT_CPU_TOPOLOGY] = { .fn = print_cpu_topology },
	[PREC_FEAT_NUMA_TOPOLOGY] = { FK_LINES, NULL, "uUUs", .entry = numa_node },
	[PREC_FEAT_BRANCH_STACK] = { FK_NOTE, "contains samples with branch stack" },
	[PREC_FEAT_PMU_MAPPINGS] = { FK_JOIN, "pmu mappings", "us", " none", .entry = pmu_mapping },
	[PREC_FEAT_GROUP_DESC] = { FK_LINES, NULL, "suu", .entry = event_group },
	[PREC_FEAT_AUXTRACE] = { .fn = print_auxtrace },
	[PREC_FEAT_STAT] = { FK_NOTE, "contains stat data" },
	[PREC_FEAT_CACHE] = { .fn = print_cache },
	[PREC_FEAT_SAMPLE_TIME] = { FK_FIELDS, NULL, "UU", .entry = sample_time },
	[PREC_FEAT_MEM_TOPOLOGY] = { .fn = print_mem_topology },
	[PREC_FEAT_CLOCKID] = { FK_FIELDS, NULL, "U", .entry = clockid },
	[PREC_FEAT_DIR_FORMAT] = { FK_VALUE, "directory data version", "U" },
	[PREC_FEAT_BPF_PROG_INFO] = { FK_VALUE, "bpf programs", "u" },
	[PREC_FEAT_BPF_BTF] = { FK_COUNT, "bpf btf entries", "u-" }, /* id, data */
	[PREC_FEAT_COMPRESSED] = { FK_FIELDS, NULL, "uuuuu", .entry = compressed },
	[PREC_FEAT_CPU_PMU_CAPS] = { FK_JOIN, "cpu pmu capabilities", "ss", " none",
				     .entry = pmu_cap },
	[PREC_FEAT_CLOCK_DATA] = { FK_FIELDS, NULL, "uuUU", .entry = clock_data },
	[PREC_FEAT_HYBRID_TOPOLOGY] = { FK_LINES, NULL, "ss", .entry = hybrid_pmu },
	[PREC_FEAT_PMU_CAPS] = { .fn = print_pmu_caps },
};

/* A feature as its table entry says.  Bytes after what it says are not looked at. */
static int print_by_kind(struct hdr *h, const struct feat_desc *d, struct prec_feat_cursor *c)
{
	const char *unit = d->unit ? d->unit : "";
	union field f[MAX_FIELDS];
	uint32_t nr;
	int err;

	switch (d->kind) {
	case FK_VALUE:
		err = get(c, d->fmt, f);
		if (!err && d->fmt[0] == 's')
			fprintf(h->out, "# %s : %s%s\n", d->label, f[0].s, unit);
		else if (!err)
			fprintf(h->out, "# %s : %" PRIu64 "%s\n", d->label, f[0].u, unit);
		put(d->fmt, f);
		return err;
	case FK_FIELDS:
		err = get(c, d->fmt, f);
		if (!err)
			err = d->entry(h, f, 0);
		put(d->fmt, f);
		return err;
	case FK_SIZE:
		fprintf(h->out, "# %s : %zu%s\n", d->label, c->len, unit);
		return 0;
	case FK_NOTE:
		fprintf(h->out, "# %s\n", d->label);
		return 0;
	case FK_LINES:
		return print_entries(h, c, d->fmt, d->entry, NULL);
	case FK_COUNT:
		err = print_entries(h, c, d->fmt, NULL, &nr);
		if (!err)
			fprintf(h->out, "# %s : %u\n", d->label, nr);
		return err;
	case FK_JOIN:
		fprintf(h->out, "# %s :", d->label);
		err = print_entries(h, c, d->fmt, d->entry, &nr);
		fprintf(h->out, "%s\n", !err && !nr ? unit : "");
		return err;
	default:
		return d->fn ? d->fn(h, c) : 0;
	}
}

/* Print one feature whole, or one "malformed" line. -ENOMEM is the only error. */
static int print_feature(struct hdr *h, unsigned int feat, const void *data, size_t len)
{
	struct prec_feat_cursor c = { data, len, 0 };
	FILE *out = h->out;
	char *text = NULL;
	size_t tlen = 0;
	int err;

	h->out = open_memstream(&text, &tlen);
	if (!h->out) {
		h->out = out;
		return -ENOMEM;
	}
	err = print_by_kind(h, &feats[feat], &c);
	if (fclose(h->out) && !err)
		err = -ENOMEM;
	h->out = out;
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
	struct hdr h = { .r = r, .out = out };
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
		err = print_feature(&h, feat, data, len);
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
