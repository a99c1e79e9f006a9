/* SPDX-License-Identifier: MIT */
/*
 * preport: reads a record stream (precord's or perf's) and prints views of it.
 * This file holds main(): it takes the options (options.c), chooses what to run (the header,
 * the dump or the report, of a file or of a directory of segments), and reports each failure
 * once, here, in one line that says what failed and what to do.
 */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "prec_log.h"
#include "preport.h"

static const char *log_subject; /* the segment being read, named in warnings */
static bool log_muted;
/* the library's error, reported once by main(); per thread, for the listing's counting */
static _Thread_local char last_error[1024];

/* ctx: the struct preport_opts, for -v and -q */
static void log_to_stderr(enum prec_log_level level, const char *msg, void *ctx)
{
	const struct preport_opts *o = ctx;

	if (level == PREC_LOG_ERROR) {
		snprintf(last_error, sizeof(last_error), "%s", msg);
		return;
	}
	if (level >= PREC_LOG_INFO && !o->verbose)
		return;
	if (level == PREC_LOG_WARN && (o->report.quiet || log_muted))
		return;
	fprintf(stderr, "preport: %s: %s%s%s\n", level == PREC_LOG_WARN ? "warning" : "info",
		log_subject ? log_subject : "", log_subject ? ": " : "", msg);
}

/* What went wrong, in the library's words if it said something, else strerror. */
const char *preport_why(int err)
{
	return last_error[0] ? last_error : strerror(-err);
}

const char *preport_shown(const char *input)
{
	static char buf[PATH_MAX + 3];

	if (!strcmp(input, "-"))
		return "standard input";
	snprintf(buf, sizeof(buf), "'%s'", input);
	return buf;
}

void preport_clear_error(void)
{
	last_error[0] = 0;
}

void preport_log_subject(const char *name, bool mute)
{
	log_subject = name;
	log_muted = mute;
}

static const char *default_input(void)
{
	if (!access("precord.data", F_OK))
		return "precord.data";
	if (!access("perf.data", F_OK))
		return "perf.data";
	return NULL;
}

/* Builds whose leak checker wants every block freed before exit (make check under
 * --enable-sanitizers) keep the report's teardown; others leave it to the kernel. */
#if defined(__SANITIZE_ADDRESS__)
#define LEAK_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LEAK_CHECKED 1
#endif
#endif
#ifndef LEAK_CHECKED
#define LEAK_CHECKED 0
#endif

/*
 * Where the kernel symbol cache is: $PRECORD_CACHE_DIR (empty: no cache), else
 * $XDG_CACHE_HOME/precord, else ~/.cache/precord; NULL when none of them is an absolute path.
 */
static const char *cache_dir(char *buf, size_t len)
{
	const char *e = getenv("PRECORD_CACHE_DIR");
	int n;

	if (e)
		return e[0] == '/' ? e : NULL;
	e = getenv("XDG_CACHE_HOME");
	if (e && e[0] == '/')
		n = snprintf(buf, len, "%s/precord", e);
	else if ((e = getenv("HOME")) && e[0] == '/')
		n = snprintf(buf, len, "%s/.cache/precord", e);
	else
		return NULL;
	return n > 0 && (size_t)n < len ? buf : NULL;
}

/*
 * The input (and each ELF file) is mapped: if another program cuts one short while it is
 * read, touching the part that is gone raises SIGBUS.  Say so in one line and stop, as for
 * any input that cannot be read, instead of dying by the signal.
 */
static void on_sigbus(int sig)
{
	static const char msg[] = "preport: a file being read was truncated meanwhile (SIGBUS); "
				  "run again once it is complete\n";

	(void)sig;
	(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	_exit(1);
}

/* --cpu given, and no sample of input carries a CPU number: perf refuses it too. */
static void refuse_cpu(const char *input)
{
	fprintf(stderr, "preport: %s does not contain CPU events (its samples carry no CPU "
			"number); remove --cpu to proceed\n", preport_shown(input));
}

/*
 * The exit status after a run that returned err, with the one line that says what failed.
 * The output is flushed first: a report that could not be written is a failure too.
 */
static int exit_status(const struct preport_opts *o, int err)
{
	if (err == -ENOTSUP) {
		refuse_cpu(o->input);
		return 2;
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "preport: cannot write the output: %s\n", strerror(errno));
		return 1;
	}
	if (err == -EBADMSG)
		fprintf(stderr, "preport: %s is corrupt: %s; the records before it were %s\n",
			preport_shown(o->input), preport_why(err),
			o->dump_raw ? "printed" : o->report.pprof || o->report.flame ? "exported"
									: "reported");
	else if (err == -ENOMEM)
		fprintf(stderr, "preport: out of memory reading %s\n", preport_shown(o->input));
	else if (err && err != -ENODATA) /* -ENODATA: no segment could be read, said */
		fprintf(stderr, "preport: cannot read %s: %s\n", preport_shown(o->input),
			preport_why(err));
	return err ? 1 : 0;
}

