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

/* -D: one line per record, then totals per type. Returns 0 or -errno. */
int preport_dump(struct prec_reader *r, FILE *out);

/*
 * --header / --header-only: print the header and its features.  In pipe form call
 * prec_reader__read_header() first, or the features are not known yet.  A malformed feature
 * is one "# NAME: malformed" line, not an error.  Returns 0 or -errno (-ENOMEM, -EIO).
 */
int preport_print_header(struct prec_reader *r, const char *input, FILE *out);

#endif
