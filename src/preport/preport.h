/* SPDX-License-Identifier: MIT */
/* preport internals shared between its views. */
#ifndef PREPORT_H
#define PREPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "prec_reader.h"

struct preport_opts {
	const char *input;
	bool dump_raw; /* -D */
	bool header; /* --header: features, then the report */
	bool header_only; /* --header-only */
	bool quiet;
};

#include "prec_hist.h"
#include "prec_view.h"

/* What the report shows (see preport --help). */
struct preport_report_opts {
	enum prec_sort_key keys[PREC_HIST_MAX_KEYS];
	size_t nr_keys;
	int children; /* -1: when there are call chains */
	int graph; /* enum prec_graph_mode, -1: graph when there are call chains */
	double graph_threshold;
	int graph_value; /* enum prec_graph_value */
	int order; /* -1: perf's default, 0: callee, 1: caller */
	bool folded;
	bool show_nr_samples;
	double percent_limit;
	const char *field_sep;
	bool inline_frames;
	bool no_demangle;
	uint32_t max_stack; /* frames of a chain used, per part (kernel, user) when unwound */
	const char *symfs, *kallsyms;
	const char *cache_dir; /* the kernel symbol cache's directory; NULL: none */
	bool quiet;
	/* filters; NULL / 0 when not given */
	const char *const *comms, *const *dsos, *const *syms;
	const uint32_t *pids, *tids;
	size_t nr_pids, nr_tids;
	const bool *cpus; /* nr_cpu_bits flags */
	uint32_t nr_cpu_bits;
	bool time_set;
	uint64_t time_start, time_end; /* ns; end 0: open */
	/* the process exits right after: leave the report's memory to the kernel (freeing
	 * ~100k small blocks and ~40 mapped ELF files took 5 ms of a 130 ms report) */
	bool no_teardown;
};

/*
 * Read the records and print the report.  Returns 0, -EBADMSG after printing what came
 * before a corrupt part, or -errno (-ENOMEM, -EIO).
 */
int preport_report(struct prec_reader *r, const char *input, const struct preport_report_opts *o,
		   FILE *out);

/* -D: one line per record, then totals per type. Returns 0 or -errno. */
int preport_dump(struct prec_reader *r, FILE *out);

/*
 * --header / --header-only: print the header and its features.  In pipe form call
 * prec_reader__read_header() first, or the features are not known yet.  A malformed feature
 * is one "# NAME: malformed" line, not an error.  Returns 0 or -errno (-ENOMEM, -EIO).
 */
int preport_print_header(struct prec_reader *r, const char *input, FILE *out);

#endif
