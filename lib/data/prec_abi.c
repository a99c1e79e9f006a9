/* SPDX-License-Identifier: MIT */
/* Names of record types and header features, as perf prints them. */
#include <stddef.h>

#include "prec_abi.h"

static const char *const kernel_names[] = {
	[1] = "MMAP",	      [2] = "LOST",	     [3] = "COMM",
	[4] = "EXIT",	      [5] = "THROTTLE",	     [6] = "UNTHROTTLE",
	[7] = "FORK",	      [8] = "READ",	     [9] = "SAMPLE",
	[10] = "MMAP2",	      [11] = "AUX",	     [12] = "ITRACE_START",
	[13] = "LOST_SAMPLES", [14] = "SWITCH",	     [15] = "SWITCH_CPU_WIDE",
	[16] = "NAMESPACES",  [17] = "KSYMBOL",	     [18] = "BPF_EVENT",
	[19] = "CGROUP",      [20] = "TEXT_POKE",     [21] = "AUX_OUTPUT_HW_ID",
};

static const char *const user_names[] = {
	"ATTR",		"EVENT_TYPE",	 "TRACING_DATA", "BUILD_ID",     "FINISHED_ROUND",
	"ID_INDEX",	"AUXTRACE_INFO", "AUXTRACE",	 "AUXTRACE_ERROR", "THREAD_MAP",
	"CPU_MAP",	"STAT_CONFIG",	 "STAT",	 "STAT_ROUND",	 "EVENT_UPDATE",
	"TIME_CONV",	"FEATURE",	 "COMPRESSED",	 "FINISHED_INIT",
};

static const char *const feature_names[] = {
	"RESERVED",	 "TRACING_DATA",  "BUILD_ID",	   "HOSTNAME",	   "OSRELEASE",
	"VERSION",	 "ARCH",	  "NRCPUS",	   "CPUDESC",	   "CPUID",
	"TOTAL_MEM",	 "CMDLINE",	  "EVENT_DESC",	   "CPU_TOPOLOGY", "NUMA_TOPOLOGY",
	"BRANCH_STACK",	 "PMU_MAPPINGS",  "GROUP_DESC",	   "AUXTRACE",	   "STAT",
	"CACHE",	 "SAMPLE_TIME",	  "MEM_TOPOLOGY",  "CLOCKID",	   "DIR_FORMAT",
	"BPF_PROG_INFO", "BPF_BTF",	  "COMPRESSED",	   "CPU_PMU_CAPS", "CLOCK_DATA",
	"HYBRID_TOPOLOGY", "PMU_CAPS",
};

const char *prec_record_type_name(uint32_t type)
{
	if (type < sizeof(kernel_names) / sizeof(kernel_names[0]))
		return kernel_names[type];
	if (type >= PREC_REC_USER_START && type < PREC_REC_MAX)
		return user_names[type - PREC_REC_USER_START];
	return NULL;
}

const char *prec_feature_name(unsigned int feat)
{
	if (feat < sizeof(feature_names) / sizeof(feature_names[0]))
		return feature_names[feat];
	return NULL;
}
