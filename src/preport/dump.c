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
	const struct prec_evsel *e = preport_evsel_of(r, rec);
	struct prec_sample s;

	if (!e) {
		fprintf(out, " (unknown event id)");
		return;
	}
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

static void print_time(struct prec_reader *r, const struct prec_record *rec, FILE *out)
{
	const struct prec_evsel *e = preport_evsel_of(r, rec);
	struct prec_sample_id sid;

	if (!e || !e->layout.sample_id_all || !(e->layout.sample_type & PERF_SAMPLE_TIME))
		return;
	if (!prec_sample_id__parse(&e->layout, rec->data, rec->size, &sid))
		fprintf(out, " time %" PRIu64, sid.time);
}

/* A build-id in hex after `label` */
static void print_build_id(const char *label, const uint8_t *id, unsigned int n, FILE *out)
{
	unsigned int i;

	fprintf(out, "%s", label);
	for (i = 0; i < n; i++)
		fprintf(out, "%02x", id[i]);
}

/* The fields of a record, decoded by lib/data's decoders; 0, or -EBADMSG for a record too
 * short or malformed for its type. */
static int print_body(struct prec_reader *r, const struct prec_record *rec, FILE *out)
{
	union prec_rec_body u;
	const void *p = rec->data;
	size_t n = rec->size;
	const char *name;

	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		print_sample(r, rec, out);
		return 0;
	case PERF_RECORD_COMM:
		if (prec_rec_comm__parse(p, n, &u.comm))
			return -EBADMSG;
		fprintf(out, " pid %u tid %u comm %s%s", u.comm.pid, u.comm.tid, u.comm.comm,
			u.comm.exec ? " exec" : "");
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (prec_rec_mmap__parse(p, n, &u.mmap))
			return -EBADMSG;
		fprintf(out, " pid %d tid %u addr %#" PRIx64 " len %#" PRIx64 " pgoff %#" PRIx64,
			(int32_t)u.mmap.pid, u.mmap.tid, u.mmap.addr, u.mmap.len, u.mmap.pgoff);
		if (u.mmap.has_build_id)
			print_build_id(" build-id ", u.mmap.build_id, u.mmap.build_id_size, out);
		fprintf(out, " %s", u.mmap.filename);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (prec_rec_fork__parse(p, n, &u.fork))
			return -EBADMSG;
		fprintf(out, " pid %u ppid %u tid %u ptid %u time %" PRIu64, u.fork.pid,
			u.fork.ppid, u.fork.tid, u.fork.ptid, u.fork.time);
		return 0;
	case PERF_RECORD_LOST:
		if (prec_rec_lost__parse(p, n, &u.lost))
			return -EBADMSG;
		fprintf(out, " id %" PRIu64 " lost %" PRIu64, u.lost.id, u.lost.lost);
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		if (prec_rec_lost_samples__parse(p, n, &u.v))
			return -EBADMSG;
		fprintf(out, " lost %" PRIu64, u.v);
		return 0;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		if (prec_rec_throttle__parse(p, n, &u.throttle))
			return -EBADMSG;
		fprintf(out, " time %" PRIu64 " id %" PRIu64, u.throttle.time, u.throttle.id);
		return 0;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (prec_rec_switch__parse(p, n, &u.sw))
			return -EBADMSG;
		fprintf(out, " %s", u.sw.out ? "out" : "in");
		if (u.sw.cpu_wide)
			fprintf(out, " next-prev pid %u tid %u", u.sw.next_prev_pid,
				u.sw.next_prev_tid);
		break;
	case PREC_REC_HEADER_ATTR:
		if (prec_rec_attr__parse(p, n, &u.attr))
			return -EBADMSG;
		fprintf(out, " type %u config %#" PRIx64 " sample_type %#" PRIx64 " ids %zu",
			u.attr.attr.type, (uint64_t)u.attr.attr.config,
			(uint64_t)u.attr.attr.sample_type, u.attr.nr_ids);
		return 0;
	case PREC_REC_HEADER_FEATURE:
		if (prec_rec_feature__parse(p, n, &u.feature))
			return -EBADMSG;
		name = u.feature.feat == PREC_FEAT_LAST
			   ? "end of features"
			   : prec_feature_name((unsigned int)u.feature.feat);
		fprintf(out, " %s", name ? name : "unknown");
		return 0;
	case PREC_REC_HEADER_BUILD_ID:
		if (prec_rec_build_id__parse(p, n, &u.bid))
			return -EBADMSG;
		fprintf(out, " pid %d", u.bid.pid);
		print_build_id(" build-id ", u.bid.id, u.bid.size, out);
		fprintf(out, " %s", u.bid.filename);
		return 0;
	case PREC_REC_COMPRESSED:
		fprintf(out, " payload %zu", n - 8);
		return 0;
	case PREC_REC_ID_INDEX:
		if (prec_rec_id_index__parse(p, n, &u.id_index))
			return -EBADMSG;
		fprintf(out, " nr %" PRIu64, u.id_index.nr);
		return 0;
	default:
		return 0;
	}
	/* side records with a sample_id trailer */
	print_time(r, rec, out);
	return 0;
}

/* Whether a record is a sample outside the stream's --since/--until window. */
static bool outside(struct prec_reader *r, const struct prec_record *rec,
		    const struct preport_stream *win)
{
	const struct prec_evsel *e;
	struct prec_sample s;

	if (!win || !win->window || rec->type != PERF_RECORD_SAMPLE)
		return false;
	e = preport_evsel_of(r, rec);
	if (!e || !(e->layout.sample_type & PERF_SAMPLE_TIME) ||
	    prec_sample__parse(&e->layout, rec->data, rec->size, &s))
		return false; /* printed, as malformed or without a time */
	return s.time < win->lo || s.time > win->hi;
}

int preport_dump(struct prec_reader *r, const char *input, const struct preport_stream *win,
		 FILE *out)
{
	uint64_t left_out = 0;
	struct prec_time_range times = { 0, 0 };
	static const char *const kinds[] = { "", "k", "u", "H", "gk", "gu", "6", "7" };
	uint64_t counts[NR_TYPES] = { 0 }, other = 0, total = 0;
	struct prec_record rec;
	const char *name;
	char obuf[64];
	unsigned int t;
	int rc;

	while ((rc = prec_reader__next(r, &rec)) > 0) {
		if (outside(r, &rec, win)) {
			preport_times_add_record(&times, r, &rec);
			left_out++;
			continue;
		}
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
		if (print_body(r, &rec, out))
			fprintf(out, " (too short or malformed)");
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
	if (left_out)
		fprintf(out, "(%" PRIu64 " samples outside --since/--until left out)\n", left_out);
	if (prec_reader__truncated(r))
		fprintf(out, "(input truncated: records after the cut are missing)\n");
	if (rc == 0)
		preport_warn_cut(r, input, &times, NULL);
	return rc < 0 ? rc : 0;
}
