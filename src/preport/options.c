/* SPDX-License-Identifier: MIT */
/*
 * preport's command line: the option table, --help, and the parsers of option values (comma
 * lists, id and CPU lists, times, --call-graph specs, -F fields, --since/--until).  Each bad
 * value is reported here in one line that names the option and says what to give; after
 * preport_opts__parse() the options are complete and checked, defaults filled in.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "prec_parse.h"
#include "prec_symbol.h"
#include "preport.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: preport [options]\n"
		"  -i, --input FILE|DIR     input file (default: precord.data, then perf.data; - for\n"
		"                           stdin), or a directory of segments by precord daemon\n"
		"      --stdio              text output (the only one; accepted for perf's\n"
		"                           habits, as are --tui and --gtk, with a warning)\n"
		"  -s, --sort KEYS          comm,pid,tid,dso,sym,srcline,cpu (default comm,dso,sym)\n"
		"      --children           add callees' samples to each function (default with call chains)\n"
		"      --no-children        self samples only\n"
		"  -n, --show-nr-samples    a column with the number of samples\n"
		"  -F, --fields LIST        these columns, in this order: overhead,\n"
		"                           overhead_children, sample, period, sort keys\n"
		"      --show-total-period  a column with the entry's period (event count)\n"
		"      --percent-limit PCT  hide entries below PCT percent\n"
		"  -g, --call-graph[=SPEC]  MODE,THRESHOLD,ORDER,VALUE: graph|fractal|flat|\n"
		"                           folded|none, percent (default 0.5), caller|callee,\n"
		"                           percent|period|count; default graph with call\n"
		"                           chains; bare -g: graph,0.5,caller\n"
		"      --no-call-graph      no call graphs (as -g none)\n"
		"  -G, --inverted           call graphs from the outermost caller down\n"
		"      --folded             one line per stack: comm;outer;...;leaf COUNT (flame graphs)\n"
		"      --flamegraph FILE    write an interactive flame graph to FILE (SVG; - for\n"
		"                           stdout), open it in a browser; with -G, an icicle of callers\n"
		"  -t, --field-separator S  separate fields with S, no padding (for scripts)\n"
		"      --comms LIST         only these commands\n"
		"      --pid LIST           only these process ids\n"
		"      --tid LIST           only these thread ids\n"
		"      --cpu LIST           only these CPUs (e.g. 0-3,6)\n"
		"      --time START,END     only samples in this time window (seconds; -D shows ns)\n"
		"      --since TIME         only samples from this wall-clock time on (local time:\n"
		"                           '2026-11-26 03:10:05', '03:10', 'yesterday', '-2h')\n"
		"      --until TIME         only samples up to this wall-clock time (same forms)\n"
		"      --dsos LIST          only entries in these shared objects\n"
		"  -S, --symbols LIST       only these functions\n"
		"  -U, --hide-unresolved    leave out samples whose function is not known\n"
		"  -T, --threads            per-thread counts (perf record -s) after the report\n"
		"      --inline             show inlined functions as frames of their own\n"
		"      --max-stack N        use at most N frames of each call chain (default: the\n"
		"                           kernel's perf_event_max_stack, as perf)\n"
		"      --no-demangle        show C++ and Rust function names as mangled\n"
		"      --symfs DIR          look for binaries only under DIR (the recorded root)\n"
		"      --kallsyms FILE      kernel symbols of the recorded machine\n"
		"                           (-k/--vmlinux is not supported: use this)\n"
		"      --no-symbol-cache    neither use nor write the kernel symbol cache\n"
		"                           (default: $PRECORD_CACHE_DIR, else ~/.cache/precord)\n"
		"  -D, --dump-raw-trace     print every record, then totals per record type\n"
		"      --header             print the recording's header features, then the\n"
		"                           report; for a directory, first one line per segment\n"
		"      --header-only        print only the header features\n"
		"  -v, --verbose            more messages\n"
		"  -q, --quiet              fewer messages\n"
		"  -h, --help               this help\n"
		"      --version            print the version\n");
}

/* Split a comma list into a NULL-terminated array of pieces of one copy (free_list()). */
static const char **split_list(const char *s)
{
	size_t n = 3, i = 1;
	const char *p;
	char *copy, *tok, *save = NULL;
	const char **v;

	for (p = s; *p; p++)
		n += *p == ',';
	v = calloc(n, sizeof(*v));
	copy = strdup(s);
	if (!v || !copy) {
		free(v);
		free(copy);
		return NULL;
	}
	v[0] = copy; /* the owner, hidden before the list */
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		v[i++] = tok;
	return v + 1;
}

