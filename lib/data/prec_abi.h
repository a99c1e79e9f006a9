/* SPDX-License-Identifier: MIT */
/*
 * Constants of the perf.data format (perf 6.1) that <linux/perf_event.h> does not provide:
 * the user-space record types perf adds (>= 64), the header feature numbers, the file magic.
 * Facts from shared/reference/perf-data-format.md; names are ours.
 */
#ifndef PREC_ABI_H
#define PREC_ABI_H

#include <stdint.h>

#define PREC_MAGIC 0x32454c4946524550ULL /* "PERFILE2" on little-endian */
#define PREC_MAGIC_SWAPPED 0x50455246494c4532ULL
#define PREC_PIPE_HEADER_SIZE 16
#define PREC_FILE_HEADER_SIZE 104
#define PREC_FILE_HEADER_SIZE_OLD 72

/*
 * How the VERSION feature of a stream written by precord starts ("precord 0.1.0").  Such a
 * pipe-form stream ends with the end marker (see prec_writer__finish()).
 */
#define PREC_VERSION_PREFIX "precord "

/* The attr size we write: what perf 6.1 writes and accepts (PERF_ATTR_SIZE_VER7). */
#define PREC_ATTR_SIZE 128

/* Records perf itself writes into the stream. */
enum prec_user_record {
	PREC_REC_HEADER_ATTR = 64,
	PREC_REC_HEADER_EVENT_TYPE = 65,
	PREC_REC_HEADER_TRACING_DATA = 66,
	PREC_REC_HEADER_BUILD_ID = 67,
	PREC_REC_FINISHED_ROUND = 68,
	PREC_REC_ID_INDEX = 69,
	PREC_REC_AUXTRACE_INFO = 70,
	PREC_REC_AUXTRACE = 71,
	PREC_REC_AUXTRACE_ERROR = 72,
	PREC_REC_THREAD_MAP = 73,
	PREC_REC_CPU_MAP = 74,
	PREC_REC_STAT_CONFIG = 75,
	PREC_REC_STAT = 76,
	PREC_REC_STAT_ROUND = 77,
	PREC_REC_EVENT_UPDATE = 78,
	PREC_REC_TIME_CONV = 79,
	PREC_REC_HEADER_FEATURE = 80,
	PREC_REC_COMPRESSED = 81,
	PREC_REC_FINISHED_INIT = 82,
	PREC_REC_MAX = 83, /* perf 6.1 rejects this and above */
};

#define PREC_REC_USER_START 64
/* Readers take a type at or above this for garbage, not for a newer perf's record. */
#define PREC_REC_TYPE_LIMIT 128

/* misc of a HEADER_BUILD_ID record / BUILD_ID feature entry: the size byte is valid */
#define PREC_MISC_BUILD_ID_SIZE (1U << 15)

/*
 * The one build-id size of the format: the bytes a build-id occupies in an MMAP2 record in
 * build-id form, a HEADER_BUILD_ID record and a BUILD_ID feature entry.  A longer build-id
 * does not fit any of them.
 */
#define PREC_BUILD_ID_SIZE 20

/* EVENT_UPDATE: the update that names an event (perf's PERF_EVENT_UPDATE__NAME). */
#define PREC_EVENT_UPDATE_NAME 2

/* Header feature numbers (bit numbers in the file header bitmap). */
enum prec_feature {
	PREC_FEAT_RESERVED = 0,
	PREC_FEAT_TRACING_DATA = 1,
	PREC_FEAT_BUILD_ID = 2,
	PREC_FEAT_HOSTNAME = 3,
	PREC_FEAT_OSRELEASE = 4,
	PREC_FEAT_VERSION = 5,
	PREC_FEAT_ARCH = 6,
	PREC_FEAT_NRCPUS = 7,
	PREC_FEAT_CPUDESC = 8,
	PREC_FEAT_CPUID = 9,
	PREC_FEAT_TOTAL_MEM = 10,
	PREC_FEAT_CMDLINE = 11,
	PREC_FEAT_EVENT_DESC = 12,
	PREC_FEAT_CPU_TOPOLOGY = 13,
	PREC_FEAT_NUMA_TOPOLOGY = 14,
	PREC_FEAT_BRANCH_STACK = 15,
	PREC_FEAT_PMU_MAPPINGS = 16,
	PREC_FEAT_GROUP_DESC = 17,
	PREC_FEAT_AUXTRACE = 18,
	PREC_FEAT_STAT = 19,
	PREC_FEAT_CACHE = 20,
	PREC_FEAT_SAMPLE_TIME = 21,
	PREC_FEAT_MEM_TOPOLOGY = 22,
	PREC_FEAT_CLOCKID = 23,
	PREC_FEAT_DIR_FORMAT = 24,
	PREC_FEAT_BPF_PROG_INFO = 25,
	PREC_FEAT_BPF_BTF = 26,
	PREC_FEAT_COMPRESSED = 27,
	PREC_FEAT_CPU_PMU_CAPS = 28,
	PREC_FEAT_CLOCK_DATA = 29,
	PREC_FEAT_HYBRID_TOPOLOGY = 30,
	PREC_FEAT_PMU_CAPS = 31,
	PREC_FEAT_LAST = 32, /* pipe form: end-of-features marker */
	PREC_FEAT_BITS = 256,
};

/* Callchain context markers; any entry >= PREC_CONTEXT_MAX is a marker. */
#define PREC_CONTEXT_HV ((uint64_t)-32)
#define PREC_CONTEXT_KERNEL ((uint64_t)-128)
#define PREC_CONTEXT_USER ((uint64_t)-512)
#define PREC_CONTEXT_GUEST ((uint64_t)-2048)
#define PREC_CONTEXT_GUEST_KERNEL ((uint64_t)-2176)
#define PREC_CONTEXT_GUEST_USER ((uint64_t)-2560)
#define PREC_CONTEXT_MAX ((uint64_t)-4095)

/* perf's name of a record type ("MMAP2", "FINISHED_ROUND"), or NULL for an unknown type. */
const char *prec_record_type_name(uint32_t type);

/* perf's name of a header feature ("HOSTNAME"), or NULL. */
const char *prec_feature_name(unsigned int feat);

#endif
