/* SPDX-License-Identifier: MIT */
/*
 * precord: the command line.  Option names and meanings follow perf record's, so habits
 * carry over; everything is validated here before any event is opened.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "prec_log.h"
#include "prec_parse.h"
#include "precord.h"
#include "service.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: precord [options] [--] command [args...]\n"
		"       precord [options] -p PID[,PID...] | -t TID[,...] | -a\n"
		"       precord convert [-i IN] [-o OUT]   rewrite as a perf.data file for other\n"
		"                                          tools (see 'precord convert --help')\n"
		"\n"
		"Targets:\n"
		"  -p, --pid PIDS          attach to processes (comma-separated)\n"
		"  -t, --tid TIDS          attach to threads\n"
		"  -a, --all-cpus          sample the whole system\n"
		"  -C, --cpu LIST          the whole system on these CPUs only (e.g. 0-3,5)\n"
		"      --duration SECONDS  stop after this long (or give a command to time it:\n"
		"                          -p PID -- sleep 5)\n"
		"Events:\n"
		"  -e, --event LIST        events (default cycles; cpu-clock when there is no PMU):\n"
		"                          cycles instructions cache-misses branch-misses cpu-clock\n"
		"                          task-clock page-faults context-switches rNNNN pmu/config=N/\n"
		"                          (not tracepoints: record those with perf record)\n"
		"  -F, --freq HZ|max       sample at this frequency (default 4000; max: the\n"
		"                          kernel's limit, kernel.perf_event_max_sample_rate)\n"
		"  -c, --count PERIOD      sample every PERIOD events\n"
		"  -g                      record call chains (frame pointers)\n"
		"      --call-graph MODE   fp, or dwarf[,STACK_BYTES] (default 8192)\n"
		"Output:\n"
		"  -o, --output FILE       output file (default precord.data; - for stdout)\n"
		"  -z, --compression-level[=N]  zstd level 1-19 (default 1)\n"
		"      --no-compress       write uncompressed records\n"
		"  -m, --mmap-pages N|SIZE ring buffer per CPU: pages or a size like 8M, rounded\n"
		"                          up to a power of two (default 128 pages)\n"
		"      --flush-interval MS write to the file at least this often (default 1000)\n"
		"      --[no-]switch-events  context-switch records (default on; the daemon's off)\n"
		"  -k, --clockid CLOCK     sample times from this clock (default monotonic; also\n"
		"                          monotonic_raw, realtime, boottime, tai)\n"
		"  -q, --quiet             no summary\n"
		"  -v, --verbose           more messages\n"
		"  -h, --help              this help\n"
		"      --version           print the version\n"
		"\n"
		"precord daemon [options]: record in the background, see 'precord daemon --help'\n"
		"precord ctl [--dir DIR] status|rotate|stop: ask a running daemon\n");
}

static void daemon_usage(FILE *f)
{
	fprintf(f,
		"usage: precord daemon [record options] [daemon options]\n"
		"\n"
		"Records in the background into a directory of segments, each a precord file that\n"
		"preport and perf report read on its own; 'preport -i DIR' reads them all.\n"
		"Record options are precord's (-a -p -t -C -e -F -c -g --call-graph -m -z\n"
		"--no-compress -k --flush-interval --[no-]switch-events -v); the defaults are\n"
		"-a -F 99 -g, no context-switch records.  -o, --duration and -q are refused.\n"
		"\n"
		"Daemon options:\n"
		"      --dir DIR           where segments go (default %s, created 0700)\n"
		"      --switch-output[=SPEC]  a new segment after a time (30s, 10m, 1h), a size\n"
		"                          (64M, 1G), or both: 10m,256M (the default); 'signal'\n"
		"                          or no SPEC: only on SIGUSR2 or 'precord ctl rotate'\n"
		"      --switch-max-files N  keep at most N closed segments\n"
		"      --max-disk SIZE     keep all segments together under SIZE (1M or more)\n"
		"      --max-age DURATION  delete segments that ended longer ago (e.g. 7d)\n"
		"      --min-free SIZE|PCT%%  leave this much free on the file system\n"
		"      --background        detach from the terminal (log in DIR/precord.log)\n"
		"      --keep-unsampled    keep the records of short processes that got no sample\n"
		"                          (left out by default, see precord-daemon(1))\n"
		"Retention covers every segment in DIR, those of earlier runs too; the oldest\n"
		"go first, the live one never.  SIGUSR2 switches segments, SIGTERM/SIGINT stop.\n",
		PRECORD_DEFAULT_DIR);
}

static int parse_u64(const char *s, uint64_t *ret)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*ret = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

static int parse_pids(const char *s, struct rec_opts *o)
{
	char *copy = strdup(s), *tok, *save;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;
		pid_t *np;

		if (parse_u64(tok, &v) || !v || v > 0x7fffffff) {
			err = -EINVAL;
			break;
		}
		np = realloc(o->pids, (o->nr_pids + 1) * sizeof(pid_t));
		if (!np) {
			err = -ENOMEM;
			break;
		}
		o->pids = np;
		o->pids[o->nr_pids++] = (pid_t)v;
	}
	free(copy);
	return err;
}

/*
 * The kernel refuses a frequency above kernel.perf_event_max_sample_rate (which it lowers by
 * itself when sampling interrupts take too long): cap it there, as perf does, with a
 * warning when the user asked for more.
 */