static void free_list(const char *const *v)
{
	if (!v)
		return;
	free((void *)v[-1]);
	free((void *)(v - 1));
}

/* An option given again replaces its list.  -ENOMEM leaves *list NULL. */
static int set_list(const char *const **list, const char *s)
{
	free_list(*list);
	*list = (const char *const *)split_list(s);
	return *list ? 0 : -ENOMEM;
}

static int parse_u32_list(const char *s, uint32_t **ret, size_t *ret_nr)
{
	size_t n = 1, i = 0;
	const char *p = s;
	uint32_t *v;

	for (; *p; p++)
		n += *p == ',';
	v = calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (p = s; *p;) {
		char *end;
		unsigned long x;

		errno = 0;
		x = strtoul(p, &end, 10);
		if (errno || end == p || x > UINT32_MAX || (*end && *end != ',')) {
			free(v);
			return -EINVAL;
		}
		v[i++] = (uint32_t)x;
		p = *end ? end + 1 : end;
	}
	*ret = v;
	*ret_nr = i;
	return 0;
}

#define MAX_CPU_FILTER 4096

static int parse_cpu_list(const char *s, bool **ret, uint32_t *ret_nr)
{
	bool *v = calloc(MAX_CPU_FILTER, sizeof(*v));
	const char *p = s;

	if (!v)
		return -ENOMEM;
	while (*p) {
		char *end;
		unsigned long a, b;

		a = strtoul(p, &end, 10);
		if (end == p || a >= MAX_CPU_FILTER)
			goto bad;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtoul(p, &end, 10);
			if (end == p || b >= MAX_CPU_FILTER || b < a)
				goto bad;
		}
		if (*end && *end != ',')
			goto bad;
		for (; a <= b; a++)
			v[a] = true;
		p = *end ? end + 1 : end;
	}
	*ret = v;
	*ret_nr = MAX_CPU_FILTER;
	return 0;
bad:
	free(v);
	return -EINVAL;
}

/* "12345.678901" seconds -> ns; empty -> 0. */
static int parse_time_ns(const char *s, size_t len, uint64_t *ret)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000ULL;
	size_t i = 0;

	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (sec > UINT64_MAX / 10 / 1000000000ULL)
			return -EINVAL;
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < len && s[i] == '.')
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(s[i] - '0') * scale;
			}
	if (i != len)
		return -EINVAL;
	*ret = sec * 1000000000ULL + frac;
	return 0;
}

#define RO_FIELD(f) offsetof(struct preport_report_opts, f)
#define NO_FIELD SIZE_MAX

/* The words of a --call-graph spec and the option each sets; a word of perf's that preport
 * does not do has no field and says why. */
static const struct graph_word {
	const char *word;
	size_t field; /* an int of struct preport_report_opts, or NO_FIELD */
	int value;
	const char *refused; /* why it is not supported; NULL: accepted */
} graph_words[] = {
	{ "graph", RO_FIELD(graph), PREC_GRAPH_GRAPH, NULL },
	{ "flat", RO_FIELD(graph), PREC_GRAPH_FLAT, NULL },
	{ "folded", RO_FIELD(graph), PREC_GRAPH_FOLDED, NULL },
	{ "none", RO_FIELD(graph), PREC_GRAPH_NONE, NULL },
	{ "caller", RO_FIELD(order), 1, NULL },
	{ "callee", RO_FIELD(order), 0, NULL },
	{ "function", NO_FIELD, 0, NULL }, /* perf's default key: frames by function */
	{ "percent", RO_FIELD(graph_value), PREC_GRAPH_PERCENT, NULL },
	{ "period", RO_FIELD(graph_value), PREC_GRAPH_PERIOD, NULL },
	{ "count", RO_FIELD(graph_value), PREC_GRAPH_COUNT, NULL },
	{ "fractal", RO_FIELD(graph), PREC_GRAPH_FRACTAL, NULL },
	{ "address", NO_FIELD, 0,
	  "the address key (a frame per address and source line) is not supported; use function" },
};

