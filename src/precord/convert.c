/* SPDX-License-Identifier: MIT */
/*
 * precord convert: rewrite a recording into perf's file form, uncompressed, for the tools
 * that read nothing else (perf diff, perf annotate and perf buildid-list of perf 6.1 on
 * compressed or pipe data, hotspot built without zstd).  The work is lib/data's
 * prec_convert_to_file(); this file parses options, places the output and reports.
 *
 * The output is written to a new temporary file (mode 0600, O_EXCL) beside it and renamed
 * into place only when complete, so a failure leaves nothing half-written and a planted
 * symlink is replaced, never followed.  An existing output is kept as OUT.old, as perf
 * record does.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prec_convert.h"
#include "prec_log.h"
#include "precord.h"

static char last_error[1024]; /* the library's error, reported once */
static bool quiet;

static void log_cb(enum prec_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (level == PREC_LOG_ERROR)
		snprintf(last_error, sizeof(last_error), "%s", msg);
	else if (level == PREC_LOG_WARN && !quiet)
		fprintf(stderr, "precord convert: warning: %s\n", msg);
}

static const char *why(int err)
{
	return last_error[0] ? last_error : strerror(-err);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: precord convert [-i IN] [-o OUT]\n"
		   "Rewrite a recording (precord's or perf's, pipe or file form, compressed\n"
		   "or not) as an uncompressed perf.data file, for perf diff, perf annotate,\n"
		   "perf buildid-list and hotspot.\n"
		   "  -i, --input FILE   the recording (default precord.data; - for stdin)\n"
		   "  -o, --output FILE  the file to write (default perf.data; an existing\n"
		   "                     one is kept as FILE.old)\n"
		   "  -q, --quiet        no summary\n"
		   "  -h, --help         this help\n");
}

/* Refuse an output that exists and is not a regular file: it is not ours to replace. */
static int check_output(const char *path)
{
	struct stat st;

	if (lstat(path, &st)) {
		int err = -errno;

		if (err == -ENOENT)
			return 0;
		fprintf(stderr, "precord convert: cannot use '%s': %s; choose another output "
				"with -o\n", path, strerror(-err));
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr,
			"precord convert: '%s' exists and is not a regular file (a symlink, "
			"directory or FIFO); remove it or choose another output with -o\n",
			path);
		return -EEXIST;
	}
	return 0;
}

/* Put the finished temporary file in place, keeping an existing output as PATH.old. */
static int place_output(const char *tmp, const char *path)
{
	char old[PATH_MAX];
	struct stat st;

	if (!lstat(path, &st) && S_ISREG(st.st_mode)) {
		if (snprintf(old, sizeof(old), "%s.old", path) >= (int)sizeof(old))
			return -ENAMETOOLONG;
		if (rename(path, old))
			return -errno;
	}
	return rename(tmp, path) ? -errno : 0;
}

static int convert(const char *in, const char *out)
{
	struct prec_convert_stats st;
	struct prec_reader *r;
	char tmp[PATH_MAX];
	const char *name = strcmp(in, "-") ? in : "standard input";
	int fd, err;

	if (check_output(out))
		return 1;
	err = prec_reader__open(in, &r);
	if (err) {
		if (err == -EBADMSG || err == -EPROTONOSUPPORT)
			fprintf(stderr,
				"precord convert: cannot read '%s': %s; is it a precord or "
				"perf.data recording?\n",
				name, why(err));
		else
			fprintf(stderr, "precord convert: cannot open '%s': %s\n", name,
				strerror(-err));
		return 1;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", out) >= (int)sizeof(tmp)) {
		fprintf(stderr, "precord convert: output name '%s' is too long\n", out);
		prec_reader__free(r);
		return 1;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr,
			"precord convert: cannot create '%s': %s; choose another output "
			"with -o\n",
			tmp, strerror(errno));
		prec_reader__free(r);
		return 1;
	}
	err = prec_convert_to_file(r, fd, &st);
	prec_reader__free(r);
	if (close(fd) && !err)
		err = -errno;
	if (err) {
		unlink(tmp);
		if (err == -EBADMSG)
			fprintf(stderr, "precord convert: '%s' is corrupt: %s; nothing written\n",
				name, why(err));
		else if (err == -ENODATA)
			fprintf(stderr, "precord convert: cannot convert '%s': it holds no records\n",
				name);
		else if (err == -EOPNOTSUPP)
			fprintf(stderr,
				"precord convert: cannot convert '%s': %s; perf inject can "
				"rewrite such recordings\n",
				name, why(err));
		else
			fprintf(stderr, "precord convert: cannot write '%s': %s; nothing written\n",
				out, strerror(-err));
		return 1;
	}
	err = place_output(tmp, out);
	if (err) {
		fprintf(stderr, "precord convert: cannot rename '%s' to '%s': %s\n", tmp, out,
			strerror(-err));
		unlink(tmp);
		return 1;
	}
	/* a truncated input was said by the reader already: one line about the cut */
	if (st.cut_short && !st.truncated && !quiet)
		fprintf(stderr,
			"precord convert: warning: %s was cut short (no end marker): "
			"converted what it holds\n",
			name);
	if (st.mmap2_fixed && !quiet)
		fprintf(stderr,
			"precord convert: warning: %" PRIu64 " MMAP2 records carried the "
			"build-id flag over a device and inode (a kernel bug marks them so): "
			"written as device and inode\n",
			st.mmap2_fixed);
	if (!quiet)
		fprintf(stderr,
			"precord convert: wrote %s (perf.data file form, uncompressed): "
			"%" PRIu64 " records, %" PRIu64 " samples, %" PRIu64 " build-ids\n",
			out, st.records, st.samples, st.build_ids);
	return 0;
}

int convert_main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"input", required_argument, NULL, 'i'},
	    {"output", required_argument, NULL, 'o'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *in = "precord.data", *out = "perf.data", *arg;
	int c;

	opterr = 0; /* bad_option() says it, once */
	while ((c = next_option(argc, argv, ":i:o:qh", longopts, &arg)) != -1) {
		switch (c) {
		case 'i':
			in = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			bad_option("precord convert", longopts, arg, c);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr,
			"precord convert: unexpected argument '%s'; give the input with -i\n",
			argv[optind]);
		return 2;
	}
	if (!strcmp(out, "-")) {
		fprintf(stderr,
			"precord convert: the file form is written with seeks and cannot go "
			"to standard output; give a file with -o\n");
		return 2;
	}
	prec_log_set_fn(log_cb, NULL);
	return convert(in, out);
}
