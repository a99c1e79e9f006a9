/* SPDX-License-Identifier: MIT */
/* precord internals shared between its parts. */
#ifndef PRECORD_H
#define PRECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "prec_writer.h"

struct rec_opts {
	char **cmd; /* workload argv, or NULL */
	int argc_all; /* for the CMDLINE feature */
	char **argv_all;
	pid_t *pids; /* -p / -t */
	size_t nr_pids;
	bool threads_only; /* -t: the given tids, not their processes */
	bool all_cpus; /* -a */
	const char *cpu_list; /* -C */
	const char *events; /* -e, comma-separated; NULL = default */
	uint64_t freq; /* -F */
	uint64_t period; /* -c */
	bool callchain; /* -g / --call-graph fp */
	bool dwarf; /* --call-graph dwarf */
	uint32_t stack_size;
	const char *output;
	int zlevel; /* 0 = --no-compress */
	size_t mmap_pages;
	unsigned int flush_ms;
	double duration; /* seconds, 0 = none */
	bool quiet, verbose;
};

/* Run the recording; returns the exit status for main(). */
int record_run(const struct rec_opts *o);

/* `precord convert ARGS` (argv[0] is "convert"); returns the exit status. */
int convert_main(int argc, char **argv);

/* ---- synthesis (synth.c) ---- */
/* Header features describing this machine and the command line. */
int synth_features(struct prec_writer *w, int argc, char **argv);
/* The kernel text map, from /proc/kallsyms (skipped quietly when addresses are hidden). */
int synth_kernel_mmap(struct prec_writer *w);
/*
 * COMM for every thread of `pid` and MMAP2 for its executable mappings; with data_maps also
 * for its other readable mappings (DWARF unwinding needs the one holding .eh_frame_hdr).
 */
int synth_process(struct prec_writer *w, pid_t pid, bool data_maps);
/* Every process on the system. */
int synth_all_processes(struct prec_writer *w, bool data_maps);

#endif
