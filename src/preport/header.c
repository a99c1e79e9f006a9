/* SPDX-License-Identifier: MIT */
/* preport --header: the recording's header features, in the manner of perf report --header-only. */
#include "preport.h"

int preport_print_header(struct prec_reader *r, const char *input, FILE *out)
{
	(void)r;
	fprintf(out, "# captured from: %s\n", input);
	return 0;
}
