/* SPDX-License-Identifier: MIT */
/*
 * precord: the command line.  Option names and meanings follow perf record's, so habits
 * carry over; everything is validated here before any event is opened.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "prec_log.h"
#include "precord.h"

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
		"  -C, --cpu LIST          only these CPUs (e.g. 0-3,5)\n"
		"      --duration SECONDS  stop after this long\n"
		"Events:\n"
		"  -e, --event LIST        events (default cycles; cpu-clock when there is no PMU):\n"
		"                          cycles instructions cache-misses branch-misses cpu-clock\n"
		"                          task-clock page-faults context-switches rNNNN pmu/config=N/\n"
		"  -F, --freq HZ           sample at this frequency (default 4000)\n"
		"  -c, --count PERIOD      sample every PERIOD events\n"
		"  -g                      record call chains (frame pointers)\n"
		"      --call-graph MODE   fp, or dwarf[,STACK_BYTES] (default 8192)\n"
		"Output:\n"
		"  -o, --output FILE       output file (default precord.data; - for stdout)\n"
		"  -z, --compression-level N  zstd level 1-19 (default 1)\n"
		"      --no-compress       write uncompressed records\n"
		"  -m, --mmap-pages N      ring buffer pages per CPU, a power of two (default 128)\n"
		"      --flush-interval MS write to the file at least this often (default 1000)\n"
		"  -q, --quiet             no summary\n"
		"  -v, --verbose           more messages\n"
		"  -h, --help              this help\n"
		"      --version           print the version\n");
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

static void log_to_stderr(enum prec_log_level level, const char *msg, void *ctx)
{
	bool verbose = *(bool *)ctx;

	if (level >= PREC_LOG_INFO && !verbose)
		return;
	fprintf(stderr, "precord: %s\n", msg);
}

int main(int argc, char **argv)
{
	enum { OPT_CALL_GRAPH = 256, OPT_NO_COMPRESS, OPT_FLUSH, OPT_DURATION, OPT_VERSION };
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
		{ "compression-level", required_argument, NULL, 'z' },
		{ "no-compress", no_argument, NULL, OPT_NO_COMPRESS },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "flush-interval", required_argument, NULL, OPT_FLUSH },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	struct rec_opts o = {
		.output = "precord.data",
		.zlevel = 1,
		.mmap_pages = 128,
		.flush_ms = 1000,
		.stack_size = 8192,
	};
	uint64_t v;
	char *end;
	size_t nev = 0;
	char *events = NULL;
	int c, rc;

	if (argc > 1 && !strcmp(argv[1], "convert"))
		return convert_main(argc - 1, argv + 1);
	while ((c = getopt_long(argc, argv, "+p:t:aC:e:F:c:go:z:m:qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
		case 't':
			if (parse_pids(optarg, &o)) {
				fprintf(stderr, "precord: bad %s list '%s'; give numbers like 123,456\n",
					c == 'p' ? "PID" : "TID", optarg);
				return 2;
			}
			o.threads_only = c == 't';
			break;
		case 'a':
			o.all_cpus = true;
			break;
		case 'C':
			o.cpu_list = optarg;
			break;
		case 'e': {
			size_t n = strlen(optarg);
			char *ne = realloc(events, nev + n + 2);

			if (!ne)
				return 1;
			events = ne;
			if (nev)
				events[nev++] = ',';
			memcpy(events + nev, optarg, n + 1);
			nev += n;
			break;
		}
		case 'F':
			if (parse_u64(optarg, &o.freq) || !o.freq) {
				fprintf(stderr, "precord: bad frequency '%s'; give a number of Hz like "
						"999\n", optarg);
				return 2;
			}
			break;
		case 'c':
			if (parse_u64(optarg, &o.period) || !o.period) {
				fprintf(stderr, "precord: bad period '%s'; give a positive number\n",
					optarg);
				return 2;
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
						return 2;
					}
					o.stack_size = (uint32_t)((v + 7) & ~7ULL);
				}
			} else {
				fprintf(stderr, "precord: unknown call graph mode '%s'; use fp or "
						"dwarf[,SIZE]\n", optarg);
				return 2;
			}
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'z':
			if (parse_u64(optarg, &v) || v < 1 || v > 19) {
				fprintf(stderr, "precord: bad compression level '%s'; give 1 to 19\n",
					optarg);
				return 2;
			}
			o.zlevel = (int)v;
			break;
		case OPT_NO_COMPRESS:
			o.zlevel = 0;
			break;
		case 'm':
			if (parse_u64(optarg, &v) || !v || (v & (v - 1)) || v > (1 << 20)) {
				fprintf(stderr, "precord: bad mmap pages '%s'; give a power of two "
						"like 128\n", optarg);
				return 2;
			}
			o.mmap_pages = (size_t)v;
			break;
		case OPT_FLUSH:
			if (parse_u64(optarg, &v) || !v || v > 3600000) {
				fprintf(stderr, "precord: bad flush interval '%s'; give milliseconds\n",
					optarg);
				return 2;
			}
			o.flush_ms = (unsigned int)v;
			break;
		case OPT_DURATION:
			o.duration = strtod(optarg, &end);
			if (*end || !(o.duration > 0)) {
				fprintf(stderr, "precord: bad duration '%s'; give seconds\n", optarg);
				return 2;
			}
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'v':
			o.verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf("precord %s\n", PACKAGE_VERSION);
			return 0;
		default:
			fprintf(stderr, "precord: unknown option; run 'precord --help' for the list\n");
			return 2;
		}
	}
	o.events = events;
	if (optind < argc)
		o.cmd = argv + optind;
	if (!o.cmd && !o.nr_pids && !o.all_cpus && !o.cpu_list) {
		fprintf(stderr, "precord: nothing to record; give a command, -p PID or -a\n");
		return 2;
	}
	if (o.cmd && o.nr_pids) {
		fprintf(stderr, "precord: give either a command or -p/-t, not both\n");
		return 2;
	}
	if (o.freq && o.period) {
		fprintf(stderr, "precord: give either -F or -c, not both\n");
		return 2;
	}
	if (o.cpu_list && !o.nr_pids && !o.cmd)
		o.all_cpus = true;
	o.argc_all = argc;
	o.argv_all = argv;
	prec_log_set_fn(log_to_stderr, &o.verbose);
	rc = record_run(&o);
	free(o.pids);
	free(events);
	return rc;
}