static void cap_frequency(struct rec_opts *o)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	uint64_t max = 0;
	bool asked = o->freq != 0;

	if (f) {
		if (fscanf(f, "%" SCNu64, &max) != 1)
			max = 0;
		fclose(f);
	}
	if (o->period)
		return;
	if (!o->freq)
		o->freq = 4000;
	if (o->freq == UINT64_MAX && !max) {
		service_log(LOG_WARNING, "warning: cannot read kernel.perf_event_max_sample_rate; "
					 "-F max samples at 4000 Hz");
		o->freq = 4000;
	} else if (o->freq == UINT64_MAX) {
		o->freq = max;
	} else if (max && o->freq > max) {
		if (asked && !o->quiet)
			service_log(LOG_WARNING, "warning: -F %" PRIu64 " is above the kernel's "
						 "limit; sampling at %" PRIu64 " Hz (raise it with "
						 "'sysctl kernel.perf_event_max_sample_rate=N')",
				    o->freq, max);
		o->freq = max;
	}
}

/* The library's messages: warnings unless -q, information and debugging with -v. */
static void log_to_stderr(enum prec_log_level level, const char *msg, void *ctx)
{
	const struct rec_opts *o = ctx;

	if ((level >= PREC_LOG_INFO && !o->verbose) || (level == PREC_LOG_WARN && o->quiet))
		return;
	fprintf(stderr, "precord: %s\n", msg);
}

/*
 * The CPU list's and the events' spelling is checked here, so that a typo is a usage error
 * (2), said before a workload or a daemon starts; whether the CPUs exist and the kernel
 * takes the events is known only when they are opened.
 */
static int check_cpu_list(const char *list)
{
	struct prec_events_error e = { .what = PREC_EVENTS_ERR_NONE, .cpu = -1 };
	size_t nr;
	int *cpus, err;

	err = prec_cpus_parse(list, &cpus, &nr);
	if (err) {
		report_session_error(list, false, err, &e);
		return err == -ENOMEM ? 1 : 2;
	}
	free(cpus);
	return 0;
}

/* 0, or the exit status after the one line (2: an unknown event or too many). */
static int check_events(const struct rec_opts *o)
{
	struct prec_events_opts eo = { .events = o->events };
	struct prec_events_error e;
	struct prec_events *ev;
	int err;

	if (strpbrk(o->events, "{}")) {
		fprintf(stderr, "precord: event groups ('{...}') are not supported: each event "
				"samples on its own; give the events without braces (-e "
				"cpu-clock,page-faults), or use perf record for a group\n");
		return 2;
	}
	err = prec_events__new(&eo, &ev, &e);
	if (err) {
		report_session_error(NULL, false, err, &e);
		return e.what == PREC_EVENTS_ERR_NONE ? 1 : 2;
	}
	prec_events__free(ev);
	return 0;
}

