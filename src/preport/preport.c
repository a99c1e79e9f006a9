/* SPDX-License-Identifier: MIT */
/*
 * preport: reads a record stream (precord's or perf's) and prints views of it.
 * This file holds the command line and the error reporting: each failure is reported once,
 * here, in one line that says what failed and what to do.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "prec_log.h"
#include "preport.h"

static bool verbose, quiet;
static char last_error[1024]; /* the library's error, reported once by main() */

static void log_to_stderr(enum prec_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (level == PREC_LOG_ERROR) {
		snprintf(last_error, sizeof(last_error), "%s", msg);
		return;
	}
	if (level >= PREC_LOG_INFO && !verbose)
		return;
	if (level == PREC_LOG_WARN && quiet)
		return;
	fprintf(stderr, "preport: %s: %s\n", level == PREC_LOG_WARN ? "warning" : "info", msg);
}

/* What went wrong, in the library's words if it said something, else strerror. */
static const char *why(int err)
{
	return last_error[0] ? last_error : strerror(-err);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: preport [options]\n"
		"  -i, --input FILE       input file (default: precord.data, then perf.data; - for stdin)\n"
		"  -D, --dump-raw-trace   print every record, then totals per record type\n"
		"      --header           print the recording's header features, then the report\n"
		"      --header-only      print only the header features\n"
		"  -v, --verbose          more messages\n"
		"  -q, --quiet            fewer messages\n"
		"  -h, --help             this help\n"
		"      --version          print the version\n");
}

static const char *default_input(void)
{
	if (!access("precord.data", F_OK))
		return "precord.data";
	if (!access("perf.data", F_OK))
		return "perf.data";
	return NULL;
}

int main(int argc, char **argv)
{
	enum { OPT_HEADER = 256, OPT_HEADER_ONLY, OPT_VERSION };
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "dump-raw-trace", no_argument, NULL, 'D' },
		{ "header", no_argument, NULL, OPT_HEADER },
		{ "header-only", no_argument, NULL, OPT_HEADER_ONLY },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	struct preport_opts o = { 0 };
	struct prec_reader *r = NULL;
	int c, err;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:Dvqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o.input = optarg;
			break;
		case 'D':
			o.dump_raw = true;
			break;
		case OPT_HEADER:
			o.header = true;
			break;
		case OPT_HEADER_ONLY:
			o.header_only = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'q':
			o.quiet = true;
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf("preport %s\n", PACKAGE_VERSION);
			return 0;
		case ':':
			fprintf(stderr, "preport: option '%s' needs a value; run 'preport --help' for "
					"usage\n", argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "preport: unknown option '%s'; run 'preport --help' for the "
					"list\n", argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "preport: unexpected argument '%s'; run 'preport --help' for usage\n",
			argv[optind]);
		return 2;
	}
	if (!o.input)
		o.input = default_input();
	if (!o.input) {
		fprintf(stderr, "preport: no precord.data or perf.data here; give the recording "
				"with -i FILE\n");
		return 2;
	}
	prec_log_set_fn(log_to_stderr, NULL);

	err = prec_reader__open(o.input, &r);
	if (err) {
		if (err == -EBADMSG || err == -EPROTONOSUPPORT)
			fprintf(stderr, "preport: cannot read '%s': %s; is it a perf.data or "
					"precord recording?\n", o.input, why(err));
		else if (err == -EISDIR)
			fprintf(stderr, "preport: cannot read '%s': it is a directory; give the "
					"recording file with -i\n", o.input);
		else
			fprintf(stderr, "preport: cannot open '%s': %s\n", o.input, strerror(-err));
		return 1;
	}

	err = 0;
	if (o.header || o.header_only) {
		/* pipe form: the features come as records; read them now, -D still sees them */
		err = prec_reader__read_header(r);
		if (!err)
			err = preport_print_header(r, o.input, stdout);
	}
	if (!err && !o.header_only) {
		if (o.dump_raw) {
			err = preport_dump(r, stdout);
		} else {
			fprintf(stderr, "preport: reports are not built yet; use -D or --header\n");
			err = -ENOSYS;
		}
	}
	prec_reader__free(r);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "preport: cannot write the output: %s\n", strerror(errno));
		return 1;
	}
	if (err == -EBADMSG) {
		fprintf(stderr, "preport: '%s' is corrupt: %s; the records before it were "
				"printed\n", o.input, why(err));
		return 1;
	}
	if (err == -ENOMEM) {
		fprintf(stderr, "preport: out of memory reading '%s'\n", o.input);
		return 1;
	}
	if (err && err != -ENOSYS) {
		fprintf(stderr, "preport: cannot read '%s': %s\n", o.input, why(err));
		return 1;
	}
	return err ? 1 : 0;
}
