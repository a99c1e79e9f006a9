/* SPDX-License-Identifier: MIT */
/*
 * Event name parsing.  Generic names map to the kernel's generic hardware/software events;
 * PMU events read the PMU type and its term formats ("config:0-7,21") from sysfs, so any PMU
 * the kernel exposes works without tables of our own.  Values are checked to fit their bits.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prec_evspec.h"

struct named {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct named generic[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
};

static int apply_modifiers(const char *mod, struct perf_event_attr *attr)
{
	bool u = false, k = false, h = false;
	int precise = 0;

	for (; *mod; mod++) {
		switch (*mod) {
		case 'u':
			u = true;
			break;
		case 'k':
			k = true;
			break;
		case 'h':
			h = true;
			break;
		case 'p':
			precise++;
			break;
		case 'P':
			precise = 3;
			break;
		default:
			return -EINVAL;
		}
	}
	if (u || k || h) {
		attr->exclude_user = !u;
		attr->exclude_kernel = !k;
		attr->exclude_hv = !h;
	}
	if (precise > 3)
		return -EINVAL;
	attr->precise_ip = precise;
	return 0;
}

static int read_file_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -EINVAL;
	}
	fclose(f);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

static int parse_u64(const char *s, uint64_t *ret)
{
	char *end;

	if (!*s)
		return -EINVAL;
	errno = 0;
	*ret = strtoull(s, &end, 0);
	return (errno || *end) ? -EINVAL : 0;
}

/* Deposit `value` into the bits named by a sysfs format ("config1:0-7,32-35"). */
static int apply_format(const char *fmt, uint64_t value, struct perf_event_attr *attr)
{
	const char *colon = strchr(fmt, ':');
	uint64_t *field;
	const char *p;
	unsigned int used = 0;

	if (!colon)
		return -EINVAL;
	if (!strncmp(fmt, "config:", 7))
		field = (uint64_t *)&attr->config;
	else if (!strncmp(fmt, "config1:", 8))
		field = (uint64_t *)&attr->config1;
	else if (!strncmp(fmt, "config2:", 8))
		field = (uint64_t *)&attr->config2;
	else
		return -EINVAL;
	p = colon + 1;
	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo, b;

		if (end == p)
			return -EINVAL;
		p = end;
		if (*p == '-') {
			hi = strtoul(p + 1, &end, 10);
			p = end;
		}
		if (hi < lo || hi > 63)
			return -EINVAL;
		for (b = lo; b <= hi; b++, used++) {
			if (used < 64 && (value >> used) & 1)
				*field |= 1ULL << b;
			else
				*field &= ~(1ULL << b);
		}
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	if (used < 64 && (value >> used))
		return -ERANGE;
	return 0;
}

static int parse_pmu(const char *spec, const char *sysfs, struct perf_event_attr *attr,
		     const char **rest)
{
	char pmu[128], path[512], line[256], terms[512];
	const char *slash = strchr(spec, '/'), *close;
	char *tok, *save;
	uint64_t type;
	int err;

	close = slash ? strchr(slash + 1, '/') : NULL;
	if (!slash || !close || (size_t)(slash - spec) >= sizeof(pmu) ||
	    (size_t)(close - slash - 1) >= sizeof(terms))
		return -EINVAL;
	memcpy(pmu, spec, (size_t)(slash - spec));
	pmu[slash - spec] = 0;
	memcpy(terms, slash + 1, (size_t)(close - slash - 1));
	terms[close - slash - 1] = 0;
	if (!pmu[0] || strchr(pmu, '.') || strchr(pmu, '/'))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/type", sysfs, pmu);
	err = read_file_line(path, line, sizeof(line));
	if (err)
		return -ENOENT;
	if (parse_u64(line, &type) || type > UINT32_MAX)
		return -EINVAL;
	if (type == PERF_TYPE_TRACEPOINT)
		return -EOPNOTSUPP; /* its config is a tracepoint id; the samples need raw data */
	attr->type = (uint32_t)type;
	attr->config = 0;
	for (tok = strtok_r(terms, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		uint64_t v = 1;

		if (eq) {
			*eq = 0;
			if (parse_u64(eq + 1, &v))
				return -EINVAL;
		}
		if (!strcmp(tok, "config"))
			attr->config = v;
		else if (!strcmp(tok, "config1"))
			attr->config1 = v;
		else if (!strcmp(tok, "config2"))
			attr->config2 = v;
		else {
			if (strchr(tok, '.') || strchr(tok, '/'))
				return -EINVAL;
			snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/format/%s",
				 sysfs, pmu, tok);
			if (read_file_line(path, line, sizeof(line)))
				return -EINVAL;
			err = apply_format(line, v, attr);
			if (err)
				return -EINVAL;
		}
	}
	*rest = close + 1;
	return 0;
}

int prec_evspec_parse(const char *spec, const char *sysfs_root, struct perf_event_attr *attr,
		      char *name, size_t name_len)
{
	const char *mod = NULL;
	char base[128];
	size_t i, n;
	int err;

	if (!spec || !*spec)
		return -EINVAL;
	if (strchr(spec, '/')) {
		const char *rest;

		attr->config1 = attr->config2 = 0;
		err = parse_pmu(spec, sysfs_root, attr, &rest);
		if (err)
			return err;
		if (*rest == ':')
			mod = rest + 1;
		else if (*rest)
			return -EINVAL;
		snprintf(name, name_len, "%.*s", (int)(rest - spec), spec);
		return mod ? apply_modifiers(mod, attr) : 0;
	}
	n = strcspn(spec, ":");
	if (n >= sizeof(base))
		return -EINVAL;
	memcpy(base, spec, n);
	base[n] = 0;
	if (spec[n] == ':')
		mod = spec + n + 1;
	for (i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		if (!strcmp(base, generic[i].name))
			break;
	if (i < sizeof(generic) / sizeof(generic[0])) {
		attr->type = generic[i].type;
		attr->config = generic[i].config;
	} else if (base[0] == 'r' && base[1] && strspn(base + 1, "0123456789abcdefABCDEF") == n - 1) {
		attr->type = PERF_TYPE_RAW;
		attr->config = strtoull(base + 1, NULL, 16);
		if (n - 1 > 16)
			return -EINVAL;
	} else {
		struct perf_event_attr scratch;

		/* SUBSYS:NAME, perf's spelling of a tracepoint, unless NAME reads as modifiers */
		if (mod && *mod && apply_modifiers(mod, &scratch))
			return -EOPNOTSUPP;
		return -ENOENT;
	}
	snprintf(name, name_len, "%s", spec);
	return mod ? apply_modifiers(mod, attr) : 0;
}

int prec_evspec_split(const char *list, char ***ret)
{
	size_t cap = 4, n = 0, depth, i, start;
	char **v = calloc(cap, sizeof(*v)), **nv;

	if (!v)
		return -ENOMEM;
	for (i = 0, start = 0, depth = 0;; i++) {
		if (list[i] == '/')
			depth ^= 1;
		if ((list[i] == ',' && !depth) || !list[i]) {
			if (n + 2 > cap) {
				cap *= 2;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv)
					goto nomem;
				v = nv;
			}
			v[n] = strndup(list + start, i - start);
			if (!v[n])
				goto nomem;
			n++;
			v[n] = NULL;
			start = i + 1;
			if (!list[i])
				break;
		}
	}
	*ret = v;
	return 0;
nomem:
	prec_evspec_free_list(v);
	return -ENOMEM;
}

void prec_evspec_free_list(char **v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}
