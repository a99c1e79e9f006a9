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
#include "prec_buf.h"
#include "prec_parse.h"
#include "prec_symbol.h"
#include "preport.h"

static void free_list(const char *const *v)
{
	if (!v)
		return;
	free((void *)v[-1]);
	free((void *)(v - 1));
}

/*
 * A comma list into a NULL-terminated array of the pieces of one copy, which hides before
 * the array (free_list()).  An option given again replaces its list.  -ENOMEM leaves *list
 * NULL.
 */
static int set_list(const char *const **list, const char *s)
{
	size_t n = 3, i = 1;
	const char *p;
	char *copy, *tok, *save = NULL;
	const char **v;

	free_list(*list);
	*list = NULL;
	for (p = s; *p; p++)
		n += *p == ',';
	v = calloc(n, sizeof(*v));
	copy = strdup(s);
	if (!v || !copy) {
		free(v);
		free(copy);
		return -ENOMEM;
	}
	v[0] = copy;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		v[i++] = tok;
	*list = v + 1;
	return 0;
}

/* --pid, --tid: "12,34" replaces the former list.  -EINVAL or -ENOMEM with *ids NULL. */
static int set_ids(const uint32_t **ids, size_t *ret_nr, const char *s)
{
	size_t n = 1, i = 0;
	const char *p = s;
	uint32_t *v;

	free((void *)*ids);
	*ids = NULL;
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
	*ids = v;
	*ret_nr = i;
	return 0;
}

#define MAX_CPU_FILTER 4096

/* --cpu "0-3,6" replaces the former list: so->cpus[c] is set for each CPU c given. */
static int set_cpus(struct prec_report_opts *so, const char *s)
{
	const char *p = s;
	bool *v;

	free((void *)so->cpus);
	so->cpus = NULL;
	v = calloc(MAX_CPU_FILTER, sizeof(*v));
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
	so->cpus = v;
	so->nr_cpu_bits = MAX_CPU_FILTER;
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
	{ "percent", RO_FIELD(view.graph_value), PREC_GRAPH_PERCENT, NULL },
	{ "period", RO_FIELD(view.graph_value), PREC_GRAPH_PERIOD, NULL },
	{ "count", RO_FIELD(view.graph_value), PREC_GRAPH_COUNT, NULL },
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
			o->view.graph_threshold = t;
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
	size_t nf = 0, nk = sort_given ? o->hist.nr_keys : 0, i;

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
			for (j = 0; j < nk && o->hist.keys[j] != f.key; j++)
				;
			if (j == nk) {
				if (nk == PREC_HIST_MAX_KEYS)
					return -EINVAL;
				o->hist.keys[nk++] = f.key;
			}
		}
		o->view.fields[nf++] = f;
		p += len;
		if (*p == ',')
			p++;
	}
	if (!nf) {
		*ret_bad = list;
		*ret_bad_len = strlen(list);
		return -EINVAL;
	}
	o->view.nr_fields = nf;
	o->hist.nr_keys = nk;
	o->view.fields_sorted = sort_given;
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