/* A directory of segments: the listing, the dump or the report.  Returns the exit status. */
static int run_dir(const struct preport_opts *o)
{
	struct preport_input *in;
	int err;

	if (preport_input__new_dir(o->input, &o->range, &in))
		return 1; /* said why */
	err = 0;
	if (o->header || o->header_only) {
		err = preport_input__print_listing(in, stdout);
		if (!err)
			err = preport_input__print_first_header(in, stdout);
	}
	if (!err && !o->header_only)
		err = o->dump_raw ? preport_input__dump(in, stdout)
				  : preport_report_input(in, &o->report, stdout);
	preport_input__free(in);
	return exit_status(o, err);
}

/* Whether some event of the recording records the CPU of its samples (header read). */
static bool has_cpu_numbers(const struct prec_reader *r)
{
	size_t i, n = prec_reader__nr_evsels(r);

	for (i = 0; i < n; i++)
		if (prec_reader__evsel(r, i)->layout.sample_type & PERF_SAMPLE_CPU)
			return true;
	return false;
}

/* A recording file or standard input: the header, the dump or the report.  Returns the exit
 * status. */
static int run_file(const struct preport_opts *o)
{
	struct preport_input *in = NULL;
	struct prec_reader *r;
	int err = prec_reader__open(o->input, &r);

	if (err) {
		if (err == -EBADMSG || err == -EPROTONOSUPPORT)
			fprintf(stderr, "preport: cannot read %s: %s; is it a perf.data or "
					"precord recording?\n",
				preport_shown(o->input), preport_why(err));
		else if (err == -EISDIR)
			fprintf(stderr, "preport: cannot read '%s': it is a directory; give the "
					"recording file with -i\n", o->input);
		else
			fprintf(stderr, "preport: cannot open %s: %s\n", preport_shown(o->input),
				strerror(-err));
		return 1;
	}
	/* as perf: --cpu on samples without CPU numbers would silently select none, or all */
	if (o->report.session.cpus && !o->header_only && !o->dump_raw) {
		err = prec_reader__read_header(r);
		if (!err && !has_cpu_numbers(r))
			err = -ENOTSUP;
	}
	if (!err && (o->header || o->header_only)) {
		/* pipe form: the features come as records; read them now, -D still sees them */
		err = prec_reader__read_header(r);
		if (!err)
			err = preport_print_header(r, o->input, stdout);
	}
	if (!err && !o->header_only && !o->dump_raw) {
		/* a recording that defines no event ends inside or right after its header */
		err = prec_reader__read_header(r);
		if (!err && !prec_reader__nr_evsels(r)) {
			fprintf(stderr, "preport: %s holds no event, nothing to report: it ends in "
					"or right after its header, so its recorder stopped as it began "
					"(or it is not a recording)\n",
				preport_shown(o->input));
			prec_reader__free(r);
			return 1;
		}
	}
	if (!err && !o->header_only) {
		/* with --since/--until, a recording without wall-clock data is refused here */
		err = preport_input__new_file(r, o->input, &o->range, &in);
		if (err && err != -ENOMEM) {
			prec_reader__free(r);
			return 1; /* said why */
		}
		if (!err)
			err = o->dump_raw ? preport_input__dump(in, stdout)
					  : preport_report_input(in, &o->report, stdout);
	}
	preport_input__free(in);
	prec_reader__free(r);
	return exit_status(o, err);
}

/*
 * preport is a batch process whose memory only grows until it exits, and the hash tables at
 * its heart are probed at random.  These settings of glibc's malloc:
 *  - large blocks come from the heap and freed memory stays there for reuse (by default
 *    glibc maps each block over 128 KiB by itself and unmaps it when freed, and trims the
 *    heap: every new table then starts with fresh, zero-filled pages, each a page fault);
 *  - one arena for both threads, so the symbol loader's tables also land there (in an arena
 *    of its own they took a page fault per 4 KiB).
 * The heap is not advised to use transparent huge pages: on a VM whose free memory goes back
 * to the host, a fresh huge page is slow to fault in.  Figures: doc/performance.md.
 */
static void tune_memory(void)
{
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_MMAP_THRESHOLD, 512 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

int main(int argc, char **argv)
{
	struct preport_opts o;
	char cache_buf[PATH_MAX];
	int rc;

	if (!preport_opts__parse(&o, argc, argv, &rc))
		goto out;
	rc = 2;
	if (!o.input)
		o.input = default_input();
	if (!o.input) {
		fprintf(stderr, "preport: no precord.data or perf.data here; give the recording "
				"with -i FILE\n");
		goto out;
	}
	prec_log_set_fn(log_to_stderr, &o);
	tune_memory();
	signal(SIGBUS, on_sigbus);
	o.report.session.cache_dir = o.no_symbol_cache ? NULL
						      : cache_dir(cache_buf, sizeof(cache_buf));
	o.report.no_teardown = !LEAK_CHECKED;
	rc = preport_export__open(&o.pprof_file);
	if (!rc)
		rc = preport_export__open(&o.flame_file);
	if (!rc)
		rc = preport_is_dir(o.input) ? run_dir(&o) : run_file(&o);
	rc = preport_export__close(&o.pprof_file, rc);
	rc = preport_export__close(&o.flame_file, rc);
out:
	preport_opts__free(&o);
	return rc;
}