/* A daemon option given to one-shot precord: one line (then a usage error, 2). */
static void daemon_only(const struct option *longopts, int c)
{
	const char *name = "?";

	for (; longopts->name; longopts++)
		if (longopts->val == c)
			name = longopts->name;
	fprintf(stderr, "precord: --%s is an option of 'precord daemon'; see 'precord daemon "
			"--help'\n", name);
}

enum mode { MODE_RECORD, MODE_DAEMON };

/* A record option that means nothing to the daemon: one line (then a usage error, 2). */
static void not_for_daemon(const char *opt, const char *why)
{
	fprintf(stderr, "precord daemon: %s is not a daemon option: %s; run 'precord daemon "
			"--help'\n", opt, why);
}

/* A daemon option's value, or the one-line error; 0 or 2 (usage error). */
static int daemon_option(int c, const char *arg, struct rec_opts *o);

enum {
	OPT_CALL_GRAPH = 256,
	OPT_NO_COMPRESS,
	OPT_FLUSH,
	OPT_DURATION,
	OPT_VERSION,
	OPT_SWITCH_EVENTS,
	OPT_NO_SWITCH_EVENTS,
	/* daemon options */
	OPT_DIR,
	OPT_SWITCH_OUTPUT,
	OPT_MAX_FILES,
	OPT_MAX_DISK,
	OPT_MAX_AGE,
	OPT_MIN_FREE,
	OPT_BACKGROUND,
	OPT_KEEP_UNSAMPLED,
};

static int daemon_option(int c, const char *arg, struct rec_opts *o)
{
	struct prec_retention *r = &o->retention;
	uint64_t v;

	switch (c) {
	case OPT_DIR:
		o->dir = arg;
		return 0;
	case OPT_SWITCH_OUTPUT:
		if (!arg) /* bare, as in perf: switch on request only; a SPEC is given with '=' */
			arg = "signal";
		if (prec_parse_switch_output(arg, &o->switch_spec)) {
			fprintf(stderr, "precord: bad --switch-output '%s'; give a time (30s, 10m, 1h), "
					"a size (64M, 1G), both (10m,256M), or signal\n", arg);
			return 2;
		}
		return 0;
	case OPT_MAX_FILES:
		if (parse_u64(arg, &v) || !v) {
			fprintf(stderr, "precord: bad --switch-max-files '%s'; give a number of "
					"segments, at least 1\n", arg);
			return 2;
		}
		r->max_files = v;
		return 0;
	case OPT_MAX_DISK:
		if (prec_parse_size(arg, &v) || !v) {
			fprintf(stderr, "precord: bad --max-disk '%s'; give a size like 10G\n", arg);
			return 2;
		}
		if (v < (1u << 20)) {
			/* one segment (header, build-ids, the maps of every process) takes more */
			fprintf(stderr,
				"precord: --max-disk '%s' is too small for a segment; give "
				"at least 1M\n",
				arg);
			return 2;
		}
		r->max_bytes = v;
		return 0;
	case OPT_MAX_AGE:
		/* a bare number would be seconds: a typo that deletes a week of segments */
		if (*arg && arg[strspn(arg, "0123456789.")] == '\0') {
			fprintf(stderr, "precord: bad --max-age '%s'; give a unit: %sd, %sh, %sm\n",
				arg, arg, arg, arg);
			return 2;
		}
		if (prec_parse_duration_ns(arg, &v) || !v) {
			fprintf(stderr, "precord: bad --max-age '%s'; give a duration like 7d or 12h\n",
				arg);
			return 2;
		}
		r->max_age_ns = v;
		return 0;
	case OPT_MIN_FREE:
		if (prec_parse_min_free(arg, &r->min_free)) {
			fprintf(stderr, "precord: bad --min-free '%s'; give a size (5G) or a share of "
					"the file system below 100%% (10%%)\n", arg);
			return 2;
		}
		return 0;
	case OPT_BACKGROUND:
		o->background = true;
		return 0;
	case OPT_KEEP_UNSAMPLED:
		o->keep_unsampled = true;
		return 0;
	}
	return 2;
}