/* One line on a bad value; false, to stop with exit status 2. */
static bool bad_value(const char *opt, const char *val, const char *what)
{
	fprintf(stderr, "preport: bad value '%s' for %s: %s\n", val, opt, what);
	return false;
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
 * in --until is the first such moment after --since.  Prints what is wrong and returns false.
 */
static bool parse_range(const char *since, const char *until, struct preport_range *ret)
{
	static const char forms[] = "give a time like '2026-11-26 03:10:05', '03:10', "
				    "'yesterday 23:00', '-2h' or '@1795000000'";
	struct timespec ts;
	uint64_t now;
	int err;

	if (!since && !until)
		return true;
	clock_gettime(CLOCK_REALTIME, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	ret->set = true;
	if (since) {
		err = prec_parse_time(since, now, &ret->since_ns);
		if (err)
			return bad_value("--since", since, err == -ERANGE ? "out of range" : forms);
	}
	if (until) {
		err = since ? prec_parse_time_after(until, now, ret->since_ns, &ret->until_ns)
			    : prec_parse_time(until, now, &ret->until_ns);
		if (err)
			return bad_value("--until", until, err == -ERANGE ? "out of range" : forms);
		if (ret->until_ns < ret->since_ns) {
			fprintf(stderr, "preport: --until '%s' is before --since '%s'; give the "
					"earlier time to --since\n", until, since);
			return false;
		}
	}
	return true;
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

/* What the handlers of options see besides their value. */
struct parse {
	struct preport_opts *o;
	int argc;
	char **argv;
	bool sort_given;
	int status; /* the exit status when a handler returns false: 2 unless it says */
};

static bool opt_sort(struct parse *p, const char *arg)
{
	struct preport_report_opts *ro = &p->o->report;
	const char *bad;
	size_t bad_len;
	int k;

	p->sort_given = true;
	if (!prec_sort_keys__parse(arg, ro->hist.keys, &ro->hist.nr_keys, &bad, &bad_len))
		return true;
	if (!bad_len)
		fprintf(stderr, "preport: --sort '%s' has no key; the keys are ", arg);
	else
		fprintf(stderr, "preport: unknown sort key '%.*s'; the keys are ", (int)bad_len,
			bad);
	for (k = 0; k < PREC_SORT__MAX; k++)
		fprintf(stderr, "%s%s", k ? ", " : "", prec_sort_key__name((enum prec_sort_key)k));
	fputs(bad_len ? " (and overhead, always shown)\n" : "\n", stderr);
	return false;
}

static bool opt_max_stack(struct parse *p, const char *arg)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v >= UINT32_MAX)
		return bad_value("--max-stack", arg, "give a number of frames");
	p->o->report.session.max_stack = (uint32_t)v;
	return true;
}

static bool opt_percent_limit(struct parse *p, const char *arg)
{
	struct preport_report_opts *ro = &p->o->report;
	char *end;

	ro->view.percent_limit = strtod(arg, &end);
	if (end == arg || (*end && strcmp(end, "%")) || ro->view.percent_limit < 0)
		return bad_value("--percent-limit", arg, "give a percentage");
	/* perf's --percent-limit is the call graphs' threshold too (a later -g THRESHOLD
	 * overrides it, and it a former one) */
	ro->view.graph_threshold = ro->view.percent_limit;
	return true;
}

static bool opt_call_graph(struct parse *p, const char *arg)
{
	struct preport_report_opts *ro = &p->o->report;
	const char *spec = arg, *why;

	/* "-g caller": perf takes the value from the next word when it looks like one */
	if (!spec && optind < p->argc && looks_like_graph_spec(p->argv[optind]))
		spec = p->argv[optind++];
	if (ro->graph < 0)
		ro->graph = PREC_GRAPH_GRAPH;
	if (!spec) /* perf's default for a bare -g, callers first also without children */
		spec = "graph,0.5,caller";
	if (parse_graph_spec(spec, ro, &why))
		return bad_value("--call-graph", spec, why);
	if (ro->graph == PREC_GRAPH_FRACTAL && ro->view.graph_value != PREC_GRAPH_PERCENT)
		return bad_value("--call-graph", spec, "fractal shows percentages only");
	return true;
}

static bool opt_tui(struct parse *p, const char *arg)
{
	fprintf(stderr, "preport: warning: %s: only text output exists; printing it (as "
			"--stdio)\n", p->argv[optind - 1]);
	return true;
}

static bool opt_vmlinux(struct parse *p, const char *arg)
{
	fprintf(stderr, "preport: -k/--vmlinux is not supported: preport reads kernel symbols "
			"from a kallsyms file; give --kallsyms FILE (the recorded machine's "
			"/proc/kallsyms)\n");
	return false;
}

static bool opt_pid(struct parse *p, const char *arg)
{
	struct prec_report_opts *so = &p->o->report.session;

	return !set_ids(&so->pids, &so->nr_pids, arg) ||
	       bad_value("--pid", arg, "give process ids like 12,34");
}

static bool opt_tid(struct parse *p, const char *arg)
{
	struct prec_report_opts *so = &p->o->report.session;

	return !set_ids(&so->tids, &so->nr_tids, arg) ||
	       bad_value("--tid", arg, "give thread ids like 12,34");
}

static bool opt_cpu(struct parse *p, const char *arg)
{
	return !set_cpus(&p->o->report.session, arg) ||
	       bad_value("--cpu", arg, "give CPUs like 0-3,6");
}

static bool opt_time(struct parse *p, const char *arg)
{
	struct prec_report_opts *so = &p->o->report.session;
	struct preport_report_opts *ro = &p->o->report;
	const char *comma = strchr(arg, ',');
	uint64_t *lo = &so->time_start, *hi = &so->time_end;

	free(ro->time_pct);
	ro->time_pct = NULL;
	ro->nr_time_pct = 0;
	*lo = *hi = 0;
	so->time_set = true;
	if (strchr(arg, '%')) {
		if (preport_time_slices_parse(arg, &ro->time_pct, &ro->nr_time_pct) == -ENOMEM)
			return bad_value("--time", arg, "out of memory");
		return ro->time_pct ||
		       bad_value("--time", arg, "give START,END in seconds, or percentages of the "
						"recording as perf takes them: 10%/2 (the 2nd "
						"tenth), 0%-10%, or a list: 0%-10%,30%-40%");
	}
	if (!comma || parse_time_ns(arg, (size_t)(comma - arg), lo) ||
	    parse_time_ns(comma + 1, strlen(comma + 1), hi) || (*hi && *hi < *lo))
		return bad_value("--time", arg, "give START,END in seconds, e.g. 1234.5,1240, "
						"or percentages such as 10%/2 or 0%-10%");
	return true;
}

static void usage(void);

static bool opt_inverted(struct parse *p, const char *arg)
{
	p->o->report.order = 1;
	p->o->report.inverted = true; /* --flamegraph: an icicle of callers */
	return true;
}

static bool opt_help(struct parse *p, const char *arg)
{
	usage();
	p->status = 0;
	return false;
}

static bool opt_version(struct parse *p, const char *arg)
{
	printf("preport %s\n", PACKAGE_VERSION);
	p->status = 0;
	return false;
}

enum opt_kind {
	SET_BOOL, /* the bool at .off = .value */
	SET_INT, /* the int at .off = .value */
	SET_STR, /* the const char * at .off = the argument */
	SET_LIST, /* the comma list at .off (set_list()) = the argument's */
	CALL, /* .fn(argument): false stops preport with parse.status */
	IGNORE, /* accepted for perf's habits, nothing to do */
};

#define OPT_FIELD(f) offsetof(struct preport_opts, f)

/*
 * The options, in the order of --help.  .arg is how --help shows the argument: NULL for
 * none, "[=X]" for an optional one; .help NULL keeps the option out of --help.  A help
 * text's further lines are indented under its first.
 */
static const struct opt {
	const char *name;
	char short_name; /* 0: none */
	const char *arg;
	enum opt_kind kind;
	size_t off;
	int value;
	bool (*fn)(struct parse *p, const char *arg);
	const char *help;
} opts[] = {
	{ "input", 'i', " FILE|DIR", SET_STR, OPT_FIELD(input), 0, NULL,
	  "input file (default: precord.data, then perf.data; - for\n"
	  "stdin), or a directory of segments by precord daemon" },
	{ "stdio", 0, NULL, IGNORE, 0, 0, NULL,
	  "text output (the only one; accepted for perf's\n"
	  "habits, as are --tui and --gtk, with a warning)" },
	{ "tui", 0, NULL, CALL, 0, 0, opt_tui, NULL },
	{ "gtk", 0, NULL, CALL, 0, 0, opt_tui, NULL },
	{ "sort", 's', " KEYS", CALL, 0, 0, opt_sort,
	  "comm,pid,tid,dso,sym,srcline,cpu (default comm,dso,sym)" },
	{ "children", 0, NULL, SET_INT, OPT_FIELD(report.children), 1, NULL,
	  "add callees' samples to each function (default with call chains)" },
	{ "no-children", 0, NULL, SET_INT, OPT_FIELD(report.children), 0, NULL,
	  "self samples only" },
	{ "show-nr-samples", 'n', NULL, SET_BOOL, OPT_FIELD(report.view.show_nr_samples), 1, NULL,
	  "a column with the number of samples" },
	{ "fields", 'F', " LIST", SET_STR, OPT_FIELD(fields), 0, NULL,
	  "these columns, in this order: overhead,\n"
	  "overhead_children, sample, period, sort keys" },
	{ "show-total-period", 0, NULL, SET_BOOL, OPT_FIELD(report.view.show_total_period), 1, NULL,
	  "a column with the entry's period (event count)" },
	{ "percent-limit", 0, " PCT", CALL, 0, 0, opt_percent_limit,
	  "hide entries below PCT percent" },
	{ "call-graph", 'g', "[=SPEC]", CALL, 0, 0, opt_call_graph,
	  "MODE,THRESHOLD,ORDER,VALUE: graph|fractal|flat|\n"
	  "folded|none, percent (default 0.5), caller|callee,\n"
	  "percent|period|count; default graph with call\n"
	  "chains; bare -g: graph,0.5,caller" },
	{ "no-call-graph", 0, NULL, SET_INT, OPT_FIELD(report.graph), PREC_GRAPH_NONE, NULL,
	  "no call graphs (as -g none)" },
	{ "inverted", 'G', NULL, CALL, 0, 0, opt_inverted,
	  "call graphs from the outermost caller down; with\n"
	  "--flamegraph, an icicle of callers" },
	{ "folded", 0, NULL, SET_BOOL, OPT_FIELD(report.folded), 1, NULL,
	  "one line per stack: comm;outer;...;leaf COUNT (flame graphs)" },
	{ "flamegraph", 0, " FILE", SET_STR, OPT_FIELD(flame_file.path), 0, NULL,
	  "write an interactive flame graph (SVG) to FILE\n"
	  "instead of a report; open it in a browser" },
	{ "pprof", 0, " FILE", SET_STR, OPT_FIELD(pprof_file.path), 0, NULL,
	  "write a pprof profile (gzip'ed profile.proto) to FILE\n"
	  "instead of a report: go tool pprof -http=: FILE" },
	{ "field-separator", 't', " S", SET_STR, OPT_FIELD(report.view.field_sep), 0, NULL,
	  "separate fields with S, no padding (for scripts)" },
	{ "comms", 0, " LIST", SET_LIST, OPT_FIELD(report.session.comms), 0, NULL,
	  "only these commands" },
	{ "pid", 0, " LIST", CALL, 0, 0, opt_pid, "only these process ids" },
	{ "tid", 0, " LIST", CALL, 0, 0, opt_tid, "only these thread ids" },
	{ "cpu", 0, " LIST", CALL, 0, 0, opt_cpu, "only these CPUs (e.g. 0-3,6)" },
	{ "time", 0, " START,END", CALL, 0, 0, opt_time,
	  "only samples in this time window (seconds; -D shows ns),\n"
	  "or perf's percent slices of the recording: 10%/2, 0%-10%,30%-40%" },
	{ "since", 0, " TIME", SET_STR, OPT_FIELD(since), 0, NULL,
	  "only samples from this wall-clock time on (local time:\n"
	  "'2026-11-26 03:10:05', '03:10', 'yesterday', '-2h')" },
	{ "until", 0, " TIME", SET_STR, OPT_FIELD(until), 0, NULL,
	  "only samples up to this wall-clock time (same forms)" },
	{ "dsos", 0, " LIST", SET_LIST, OPT_FIELD(report.hist.dso_filter), 0, NULL,
	  "only entries in these shared objects" },
	{ "symbols", 'S', " LIST", SET_LIST, OPT_FIELD(report.hist.sym_filter), 0, NULL,
	  "only these functions" },
	{ "hide-unresolved", 'U', NULL, SET_BOOL, OPT_FIELD(report.session.hide_unresolved), 1,
	  NULL, "leave out samples whose function is not known" },
	{ "threads", 'T', NULL, SET_BOOL, OPT_FIELD(report.session.thread_counts), 1, NULL,
	  "per-thread counts (perf record -s) after the report" },
	{ "inline", 0, NULL, SET_INT, OPT_FIELD(report.inline_frames), 1, NULL,
	  "show inlined functions as frames of their own" },
	{ "no-inline", 0, NULL, SET_INT, OPT_FIELD(report.inline_frames), 0, NULL, NULL },
	{ "max-stack", 0, " N", CALL, 0, 0, opt_max_stack,
	  "use at most N frames of each call chain (default: the\n"
	  "kernel's perf_event_max_stack, as perf)" },
	{ "demangle", 0, NULL, SET_BOOL, OPT_FIELD(report.session.no_demangle), 0, NULL, NULL },
	{ "no-demangle", 0, NULL, SET_BOOL, OPT_FIELD(report.session.no_demangle), 1, NULL,
	  "show C++ and Rust function names as mangled" },
	{ "symfs", 0, " DIR", SET_STR, OPT_FIELD(report.session.symfs), 0, NULL,
	  "look for binaries only under DIR (the recorded root)" },
	{ "kallsyms", 0, " FILE", SET_STR, OPT_FIELD(report.session.kallsyms), 0, NULL,
	  "kernel symbols of the recorded machine\n"
	  "(-k/--vmlinux is not supported: use this)" },
	{ "vmlinux", 'k', " FILE", CALL, 0, 0, opt_vmlinux, NULL },
	{ "no-symbol-cache", 0, NULL, SET_BOOL, OPT_FIELD(no_symbol_cache), 1, NULL,
	  "neither use nor write the kernel symbol cache\n"
	  "(default: $PRECORD_CACHE_DIR, else ~/.cache/precord)" },
	{ "dump-raw-trace", 'D', NULL, SET_BOOL, OPT_FIELD(dump_raw), 1, NULL,
	  "print every record, then totals per record type" },
	{ "header", 0, NULL, SET_BOOL, OPT_FIELD(header), 1, NULL,
	  "print the recording's header features, then the\n"
	  "report; for a directory, first one line per segment" },
	{ "header-only", 0, NULL, SET_BOOL, OPT_FIELD(header_only), 1, NULL,
	  "print only the header features" },
	{ "verbose", 'v', NULL, SET_BOOL, OPT_FIELD(verbose), 1, NULL, "more messages" },
	{ "quiet", 'q', NULL, SET_BOOL, OPT_FIELD(report.quiet), 1, NULL, "fewer messages" },
	{ "help", 'h', NULL, CALL, 0, 0, opt_help, "this help" },
	{ "version", 0, NULL, CALL, 0, 0, opt_version, "print the version" },
};

#define NR_OPTS (sizeof(opts) / sizeof(opts[0]))
#define HELP_INDENT "                           " /* under the first line's text */

static void usage(void)
{
	const struct opt *op;
	const char *h, *nl;
	char word[64];

	printf("usage: preport [options]\n");
	for (op = opts; op < opts + NR_OPTS; op++) {
		if (!op->help)
			continue;
		snprintf(word, sizeof(word), "--%s%s", op->name, op->arg ? op->arg : "");
		if (op->short_name)
			printf("  -%c, %-19s  ", op->short_name, word);
		else
			printf("      %-19s  ", word);
		for (h = op->help; (nl = strchr(h, '\n')); h = nl + 1)
			printf("%.*s\n" HELP_INDENT, (int)(nl - h), h);
		printf("%s\n", h);
	}
}

/* The options that leave samples out, in the order the filters' description names them. */
static const char *const filter_names[] = {"comms", "pid",   "tid",  "cpu",	"time",
					   "since", "until", "dsos", "symbols", "hide-unresolved"};
#define NR_FILTERS (sizeof(filter_names) / sizeof(filter_names[0]))

/* s as one word of a shell command: as it is when no shell reads anything in it, else
 * quoted. */
static int add_word(struct prec_buf *b, const char *s)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789,._+-:/=@%";
	int err = 0;

	if (*s && strspn(s, plain) == strlen(s))
		return prec_buf__append(b, s, strlen(s));
	err |= prec_buf__append(b, "'", 1);
	for (; *s; s++)
		err |= *s == '\'' ? prec_buf__append(b, "'\\''", 4) : prec_buf__append(b, s, 1);
	return err | prec_buf__append(b, "'", 1);
}

