/* SPDX-License-Identifier: MIT */
/*
 * Event specifications as perf's -e takes them, turned into perf_event_attr type/config:
 *   cycles, instructions, cache-misses, branch-misses, ... (hardware)
 *   cpu-clock, task-clock, page-faults, context-switches, ... (software)
 *   rNNNN (raw, hex), PMU/term=value,.../ (terms from sysfs format files), each optionally
 *   with modifiers :u :k :h :p...
 * Tracepoints are out of scope: their samples carry raw data that precord does not record.
 */
#ifndef PREC_EVSPEC_H
#define PREC_EVSPEC_H

#include <stddef.h>

#include <linux/perf_event.h>

/*
 * Parse one event (no commas outside slashes). Fills type, config, config1, config2,
 * exclude_* and precise_ip of *attr (other fields untouched) and writes its canonical name
 * to `name`.  sysfs_root is "/sys" normally (tests may point elsewhere).
 * Errors: -ENOENT unknown event or PMU, -EINVAL bad syntax or term, -EOPNOTSUPP a tracepoint
 * (SUBSYS:NAME, or the tracepoint PMU), which is not recorded.
 */
int prec_evspec_parse(const char *spec, const char *sysfs_root, struct perf_event_attr *attr,
		      char *name, size_t name_len);

/*
 * Split a comma-separated list of events into a NULL-terminated malloc'ed vector of
 * malloc'ed strings (commas inside PMU/.../ do not split). Free with prec_evspec_free_list.
 */
int prec_evspec_split(const char *list, char ***ret);
void prec_evspec_free_list(char **v);

#endif
