/* SPDX-License-Identifier: MIT */
/*
 * Synthesized records and header features: what the kernel will not tell a recording because
 * it existed before the recording started (threads, their maps, the kernel text map), and
 * facts about the machine for `preport --header`.  Read from /proc and /sys; a process that
 * goes away while it is read is skipped (it raced with us).  Every function writes through
 * the stream writer and returns 0 or its -errno.
 */
#ifndef PREC_SYNTH_H
#define PREC_SYNTH_H

#include <stdbool.h>
#include <sys/types.h>

#include "prec_writer.h"

struct prec_buildid_cache;

/* Header features describing this machine and the command line (argv[0] is replaced by the
 * resolved path of the running program, as perf does). */
int prec_synth_features(struct prec_writer *w, int argc, char **argv);
/*
 * CLOCKID (the clock's resolution) and CLOCK_DATA (the clock and the wall clock read at one
 * moment), so that sample times, taken from `clockid`, map to wall-clock time.
 */
int prec_synth_clock(struct prec_writer *w, int clockid);
/* The kernel text map, from /proc/kallsyms (skipped quietly when addresses are hidden). */
int prec_synth_kernel_mmap(struct prec_writer *w);
/*
 * COMM for every thread of the process `pid` (or of the process of thread `pid`) and MMAP2
 * for its executable mappings; with data_maps also for its other readable mappings (DWARF
 * unwinding needs the one holding .eh_frame_hdr).  Each file's build-id record (from `bids`,
 * may be NULL) goes before its first MMAP2.
 */
int prec_synth_process(struct prec_writer *w, pid_t pid, bool data_maps,
		       struct prec_buildid_cache *bids);
/* Every process on the system. */
int prec_synth_all_processes(struct prec_writer *w, bool data_maps,
			     struct prec_buildid_cache *bids);

/*
 * The same facts read from /proc, handed to a sink instead of a writer (the task table of a
 * session fills itself this way).  A callback's non-zero return stops the reading and is
 * returned.  `m` and `comm` are valid during the call only.
 */
struct prec_synth_sink {
	int (*comm)(void *ctx, pid_t pid, pid_t tid, const char *comm);
	int (*mmap2)(void *ctx, uint16_t misc, const struct prec_mmap2 *m);
	void *ctx;
};
int prec_synth_read_process(const struct prec_synth_sink *k, pid_t pid, bool data_maps);
int prec_synth_read_all(const struct prec_synth_sink *k, bool data_maps);
/* Only the maps of process `pid` (a thread group id). */
int prec_synth_read_maps(const struct prec_synth_sink *k, pid_t pid, bool data_maps);
/*
 * The HEADER_BUILD_ID record of the file of mapping `m` (an MMAP2 with cpumode in `misc`),
 * when `bids` sees that file for the first time in this output; nothing for other maps.
 * 0 or the writer's error.
 */
int prec_synth_build_id(struct prec_writer *w, struct prec_buildid_cache *bids, uint16_t misc,
			const struct prec_mmap2 *m);

#endif