/*
 * The filters given (args[k]: filter_names[k]'s argument as last given, "" for an option
 * without one, NULL: not given) as options ("--comms cc1 --cpu 0-3") into *ret: NULL when
 * none was given.  0 or -ENOMEM.
 */
static int describe_filters(const char *const *args, char **ret)
{
	struct prec_buf b = {0};
	size_t k;
	int err = 0;

	for (k = 0; k < NR_FILTERS; k++) {
		if (!args[k])
			continue;
		err |= prec_buf__append(&b, b.len ? " --" : "--", b.len ? 3 : 2);
		err |= prec_buf__append(&b, filter_names[k], strlen(filter_names[k]));
		if (*args[k])
			err |= prec_buf__append(&b, " ", 1) | add_word(&b, args[k]);
	}
	if (b.len && !err)
		err = prec_buf__append(&b, "", 1);
	if (err) {
		prec_buf__release(&b);
		return -ENOMEM;
	}
	*ret = (char *)b.data;
	return 0;
}

/* Do what option op says with its argument; false: stop with p->status. */
static bool apply(struct parse *p, const struct opt *op, const char *arg)
{
	char *field = (char *)p->o + op->off;

	switch (op->kind) {
	case SET_BOOL:
		*(bool *)field = op->value;
		return true;
	case SET_INT:
		*(int *)field = op->value;
		return true;
	case SET_STR:
		*(const char **)field = arg;
		return true;
	case SET_LIST:
		if (set_list((const char *const **)field, arg)) {
			fprintf(stderr, "preport: out of memory\n");
			p->status = 1;
			return false;
		}
		return true;
	case CALL:
		return op->fn(p, arg);
	default:
		return true;
	}
}