static int run(int argc, char **argv, enum mode mode)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "event", required_argument, NULL, 'e' },
		{ "freq", required_argument, NULL, 'F' },
		{ "count", required_argument, NULL, 'c' },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "output", required_argument, NULL, 'o' },
		{ "compression-level", optional_argument, NULL, 'z' },
		{ "no-compress", no_argument, NULL, OPT_NO_COMPRESS },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "flush-interval", required_argument, NULL, OPT_FLUSH },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "clockid", required_argument, NULL, 'k' },
		{ "switch-events", no_argument, NULL, OPT_SWITCH_EVENTS },
		{ "no-switch-events", no_argument, NULL, OPT_NO_SWITCH_EVENTS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "dir", required_argument, NULL, OPT_DIR },
		{ "switch-output", optional_argument, NULL, OPT_SWITCH_OUTPUT },
		{ "switch-max-files", required_argument, NULL, OPT_MAX_FILES },
		{ "max-disk", required_argument, NULL, OPT_MAX_DISK },
		{ "max-age", required_argument, NULL, OPT_MAX_AGE },
		{ "min-free", required_argument, NULL, OPT_MIN_FREE },
		{ "background", no_argument, NULL, OPT_BACKGROUND },
		{ "keep-unsampled", no_argument, NULL, OPT_KEEP_UNSAMPLED },
		{ NULL, 0, NULL, 0 },
	};
	struct rec_opts o = {
		.output = "precord.data",
		.zlevel = 1,
		.mmap_pages = 128,
		.flush_ms = 1000,
		.stack_size = 8192,
		.clockid = CLOCK_MONOTONIC,
		.switch_events = true,
		.dir = PRECORD_DEFAULT_DIR,
	};
	const char *cmd_name = mode == MODE_DAEMON ? "precord daemon" : "precord", *arg;
	const char *after_bare_switch = NULL; /* the argument after a bare --switch-output */
	uint64_t v;
	char *end;
	size_t nev = 0;
	char *events = NULL;
	bool freq_given = false; /* the daemon's default -F 99 gives way to a -c */
	int c, bad, rc = 2;

	if (mode == MODE_DAEMON) {
		service_log_keep(true); /* for --background's log: its warnings, said before it */
		o.all_cpus = true; /* unless -p/-t say otherwise, below */
		o.freq = 99;
		o.callchain = true;
		o.switch_spec.time_ms = 10 * 60 * 1000;
		o.switch_spec.size_bytes = 256ULL << 20;
		/* half the bytes to compress, and most ring overflows, on a busy host */
		o.switch_events = false;
	}
	opterr = 0; /* bad_option() says it, once */
	while ((c = next_option(argc, argv, "+:p:t:aC:e:F:c:go:z::m:k:qvh", longopts, &arg)) != -1) {
		switch (c) {
		case 'p':
		case 't':
			if (parse_pids(optarg, &o)) {
				fprintf(stderr, "precord: bad %s list '%s'; give numbers like 123,456\n",
					c == 'p' ? "PID" : "TID", optarg);
				goto out;
			}
			o.threads_only = c == 't';
			if (mode == MODE_DAEMON)
				o.all_cpus = false;
			break;
		case 'a':
			o.all_cpus = true;
			break;
		case 'C':
			bad = check_cpu_list(optarg);
			if (bad) {
				rc = bad;
				goto out;
			}
			o.cpu_list = optarg;
			break;
		case 'e': {
			size_t n = strlen(optarg);
			char *ne = realloc(events, nev + n + 2);

			if (!ne) {
				rc = 1;
				goto out;
			}
			events = ne;
			if (nev)
				events[nev++] = ',';
			memcpy(events + nev, optarg, n + 1);
			nev += n;
			break;
		}
		case 'F':
			freq_given = true;
			if (!strcmp(optarg, "max")) {
				o.freq = UINT64_MAX;
			} else if (parse_u64(optarg, &o.freq) || !o.freq) {
				fprintf(stderr, "precord: bad frequency '%s'; give a number of Hz like "
						"999, or max\n", optarg);
				goto out;
			}
			break;
		case 'c':
			if (parse_u64(optarg, &o.period) || !o.period) {
				fprintf(stderr, "precord: bad period '%s'; give a positive number\n",
					optarg);
				goto out;
			}
			break;
		case 'g':
			o.callchain = true;
			break;
		case OPT_CALL_GRAPH:
			if (!strcmp(optarg, "fp")) {
				o.callchain = true;
			} else if (!strncmp(optarg, "dwarf", 5) &&
				   (optarg[5] == 0 || optarg[5] == ',')) {
				o.dwarf = true;
				if (optarg[5] == ',') {
					if (parse_u64(optarg + 6, &v) || !v || v > 65528) {
						fprintf(stderr, "precord: bad stack size in '%s'; give "
								"bytes up to 65528\n", optarg);
						goto out;
					}
					o.stack_size = (uint32_t)((v + 7) & ~7ULL);
				}
			} else {
				fprintf(stderr, "precord: unknown call graph mode '%s'; use fp or "
						"dwarf[,SIZE]\n", optarg);
				goto out;
			}
			break;
		case 'o':
			if (mode == MODE_DAEMON) {
				not_for_daemon("-o/--output", "it writes its segments into --dir DIR");
				goto out;
			}
			o.output = optarg;
			break;
		case 'z':
			/*
			 * perf takes a level only attached (-z3); precord also takes `-z 3`, which
			 * it always did: a command named by one or two digits is no command.
			 */
			if (!optarg && optind < argc && isdigit((unsigned char)argv[optind][0]) &&
			    strspn(argv[optind], "0123456789") == strlen(argv[optind]) &&
			    strlen(argv[optind]) <= 2)
				optarg = argv[optind++];
			if (!optarg) {
				o.zlevel = 1;
				break;
			}
			if (parse_u64(optarg, &v) || v < 1 || v > 19) {
				fprintf(stderr, "precord: bad compression level '%s'; give 1 to 19\n",
					optarg);
				goto out;
			}
			o.zlevel = (int)v;
			break;
		case OPT_NO_COMPRESS:
			o.zlevel = 0;
			break;
		case 'm': {
			bool rounded;

			if (prec_parse_mmap_pages(optarg, (uint64_t)sysconf(_SC_PAGESIZE), &v,
						  &rounded) ||
			    v > (1 << 20)) {
				fprintf(stderr, "precord: bad ring buffer size '%s'; give pages (128) "
						"or a size (512K, 8M), at most 4G\n", optarg);
				goto out;
			}
			if (rounded)
				service_log(LOG_NOTICE, "ring buffer size rounded up to %" PRIu64
							" pages (%" PRIu64 " KiB), a power of two", v,
					    v * (uint64_t)sysconf(_SC_PAGESIZE) / 1024);
			o.mmap_pages = (size_t)v;
			break;
		}
		case OPT_FLUSH:
			if (parse_u64(optarg, &v) || !v || v > 3600000) {
				fprintf(stderr, "precord: bad flush interval '%s'; give milliseconds "
						"from 1 to 3600000\n", optarg);
				goto out;
			}
			o.flush_ms = (unsigned int)v;
			break;
		case OPT_DURATION:
			if (mode == MODE_DAEMON) {
				not_for_daemon("--duration", "it records until 'precord ctl stop' or "
							     "SIGTERM");
				goto out;
			}
			o.duration = strtod(optarg, &end);
			if (*end || !(o.duration > 0)) {
				fprintf(stderr, "precord: bad duration '%s'; give a number of seconds "
						"above 0, e.g. --duration 10\n", optarg);
				goto out;
			}
			break;
		case 'q':
			if (mode == MODE_DAEMON) {
				not_for_daemon("-q/--quiet", "it prints no summary, and its log says "
							     "what happens");
				goto out;
			}
			o.quiet = true;
			break;
		case 'v':
			o.verbose = true;
			break;
		case OPT_SWITCH_EVENTS:
		case OPT_NO_SWITCH_EVENTS:
			o.switch_events = c == OPT_SWITCH_EVENTS;
			break;
		case 'k':
			if (prec_clockid_parse(optarg, &o.clockid)) {
				fprintf(stderr, "precord: unknown clock '%s'; give monotonic, "
						"monotonic_raw, realtime, boottime or tai\n", optarg);
				goto out;
			}
			break;
		case 'h':
			if (mode == MODE_DAEMON)
				daemon_usage(stdout);
			else
				usage(stdout);
			rc = 0;
			goto out;
		case OPT_VERSION:
			printf("precord %s\n", PACKAGE_VERSION);
			rc = 0;
			goto out;
		case OPT_DIR:
		case OPT_SWITCH_OUTPUT:
		case OPT_MAX_FILES:
		case OPT_MAX_DISK:
		case OPT_MAX_AGE:
		case OPT_MIN_FREE:
		case OPT_BACKGROUND:
		case OPT_KEEP_UNSAMPLED:
			if (mode != MODE_DAEMON) {
				daemon_only(longopts, c);
				goto out;
			}
			if (daemon_option(c, optarg, &o))
				goto out;
			if (c == OPT_SWITCH_OUTPUT && !optarg && optind < argc)
				after_bare_switch = argv[optind];
			break;
		default:
			bad_option(cmd_name, longopts, arg, c);
			goto out;
		}
	}
	o.events = events;
	bad = events ? check_events(&o) : 0;
	if (bad) {
		rc = bad;
		goto out;
	}
	if (optind < argc && mode == MODE_DAEMON && argv[optind] == after_bare_switch) {
		fprintf(stderr, "precord daemon: unexpected argument '%s'; a bare --switch-output "
				"means signal: give a SPEC as --switch-output=%s\n", argv[optind],
			argv[optind]);
		goto out;
	}
	if (optind < argc && mode == MODE_DAEMON) {
		fprintf(stderr, "precord daemon: unexpected argument '%s'; the daemon records no "
				"command (give -p PID to follow processes)\n", argv[optind]);
		goto out;
	}
	if (optind < argc)
		o.cmd = argv + optind;
	if (!o.cmd && !o.nr_pids && !o.all_cpus && !o.cpu_list) {
		fprintf(stderr, "precord: nothing to record; give a command, -p PID or -a\n");
		goto out;
	}
	if (o.all_cpus && o.nr_pids) {
		service_log(LOG_WARNING, "warning: -a and -%c given; recording only the %s given "
					 "with -%c", o.threads_only ? 't' : 'p',
			    o.threads_only ? "threads" : "processes", o.threads_only ? 't' : 'p');
		o.all_cpus = false;
	}
	if (o.period && !freq_given)
		o.freq = 0;
	if (o.freq && o.period) {
		fprintf(stderr, "precord: give either -F or -c, not both\n");
		goto out;
	}
	/* as in perf, -C is system-wide on those CPUs; a command only times it, as with -a */
	if (o.cpu_list && !o.nr_pids)
		o.all_cpus = true;
	cap_frequency(&o);
	/* the daemon's argv starts at "daemon", one past main's: the CMDLINE feature keeps it */
	o.argc_all = mode == MODE_DAEMON ? argc + 1 : argc;
	o.argv_all = mode == MODE_DAEMON ? argv - 1 : argv;
	prec_log_set_fn(log_to_stderr, &o);
	rc = mode == MODE_DAEMON ? daemon_run(&o) : record_run(&o);
out:
	free(o.pids);
	free(events);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "daemon"))
		return run(argc - 1, argv + 1, MODE_DAEMON);
	if (argc > 1 && !strcmp(argv[1], "ctl"))
		return ctl_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "convert"))
		return convert_main(argc - 1, argv + 1);
	return run(argc, argv, MODE_RECORD);
}