/*
 * --call-graph MODE,THRESHOLD,ORDER,KEY,VALUE (any order, any subset, like perf).  A part
 * perf knows that preport does not do is refused, with *ret_why saying which.
 */
static int parse_graph_spec(const char *spec, struct preport_report_opts *o, const char **ret_why)
{
	const char *p = spec;
	bool threshold = false;
	size_t i;

	*ret_why = "use MODE,THRESHOLD,ORDER,VALUE, e.g. graph,0.5,caller,percent";
	while (*p) {
		size_t len = strcspn(p, ",");
		char tok[32];

		if (len >= sizeof(tok))
			return -EINVAL;
		memcpy(tok, p, len);
		tok[len] = 0;
		for (i = 0; i < sizeof(graph_words) / sizeof(graph_words[0]); i++)
			if (!strcmp(tok, graph_words[i].word))
				break;
		if (i < sizeof(graph_words) / sizeof(graph_words[0])) {
			const struct graph_word *w = &graph_words[i];

			if (w->refused) {
				*ret_why = w->refused;
				return -EINVAL;
			}
			if (w->field != NO_FIELD)
				*(int *)((char *)o + w->field) = w->value;
		} else if (tok[0] >= '0' && tok[0] <= '9') {
			char *end;
			double t = strtod(tok, &end);

			if (threshold) {
				*ret_why = "a print limit (a second number) is not supported; give "
					   "the threshold only";
				return -EINVAL;
			}
			if (*end || t < 0 || t > 100)
				return -EINVAL;
			o->graph_threshold = t;
			threshold = true;
		} else {
			return -EINVAL;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/*
 * -F/--fields LIST: perf's output fields overhead, overhead_children, sample, period and the
 * sort keys, as columns in this order.  The key fields are also the sort keys, after those of
 * --sort if it is given (keys, nr_keys: --sort's or the default; sort_given: --sort was given);
 * without any, all samples make one entry, as in perf.
 * Returns 0, or -EINVAL with the bad field in *ret_bad / *ret_bad_len.
 */
static int parse_fields(const char *list, struct preport_report_opts *o, bool sort_given,
			const char **ret_bad, size_t *ret_bad_len)
{
	static const struct {
		const char *name;
		enum prec_view_col col;
	} cols[] = {
		{ "overhead", PREC_COL_SELF },
		{ "overhead_children", PREC_COL_CHILDREN },
		{ "sample", PREC_COL_SAMPLES },
		{ "period", PREC_COL_PERIOD },
	};
	const char *p = list;
	size_t nf = 0, nk = sort_given ? o->nr_keys : 0, i;

	while (*p) {
		size_t len = strcspn(p, ",");
		struct prec_view_field f = { .col = PREC_COL_KEY };
		char tok[32];
		bool known = false;

		*ret_bad = p;
		*ret_bad_len = len;
		if (!len || len >= sizeof(tok) || nf == PREC_VIEW_MAX_FIELDS)
			return -EINVAL;
		memcpy(tok, p, len);
		tok[len] = 0;
		for (i = 0; i < sizeof(cols) / sizeof(cols[0]) && !known; i++)
			if (!strcmp(tok, cols[i].name)) {
				f.col = cols[i].col;
				known = true;
			}
		if (!known) {
			enum prec_sort_key k[PREC_HIST_MAX_KEYS];
			size_t n, j;
			const char *b;

			if (prec_sort_keys__parse(tok, k, &n, &b, &i) || n != 1)
				return -EINVAL;
			f.key = k[0];
			for (j = 0; j < nk && o->keys[j] != f.key; j++)
				;
			if (j == nk) {
				if (nk == PREC_HIST_MAX_KEYS)
					return -EINVAL;
				o->keys[nk++] = f.key;
			}
		}
		o->fields[nf++] = f;
		p += len;
		if (*p == ',')
			p++;
	}
	if (!nf) {
		*ret_bad = list;
		*ret_bad_len = strlen(list);
		return -EINVAL;
	}
	o->nr_fields = nf;
	o->nr_keys = nk;
	o->fields_sorted = sort_given;
	return 0;
}

static bool looks_like_graph_spec(const char *s)
{
	size_t i;

	if (s[0] >= '0' && s[0] <= '9')
		return true;
	for (i = 0; i < sizeof(graph_words) / sizeof(graph_words[0]); i++)
		if (!strncmp(s, graph_words[i].word, strlen(graph_words[i].word)))
			return true;
	return false;
}

/* "comm, pid, ..." */
static void print_sort_keys(FILE *f)
{
	int k;

	for (k = 0; k < PREC_SORT__MAX; k++)
		fprintf(f, "%s%s", k ? ", " : "", prec_sort_key__name((enum prec_sort_key)k));
}

static int bad_value(const char *opt, const char *val, const char *what)
{
	fprintf(stderr, "preport: bad value '%s' for %s: %s\n", val, opt, what);
	return 2;
}

/* perf's default --max-stack: the kernel's limit on recorded call chains. */
static uint32_t default_max_stack(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "r");
	unsigned int v = 0;

	if (f) {
		if (fscanf(f, "%u", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v ? v : 127;
}

/*
 * --since / --until (either may be missing) into *ret, as wall-clock ns; a bare time of day
 * in --until is the first such moment after --since.  Prints what is wrong; -EINVAL.
 */
static int parse_range(const char *since, const char *until, struct preport_range *ret)
{
	static const char forms[] = "give a time like '2026-11-26 03:10:05', '03:10', "
				    "'yesterday 23:00', '-2h' or '@1795000000'";
	struct timespec ts;
	uint64_t now;
	int err;

	if (!since && !until)
		return 0;
	clock_gettime(CLOCK_REALTIME, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	ret->set = true;
	if (since) {
		err = prec_parse_time(since, now, &ret->since_ns);
		if (err) {
			bad_value("--since", since, err == -ERANGE ? "out of range" : forms);
			return -EINVAL;
		}
	}
	if (until) {
		err = since ? prec_parse_time_after(until, now, ret->since_ns, &ret->until_ns)
			    : prec_parse_time(until, now, &ret->until_ns);
		if (err) {
			bad_value("--until", until, err == -ERANGE ? "out of range" : forms);
			return -EINVAL;
		}
		if (ret->until_ns < ret->since_ns) {
			fprintf(stderr, "preport: --until '%s' is before --since '%s'; give the "
					"earlier time to --since\n", until, since);
			return -EINVAL;
		}
	}
	return 0;
}


static bool nomem(int *ret_status)
{
	fprintf(stderr, "preport: out of memory\n");
	*ret_status = 1;
	return false;
}

/* --pid, --tid: a list given again replaces the former one. */
static int set_ids(const uint32_t **ids, size_t *nr, const char *s)
{
	uint32_t *v;
	int err;

	free((void *)*ids);
	*ids = NULL;
	err = parse_u32_list(s, &v, nr);
	if (!err)
		*ids = v;
	return err;
}

static int set_cpus(struct prec_report_opts *so, const char *s)
{
	bool *v;
	int err;

	free((void *)so->cpus);
	so->cpus = NULL;
	err = parse_cpu_list(s, &v, &so->nr_cpu_bits);
	if (!err)
		so->cpus = v;
	return err;
}

/* --kallsyms FILE is checked before anything is read, as perf refuses an unreadable one. */
static bool kallsyms_usable(const char *path)
{
	static const char fix[] = "give a copy of the recorded machine's /proc/kallsyms, made "
				  "as root";
	int err = prec_kallsyms_check(path);

	if (err == -EBADMSG)
		fprintf(stderr, "preport: --kallsyms '%s' is not a kallsyms file (its first line "
				"is not 'ADDRESS TYPE NAME'); %s\n", path, fix);
	else if (err == -ENODATA)
		fprintf(stderr, "preport: --kallsyms '%s' is empty; %s\n", path, fix);
	else if (err == -EINVAL)
		fprintf(stderr, "preport: --kallsyms '%s' is not a regular file; %s\n", path, fix);
	else if (err)
		fprintf(stderr, "preport: --kallsyms '%s' cannot be read: %s; %s\n", path,
			strerror(-err), fix);
	return !err;
}

bool preport_opts__parse(struct preport_opts *o, int argc, char **argv, int *ret_status)
{
	enum {
		OPT_HEADER = 256,
		OPT_HEADER_ONLY,
		OPT_VERSION,
		OPT_STDIO,
		OPT_CHILDREN,
		OPT_NO_CHILDREN,
		OPT_PERCENT_LIMIT,
		OPT_FOLDED,
		OPT_FLAMEGRAPH,
		OPT_COMMS,
		OPT_PID,
		OPT_TID,
		OPT_CPU,
		OPT_TIME,
		OPT_DSOS,
		OPT_INLINE,
		OPT_NO_INLINE,
		OPT_DEMANGLE,
		OPT_MAX_STACK,
		OPT_NO_DEMANGLE,
		OPT_SYMFS,
		OPT_KALLSYMS,
		OPT_NO_SYMBOL_CACHE,
		OPT_SINCE,
		OPT_UNTIL,
		OPT_SHOW_TOTAL_PERIOD,
		OPT_NO_CALL_GRAPH,
		OPT_TUI,
	};
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "dump-raw-trace", no_argument, NULL, 'D' },
		{ "header", no_argument, NULL, OPT_HEADER },
		{ "header-only", no_argument, NULL, OPT_HEADER_ONLY },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "sort", required_argument, NULL, 's' },
		{ "children", no_argument, NULL, OPT_CHILDREN },
		{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
		{ "show-nr-samples", no_argument, NULL, 'n' },
		{ "percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT },
		{ "call-graph", optional_argument, NULL, 'g' },
		{ "inverted", no_argument, NULL, 'G' },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "flamegraph", required_argument, NULL, OPT_FLAMEGRAPH },
		{ "field-separator", required_argument, NULL, 't' },
		{ "comms", required_argument, NULL, OPT_COMMS },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "since", required_argument, NULL, OPT_SINCE },
		{ "until", required_argument, NULL, OPT_UNTIL },
		{ "dsos", required_argument, NULL, OPT_DSOS },
		{ "symbols", required_argument, NULL, 'S' },
		{ "fields", required_argument, NULL, 'F' },
		{ "hide-unresolved", no_argument, NULL, 'U' },
		{ "threads", no_argument, NULL, 'T' },
		{ "show-total-period", no_argument, NULL, OPT_SHOW_TOTAL_PERIOD },
		{ "no-call-graph", no_argument, NULL, OPT_NO_CALL_GRAPH },
		{ "tui", no_argument, NULL, OPT_TUI },
		{ "gtk", no_argument, NULL, OPT_TUI },
		{ "vmlinux", required_argument, NULL, 'k' },
		{ "inline", no_argument, NULL, OPT_INLINE },
		{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
		{ "demangle", no_argument, NULL, OPT_DEMANGLE },
		{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "symfs", required_argument, NULL, OPT_SYMFS },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ "no-symbol-cache", no_argument, NULL, OPT_NO_SYMBOL_CACHE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	struct preport_report_opts *ro = &o->report;
	const char *bad, *fields_arg = NULL, *since = NULL, *until = NULL;
	bool sort_given = false;
	size_t bad_len;
	int c;

	memset(o, 0, sizeof(*o));
	*ret_status = 2;
	ro->children = -1;
	ro->graph = -1;
	ro->order = -1;
	ro->graph_threshold = 0.5;
	ro->session.max_stack = UINT32_MAX; /* not given: default_max_stack() after the options */
	ro->keys[0] = PREC_SORT_COMM;
	ro->keys[1] = PREC_SORT_DSO;
	ro->keys[2] = PREC_SORT_SYM;
	ro->nr_keys = 3;
	opterr = 0;
	/* '+': no permutation, so "-g caller" can take its value from the next word */
	while ((c = getopt_long(argc, argv, "+:i:Dvqhs:ng::Gt:S:k:F:UT", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->input = optarg;
			break;
		case 'D':
			o->dump_raw = true;
			break;
		case OPT_HEADER:
			o->header = true;
			break;
		case OPT_HEADER_ONLY:
			o->header_only = true;
			break;
		case OPT_STDIO:
			break;
		case 'F':
			fields_arg = optarg;
			break;
		case 's':
			sort_given = true;
			if (prec_sort_keys__parse(optarg, ro->keys, &ro->nr_keys, &bad, &bad_len)) {
				if (!bad_len)
					fprintf(stderr, "preport: --sort '%s' has no key; the keys "
							"are ", optarg);
				else
					fprintf(stderr, "preport: unknown sort key '%.*s'; the keys "
							"are ", (int)bad_len, bad);
				print_sort_keys(stderr);
				fputs(bad_len ? " (and overhead, always shown)\n" : "\n", stderr);
				return false;
			}
			break;
		case OPT_CHILDREN:
			ro->children = 1;
			break;
		case OPT_NO_CHILDREN:
			ro->children = 0;
			break;
		case 'n':
			ro->show_nr_samples = true;
			break;
		case OPT_MAX_STACK: {
			char *end;
			unsigned long v;

			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || v >= UINT32_MAX) {
				bad_value("--max-stack", optarg, "give a number of frames");
				return false;
			}
			ro->session.max_stack = (uint32_t)v;
			break;
		}
		case OPT_PERCENT_LIMIT: {
			char *end;

			ro->percent_limit = strtod(optarg, &end);
			if (end == optarg || (*end && strcmp(end, "%")) || ro->percent_limit < 0) {
				bad_value("--percent-limit", optarg, "give a percentage");
				return false;
			}
			/* perf's --percent-limit is the call graphs' threshold too (a later -g
			 * THRESHOLD overrides it, and it a former one) */
			ro->graph_threshold = ro->percent_limit;
			break;
		}
		case 'g': {
			const char *spec = optarg;

			if (!spec && optind < argc && looks_like_graph_spec(argv[optind]))
				spec = argv[optind++];
			if (ro->graph < 0)
				ro->graph = PREC_GRAPH_GRAPH;
			if (!spec) /* perf's default for a bare -g, callers first also without
				    * children */
				spec = "graph,0.5,caller";
			if (parse_graph_spec(spec, ro, &bad)) {
				bad_value("--call-graph", spec, bad);
				return false;
			}
			if (ro->graph == PREC_GRAPH_FRACTAL &&
			    ro->graph_value != PREC_GRAPH_PERCENT) {
				bad_value("--call-graph", spec,
					       "fractal shows percentages only");
				return false;
			}
			break;
		}
		case 'G':
			ro->order = 1;
			ro->inverted = true;
			break;
		case OPT_NO_CALL_GRAPH:
			ro->graph = PREC_GRAPH_NONE;
			break;
		case 'U':
			ro->session.hide_unresolved = true;
			break;
		case 'T':
			ro->session.thread_counts = true;
			break;
		case OPT_SHOW_TOTAL_PERIOD:
			ro->show_total_period = true;
			break;
		case OPT_TUI:
			fprintf(stderr, "preport: warning: %s: only text output exists; "
					"printing it (as --stdio)\n", argv[optind - 1]);
			break;
		case 'k':
			fprintf(stderr, "preport: -k/--vmlinux is not supported: preport reads "
					"kernel symbols from a kallsyms file; give --kallsyms FILE "
					"(the recorded machine's /proc/kallsyms)\n");
			return false;
		case OPT_FOLDED:
			ro->folded = true;
			break;
		case OPT_FLAMEGRAPH:
			ro->flamegraph = optarg;
			break;
		case 't':
			ro->field_sep = optarg;
			break;
		case OPT_COMMS:
			if (set_list(&ro->session.comms, optarg))
				return nomem(ret_status);
			break;
		case OPT_DSOS:
			if (set_list(&ro->dsos, optarg))
				return nomem(ret_status);
			break;
		case 'S':
			if (set_list(&ro->syms, optarg))
				return nomem(ret_status);
			break;
		case OPT_PID:
			if (set_ids(&ro->session.pids, &ro->session.nr_pids, optarg)) {
				bad_value("--pid", optarg, "give process ids like 12,34");
				return false;
			}
			break;
		case OPT_TID:
			if (set_ids(&ro->session.tids, &ro->session.nr_tids, optarg)) {
				bad_value("--tid", optarg, "give thread ids like 12,34");
				return false;
			}
			break;
		case OPT_CPU:
			if (set_cpus(&ro->session, optarg)) {
				bad_value("--cpu", optarg, "give CPUs like 0-3,6");
				return false;
			}
			break;
		case OPT_TIME: {
			const char *comma = strchr(optarg, ',');
			uint64_t *lo = &ro->session.time_start, *hi = &ro->session.time_end;

			if (!comma || parse_time_ns(optarg, (size_t)(comma - optarg), lo) ||
			    parse_time_ns(comma + 1, strlen(comma + 1), hi) || (*hi && *hi < *lo)) {
				bad_value("--time", optarg,
					       "give START,END in seconds, e.g. 1234.5,1240");
				return false;
			}
			ro->session.time_set = true;
			break;
		}
		case OPT_SINCE:
			since = optarg;
			break;
		case OPT_UNTIL:
			until = optarg;
			break;
		case OPT_INLINE:
			ro->inline_frames = true;
			break;
		case OPT_NO_INLINE:
			ro->inline_frames = false;
			break;
		case OPT_DEMANGLE:
			ro->session.no_demangle = false;
			break;
		case OPT_NO_DEMANGLE:
			ro->session.no_demangle = true;
			break;
		case OPT_SYMFS:
			ro->session.symfs = optarg;
			break;
		case OPT_KALLSYMS:
			ro->session.kallsyms = optarg;
			break;
		case OPT_NO_SYMBOL_CACHE:
			o->no_symbol_cache = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'q':
			ro->quiet = true;
			break;
		case 'h':
			usage(stdout);
			*ret_status = 0;
			return false;
		case OPT_VERSION:
			printf("preport %s\n", PACKAGE_VERSION);
			*ret_status = 0;
			return false;
		case ':':
			fprintf(stderr, "preport: option '%s' needs a value; run 'preport --help' for "
					"usage\n", argv[optind - 1]);
			return false;
		default:
			fprintf(stderr, "preport: unknown option '%s'; run 'preport --help' for the "
					"list\n", argv[optind - 1]);
			return false;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "preport: unexpected argument '%s'; run 'preport --help' for usage\n",
			argv[optind]);
		return false;
	}
	if (parse_range(since, until, &o->range))
		return false;
	if (ro->flamegraph && (ro->folded || !*ro->flamegraph)) {
		fprintf(stderr, "preport: %s; give one of them\n",
			ro->folded ? "--flamegraph and --folded are two outputs"
				   : "--flamegraph needs a file name (- for stdout)");
		return false;
	}
	if (fields_arg && parse_fields(fields_arg, ro, sort_given, &bad, &bad_len)) {
		fprintf(stderr, "preport: bad field '%.*s' in -F '%s': the fields are "
				"overhead, overhead_children, sample, period and the sort keys "
				"comm, pid, tid, dso, sym, srcline, cpu\n",
			(int)bad_len, bad, fields_arg);
		return false;
	}
	if (ro->session.max_stack == UINT32_MAX)
		ro->session.max_stack = default_max_stack();
	return !ro->session.kallsyms || kallsyms_usable(ro->session.kallsyms);
}

void preport_opts__free(struct preport_opts *o)
{
	free_list(o->report.session.comms);
	free_list(o->report.dsos);
	free_list(o->report.syms);
	free((void *)o->report.session.pids);
	free((void *)o->report.session.tids);
	free((void *)o->report.session.cpus);
}