/* An export is an output of its own: one of them, never with --folded, -D or --header-only,
 * and to a file with a name. */
static bool exports_fit(const struct preport_opts *o)
{
	const struct preport_report_opts *ro = &o->report;
	const char *ex = o->pprof_file.path ? "--pprof" : o->flame_file.path ? "--flamegraph" : NULL;
	const char *other = o->pprof_file.path && o->flame_file.path ? "--flamegraph"
			    : ro->folded			   ? "--folded"
			    : o->dump_raw			   ? "-D"
			    : o->header_only			   ? "--header-only"
								   : NULL;

	if (!ex)
		return true;
	if (!*(o->pprof_file.path ? o->pprof_file.path : o->flame_file.path)) {
		fprintf(stderr, "preport: %s needs a file name ('-' for standard output)\n", ex);
		return false;
	}
	if (other) {
		fprintf(stderr, "preport: %s and %s are two outputs; give one of them\n", ex,
			other);
		return false;
	}
	return true;
}

bool preport_opts__parse(struct preport_opts *o, int argc, char **argv, int *ret_status)
{
	struct preport_report_opts *ro = &o->report;
	struct parse p = { o, argc, argv, false, 2 };
	/* '+': no permutation, so "-g caller" can take its value from the next word */
	char shorts[3 + 3 * NR_OPTS] = "+:", *s = shorts + 2;
	struct option longopts[NR_OPTS + 1];
	const char *bad, *filters[NR_FILTERS] = {0};
	char since[64], until[64];
	size_t bad_len, i, k;
	int c;

	memset(o, 0, sizeof(*o));
	memset(longopts, 0, sizeof(longopts));
	for (i = 0; i < NR_OPTS; i++) {
		const char *arg = opts[i].arg;

		longopts[i].name = opts[i].name;
		longopts[i].has_arg = !arg ? no_argument
				      : arg[0] == '[' ? optional_argument : required_argument;
		longopts[i].val = opts[i].short_name ? opts[i].short_name : 256 + (int)i;
		if (opts[i].short_name) {
			*s++ = opts[i].short_name;
			if (arg)
				*s++ = ':';
			if (arg && arg[0] == '[')
				*s++ = ':';
		}
	}
	*ret_status = 2;
	ro->children = -1;
	ro->graph = -1;
	ro->order = -1;
	ro->inline_frames = -1;
	o->pprof_file.what = "pprof profile";
	o->flame_file.what = "flame graph";
	ro->view.graph_threshold = 0.5;
	ro->session.max_stack = UINT32_MAX; /* not given: default_max_stack() after the options */
	ro->hist.keys[0] = PREC_SORT_COMM;
	ro->hist.keys[1] = PREC_SORT_DSO;
	ro->hist.keys[2] = PREC_SORT_SYM;
	ro->hist.nr_keys = 3;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		if (c == ':') {
			fprintf(stderr, "preport: option '%s' needs a value; run 'preport --help' for "
					"usage\n", argv[optind - 1]);
			return false;
		}
		for (i = 0; i < NR_OPTS && longopts[i].val != c; i++)
			;
		if (i == NR_OPTS) {
			fprintf(stderr, "preport: unknown option '%s'; run 'preport --help' for the "
					"list\n", argv[optind - 1]);
			return false;
		}
		if (!apply(&p, &opts[i], optarg)) {
			*ret_status = p.status;
			return false;
		}
		for (k = 0; k < NR_FILTERS; k++)
			if (!strcmp(opts[i].name, filter_names[k]))
				filters[k] = opts[i].arg ? optarg : "";
	}
	if (optind < argc && optind > 1 &&
	    (!strcmp(argv[optind - 1], "-g") || !strcmp(argv[optind - 1], "--call-graph"))) {
		/* "-g X" with an X that is no graph spec was left as an argument */
		fprintf(stderr, "preport: unknown call graph spec '%s' for %s; give a mode (graph, "
				"flat, folded, fractal, none), caller or callee, a threshold, as "
				"in -g graph,0.5,caller (see preport(1))\n",
			argv[optind], argv[optind - 1]);
		return false;
	}
	if (optind < argc) {
		fprintf(stderr, "preport: unexpected argument '%s'; run 'preport --help' for usage\n",
			argv[optind]);
		return false;
	}
	if (ro->time_pct && o->input && !strcmp(o->input, "-")) {
		fprintf(stderr, "preport: --time in percent needs the recording's first and last "
				"sample times before the report, so a second reading: give the "
				"recording as a file, not standard input\n");
		return false;
	}
	if (!parse_range(o->since, o->until, &o->range))
		return false;
	if (!exports_fit(o))
		return false;
	ro->pprof = o->pprof_file.path ? &o->pprof_file : NULL;
	ro->flame = o->flame_file.path ? &o->flame_file : NULL;
	if (o->fields && parse_fields(o->fields, ro, p.sort_given, &bad, &bad_len)) {
		fprintf(stderr, "preport: bad field '%.*s' in -F '%s': the fields are "
				"overhead, overhead_children, sample, period and the sort keys "
				"comm, pid, tid, dso, sym, srcline, cpu\n",
			(int)bad_len, bad, o->fields);
		return false;
	}
	if (ro->session.max_stack == UINT32_MAX)
		ro->session.max_stack = default_max_stack();
	/* --since and --until as the times they resolved to: "-5m" says nothing once the file
	 * is read later */
	for (k = 0; k < NR_FILTERS; k++) {
		bool is_since = !strcmp(filter_names[k], "since");
		uint64_t ns = is_since ? o->range.since_ns : o->range.until_ns;
		char *buf = is_since ? since : until;

		if (filters[k] && (is_since || !strcmp(filter_names[k], "until"))) {
			preport_format_wall(ns, ns % 1000000000 != 0, buf, sizeof(since));
			filters[k] = buf;
		}
	}
	/* an --until on --since's day without the date again, so that both fit the subtitle */
	for (k = 0; k < NR_FILTERS; k++)
		if (filters[k] == until && o->since && since[10] == ' ' && !strncmp(since, until, 11))
			filters[k] = until + 11;
	if (describe_filters(filters, (char **)&ro->filters)) {
		fprintf(stderr, "preport: out of memory\n");
		*ret_status = 1;
		return false;
	}
	return !ro->session.kallsyms || kallsyms_usable(ro->session.kallsyms);
}

void preport_opts__free(struct preport_opts *o)
{
	free((void *)o->report.filters);
	free(o->report.time_pct);
	free_list(o->report.session.comms);
	free_list(o->report.hist.dso_filter);
	free_list(o->report.hist.sym_filter);
	free((void *)o->report.session.pids);
	free((void *)o->report.session.tids);
	free((void *)o->report.session.cpus);
}
