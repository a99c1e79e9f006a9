/* SPDX-License-Identifier: MIT */
/*
 * preport -D: one line per record in file order (records decompressed from a COMPRESSED
 * record follow it, their offset written OUTER+INNER), then the number of records per type.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "prec_abi.h"
#include "preport.h"

#define NR_TYPES 256

static void print_sample(struct prec_reader *r, const struct prec_record *rec, FILE *out)
{
	const struct prec_evsel *e;
	struct prec_sample s;
	int idx = prec_reader__evsel_of(r, rec);

	if (idx < 0) {
		fprintf(out, " (unknown event id)");
		return;
	}
	e = prec_reader__evsel(r, (size_t)idx);
	if (prec_sample__parse(&e->layout, rec->data, rec->size, &s)) {
		fprintf(out, " (malformed for event %s)", e->name);
		return;
	}
	fprintf(out, " %s", e->name);
	if (e->layout.sample_type & PERF_SAMPLE_TID)
		fprintf(out, " pid %u tid %u", s.pid, s.tid);
	if (e->layout.sample_type & PERF_SAMPLE_TIME)
		fprintf(out, " time %" PRIu64, s.time);
	if (e->layout.sample_type & PERF_SAMPLE_CPU)
		fprintf(out, " cpu %u", s.cpu);
	if (e->layout.sample_type & PERF_SAMPLE_IP)
		fprintf(out, " ip %#" PRIx64, s.ip);
	if (e->layout.sample_type & PERF_SAMPLE_PERIOD)
		fprintf(out, " period %" PRIu64, s.period);
	if (e->layout.sample_type & PERF_SAMPLE_CALLCHAIN)
		fprintf(out, " callchain %" PRIu64, s.callchain_nr);
	if (e->layout.sample_type & PERF_SAMPLE_REGS_USER)
		fprintf(out, " regs-abi %" PRIu64, s.regs_user_abi);
	if (e->layout.sample_type & PERF_SAMPLE_STACK_USER)
		fprintf(out, " stack %" PRIu64 " dyn %" PRIu64, s.stack_size, s.stack_dyn_size);
}

/* Copy a NUL-terminated string out of a record body, bounded by the record end. */
static void body_str(const struct prec_record *rec, size_t off, char *buf, size_t len)
{
	const char *p = (const char *)rec->data + off;
	size_t n = 0, max = rec->size > off ? rec->size - off : 0;

	while (n < max && n + 1 < len && p[n])
		n++;
	memcpy(buf, p, n);
	buf[n] = 0;
}

static void print_time(struct prec_reader *r, const struct prec_record *rec, FILE *out)
{
	const struct prec_evsel *e;
	struct prec_sample_id sid;
	int idx = prec_reader__evsel_of(r, rec);

	if (idx < 0)
		return;
	e = prec_reader__evsel(r, (size_t)idx);
	if (!e->layout.sample_id_all || !(e->layout.sample_type & PERF_SAMPLE_TIME))
		return;
	if (!prec_sample_id__parse(&e->layout, rec->data, rec->size, &sid))
		fprintf(out, " time %" PRIu64, sid.time);
}

