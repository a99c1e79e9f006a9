/* SPDX-License-Identifier: MIT */
/*
 * preport --pprof: a finished hist written as a pprof profile (the profile.proto messages,
 * gzip-compressed), the file go tool pprof, Pyroscope, Parca, speedscope and Grafana read.
 */
#ifndef PREC_PPROF_H
#define PREC_PPROF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "prec_hist.h"

/* What the recording says of one of its events. */
struct prec_pprof_event {
	const char *name;
	uint64_t fixed_period; /* its sample_period; 0: sampled at a frequency */
	bool dummy; /* perf's tracking event, which never has samples */
};

struct prec_pprof_opts {
	/* each of the hist's events (prec_hist__nr_events() of them) */
	const struct prec_pprof_event *events;
	uint64_t time_nanos; /* when the first sample was taken, ns since the epoch; 0: unknown */
	uint64_t duration_nanos; /* from the first sample to the last */
	bool hide_unresolved; /* -U: leave out the stacks whose leaf has no symbol */
};

/*
 * Write hist h (finished; made with need_thread for the pid, tid and comm labels, and with
 * inline_frames for the inlined functions) to `out` as a gzip-compressed pprof profile.
 * One sample per stack of the hist with samples (its leaf passing the --dsos and --symbols
 * filters), valued in samples and in each event's own unit; one location per frame (DSO,
 * address) with the functions inlined there as its lines, innermost first; one mapping per
 * DSO, whose addresses are the frames' (file offsets for ELF files: memory_start equals
 * file_offset), with the DSO's build-id unless an earlier mapping has it (a copy of the file
 * at another path, which pprof's readers would merge into that one).  A profile without samples (an empty range, a corrupt or cut-short input)
 * still has the sample types and period type of the events that are not dummies.
 * Returns 0, -EIO when writing failed, or -ENOMEM.
 */
int prec_pprof__write(struct prec_hist *h, const struct prec_pprof_opts *o, FILE *out);

#endif