static void print_fields(struct prec_reader *r, const struct prec_record *rec, FILE *out)
{
	const unsigned char *b = (const unsigned char *)rec->data + 8;
	size_t n = rec->size - 8;
	uint32_t u32[4];
	uint64_t u64[4];
	char str[4096];

	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		print_sample(r, rec, out);
		return;
	case PERF_RECORD_COMM:
		if (n < 8)
			break;
		memcpy(u32, b, 8);
		body_str(rec, 16, str, sizeof(str));
		fprintf(out, " pid %u tid %u comm %s%s", u32[0], u32[1], str,
			(rec->misc & PERF_RECORD_MISC_COMM_EXEC) ? " exec" : "");
		print_time(r, rec, out);
		return;
	case PERF_RECORD_MMAP:
		if (n < 32)
			break;
		memcpy(u32, b, 8);
		memcpy(u64, b + 8, 24);
		body_str(rec, 40, str, sizeof(str));
		fprintf(out, " pid %d tid %u addr %#" PRIx64 " len %#" PRIx64 " pgoff %#" PRIx64
			" %s", (int32_t)u32[0], u32[1], u64[0], u64[1], u64[2], str);
		print_time(r, rec, out);
		return;
	case PERF_RECORD_MMAP2:
		if (n < 64)
			break;
		memcpy(u32, b, 8);
		memcpy(u64, b + 8, 24);
		body_str(rec, 72, str, sizeof(str));
		fprintf(out, " pid %d tid %u addr %#" PRIx64 " len %#" PRIx64 " pgoff %#" PRIx64,
			(int32_t)u32[0], u32[1], u64[0], u64[1], u64[2]);
		if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			unsigned int i, bl = b[32] > 20 ? 20 : b[32];

			fprintf(out, " build-id ");
			for (i = 0; i < bl; i++)
				fprintf(out, "%02x", b[36 + i]);
		}
		fprintf(out, " %s", str);
		print_time(r, rec, out);
		return;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (n < 24)
			break;
		memcpy(u32, b, 16);
		memcpy(u64, b + 16, 8);
		fprintf(out, " pid %u ppid %u tid %u ptid %u time %" PRIu64, u32[0], u32[1], u32[2],
			u32[3], u64[0]);
		return;
	case PERF_RECORD_LOST:
		if (n < 16)
			break;
		memcpy(u64, b, 16);
		fprintf(out, " id %" PRIu64 " lost %" PRIu64, u64[0], u64[1]);
		return;
	case PERF_RECORD_LOST_SAMPLES:
		if (n < 8)
			break;
		memcpy(u64, b, 8);
		fprintf(out, " lost %" PRIu64, u64[0]);
		return;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		if (n < 24)
			break;
		memcpy(u64, b, 24);
		fprintf(out, " time %" PRIu64 " id %" PRIu64, u64[0], u64[1]);
		return;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		fprintf(out, " %s", (rec->misc & PERF_RECORD_MISC_SWITCH_OUT) ? "out" : "in");
		if (rec->type == PERF_RECORD_SWITCH_CPU_WIDE && n >= 8) {
			memcpy(u32, b, 8);
			fprintf(out, " next-prev pid %u tid %u", u32[0], u32[1]);
		}
		print_time(r, rec, out);
		return;
	case PREC_REC_HEADER_ATTR:
		if (n < 64)
			break;
		{
			struct perf_event_attr a;

			memset(&a, 0, sizeof(a));
			memcpy(&a, b, n < sizeof(a) ? n : sizeof(a));
			fprintf(out, " type %u config %#" PRIx64 " sample_type %#" PRIx64
				" ids %zu", a.type, (uint64_t)a.config, (uint64_t)a.sample_type,
				a.size && a.size <= n ? (n - a.size) / 8 : 0);
		}
		return;
	case PREC_REC_HEADER_FEATURE:
		if (n < 8)
			break;
		memcpy(u64, b, 8);
		fprintf(out, " %s", u64[0] == PREC_FEAT_LAST ? "end of features" :
			prec_feature_name((unsigned int)u64[0]) ? prec_feature_name((unsigned int)u64[0]) : "unknown");
		return;
	case PREC_REC_HEADER_BUILD_ID:
		/* pid, build_id[20], its size (valid with misc bit 15), 3 reserved, file name */
		if (n < 29)
			break;
		{
			unsigned int i, bl = 20;
			int32_t pid;

			memcpy(&pid, b, 4);
			if ((rec->misc & PREC_MISC_BUILD_ID_SIZE) && b[24] <= 20)
				bl = b[24];
			body_str(rec, 36, str, sizeof(str));
			fprintf(out, " pid %d build-id ", pid);
			for (i = 0; i < bl; i++)
				fprintf(out, "%02x", b[4 + i]);
			fprintf(out, " %s", str);
		}
		return;
	case PREC_REC_COMPRESSED:
		fprintf(out, " payload %zu", n);
		return;
	case PREC_REC_ID_INDEX:
		if (n < 8)
			break;
		memcpy(u64, b, 8);
		fprintf(out, " nr %" PRIu64, u64[0]);
		return;
	default:
		return;
	}
	fprintf(out, " (too short)");
}

int preport_dump(struct prec_reader *r, const char *input, FILE *out)
{
	struct prec_time_range times = { 0, 0 };
	static const char *const kinds[] = { "", "k", "u", "H", "gk", "gu", "6", "7" };
	uint64_t counts[NR_TYPES] = { 0 }, other = 0, total = 0;
	struct prec_record rec;
	const char *name;
	char obuf[64];
	unsigned int t;
	int rc;

	while ((rc = prec_reader__next(r, &rec)) > 0) {
		if (rec.decompressed)
			snprintf(obuf, sizeof(obuf), "%#" PRIx64 "+%#" PRIx64, rec.offset,
				 rec.inner_offset);
		else
			snprintf(obuf, sizeof(obuf), "%#" PRIx64, rec.offset);
		name = prec_record_type_name(rec.type);
		fprintf(out, "%s [%#x]: ", obuf, rec.size);
		if (name)
			fprintf(out, "%s", name);
		else
			fprintf(out, "UNKNOWN(%u)", rec.type);
		if (rec.type < PREC_REC_USER_START && (rec.misc & 7))
			fprintf(out, " [%s]", kinds[rec.misc & 7]);
		print_fields(r, &rec, out);
		fputc('\n', out);
		preport_times_add_record(&times, r, &rec);
		total++;
		if (rec.type < NR_TYPES)
			counts[rec.type]++;
		else
			other++;
	}

	fprintf(out, "\nRecords by type:\n");
	fprintf(out, "%20s: %10" PRIu64 "\n", "TOTAL", total);
	for (t = 0; t < NR_TYPES; t++) {
		if (!counts[t])
			continue;
		name = prec_record_type_name(t);
		if (name)
			fprintf(out, "%20s: %10" PRIu64 "\n", name, counts[t]);
		else
			fprintf(out, "%15s(%3u): %10" PRIu64 "\n", "UNKNOWN", t, counts[t]);
	}
	if (other)
		fprintf(out, "%20s: %10" PRIu64 "\n", "UNKNOWN(>255)", other);
	if (prec_reader__truncated(r))
		fprintf(out, "(input truncated: records after the cut are missing)\n");
	if (rc == 0)
		preport_warn_cut(r, input, &times);
	return rc < 0 ? rc : 0;
}
