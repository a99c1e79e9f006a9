/* SPDX-License-Identifier: MIT */
/*
 * One decoder per record type: the bodies of the kernel's side records and of the records
 * perf adds, read in this one place (SAMPLE bodies and sample_id trailers: prec_sample.h).
 *
 * Every decoder takes the whole record, header included: `size` bytes are readable at
 * `rec` (any alignment); the record's own size is taken from its header and must fit in
 * `size`.  It checks the header's type, that the record holds the fixed part of the body and
 * every variable part it announces, and that each string ends with a NUL inside the record.
 * It returns 0 and fills *ret, or -EBADMSG (a short or corrupt record) and leaves *ret
 * alone.  Pointers in *ret point into `rec`: valid as long as the record is.
 */
#ifndef PREC_RECORD_H
#define PREC_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

#include "prec_abi.h"

/*
 * MMAP and MMAP2 (PERF_RECORD_MMAP2), for the decoder and the writer.  An MMAP record gives
 * no file identity: device, inode and build-id are zero, prot and flags too.
 */
struct prec_mmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	bool has_build_id; /* then build_id/build_id_size replace maj..ino_generation */
	uint8_t build_id_size;
	uint8_t build_id[PREC_BUILD_ID_SIZE];
	uint32_t prot, flags;
	const char *filename;
};

/*
 * An MMAP or MMAP2 record.
 * The build-id flag in an MMAP2's misc is not trusted alone: while one listener asks for
 * build-ids, kernels up to at least 6.18 set it in the records of every listener, over
 * device and inode.  A flagged record whose size byte is 0 or above PREC_BUILD_ID_SIZE, or
 * whose three reserved bytes after it are not zero, is decoded as device and inode
 * (has_build_id false).
 */
int prec_rec_mmap__parse(const void *rec, size_t size, struct prec_mmap2 *ret);

/* COMM */
struct prec_rec_comm {
	uint32_t pid, tid;
	bool exec; /* PERF_RECORD_MISC_COMM_EXEC: the name an execve gave */
	const char *comm;
};
int prec_rec_comm__parse(const void *rec, size_t size, struct prec_rec_comm *ret);

/* FORK or EXIT */
struct prec_rec_fork {
	bool exit;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};
int prec_rec_fork__parse(const void *rec, size_t size, struct prec_rec_fork *ret);

/* LOST: `lost` samples of the event `id` dropped because the ring was full. */
struct prec_rec_lost {
	uint64_t id, lost;
};
int prec_rec_lost__parse(const void *rec, size_t size, struct prec_rec_lost *ret);

/* LOST_SAMPLES: samples the kernel dropped for other reasons (perf also writes the
 * PERF_FORMAT_LOST counters as one at the end); the event comes from the trailer. */
int prec_rec_lost_samples__parse(const void *rec, size_t size, uint64_t *ret_lost);

/* THROTTLE or UNTHROTTLE */
struct prec_rec_throttle {
	bool unthrottle;
	uint64_t time, id, stream_id;
};
int prec_rec_throttle__parse(const void *rec, size_t size, struct prec_rec_throttle *ret);

/* SWITCH or SWITCH_CPU_WIDE (only the latter names the other task: 0 and 0 otherwise) */
struct prec_rec_switch {
	bool out; /* PERF_RECORD_MISC_SWITCH_OUT */
	bool cpu_wide;
	uint32_t next_prev_pid, next_prev_tid;
};
int prec_rec_switch__parse(const void *rec, size_t size, struct prec_rec_switch *ret);

/*
 * READ: a task's counter as it exited (inherit_stat), in the read_format of its event.
 * The read_format block is `values` (`values_size` bytes); without PERF_FORMAT_GROUP its
 * first u64 is the count, given as `value` (0 with a group).  -EBADMSG also when the block
 * that read_format describes does not fit the record.
 */
struct prec_rec_read {
	uint32_t pid, tid;
	uint64_t value;
	const void *values;
	size_t values_size;
};
int prec_rec_read__parse(const void *rec, size_t size, uint64_t read_format,
			 struct prec_rec_read *ret);

/*
 * A HEADER_BUILD_ID record, or an entry of the BUILD_ID feature (the same layout with type
 * 0): s32 pid, the id padded to PREC_BUILD_ID_SIZE bytes, its size byte (valid when misc
 * has PREC_MISC_BUILD_ID_SIZE, else the id is PREC_BUILD_ID_SIZE bytes), 3 reserved bytes,
 * the file name.  A size byte above PREC_BUILD_ID_SIZE is -EBADMSG; a size of 0 is
 * returned as it is.
 */
struct prec_rec_build_id {
	int32_t pid;	  /* -1: the host */
	uint16_t cpumode; /* misc & PERF_RECORD_MISC_CPUMODE_MASK */
	uint8_t size;
	uint8_t id[PREC_BUILD_ID_SIZE]; /* zero past size */
	const char *filename;
};
int prec_rec_build_id__parse(const void *rec, size_t size, struct prec_rec_build_id *ret);

/*
 * The next entry of a BUILD_ID feature payload (`len` bytes at `p`), from *off on: 1 and
 * *ret filled, 0 at the end, or -EBADMSG for a malformed entry.  *off moves past the entry;
 * after an entry whose size field is wrong it moves to the end (nothing after it can be
 * found), so a caller that skips bad entries just calls again.
 */
int prec_build_id_feature__next(const void *p, size_t len, size_t *off,
				struct prec_rec_build_id *ret);

/*
 * HEADER_ATTR: an event's perf_event_attr and its ids (pipe form).  The attr is copied into
 * `attr`, zero-extended or cut to our struct; `attr_size` is its size in the record (a size
 * field of 0 means 64: PERF_ATTR_SIZE_VER0).  `ids` holds nr_ids u64, not aligned.
 */
struct prec_rec_attr {
	struct perf_event_attr attr;
	uint32_t attr_size;
	const void *ids;
	size_t nr_ids;
};
int prec_rec_attr__parse(const void *rec, size_t size, struct prec_rec_attr *ret);

/* HEADER_FEATURE: feature number `feat` and its payload (pipe form). */
struct prec_rec_feature {
	uint64_t feat;
	const void *data;
	size_t len;
};
int prec_rec_feature__parse(const void *rec, size_t size, struct prec_rec_feature *ret);

/* EVENT_UPDATE: `type` (PREC_EVENT_UPDATE_NAME: data is a name, maybe not NUL-terminated)
 * about the event with id `id`. */
struct prec_rec_event_update {
	uint64_t type, id;
	const void *data;
	size_t len;
};
int prec_rec_event_update__parse(const void *rec, size_t size, struct prec_rec_event_update *ret);

/* HEADER_TRACING_DATA or AUXTRACE: the bytes of out-of-band data that follow the record in
 * the stream, outside any record (TRACING_DATA's are padded to 8). */
int prec_rec_oob__parse(const void *rec, size_t size, uint64_t *ret_bytes);

/* ID_INDEX: nr entries of {id, idx, cpu, tid} (u64 each, not aligned). */
struct prec_rec_id_index {
	uint64_t nr;
	const void *entries;
};
int prec_rec_id_index__parse(const void *rec, size_t size, struct prec_rec_id_index *ret);

/* Room for what any decoder above returns, for code that dispatches on the record type. */
union prec_rec_body {
	struct prec_mmap2 mmap;
	struct prec_rec_comm comm;
	struct prec_rec_fork fork;
	struct prec_rec_lost lost;
	uint64_t v; /* LOST_SAMPLES' count, out-of-band bytes */
	struct prec_rec_throttle throttle;
	struct prec_rec_switch sw;
	struct prec_rec_read read;
	struct prec_rec_build_id bid;
	struct prec_rec_attr attr;
	struct prec_rec_feature feature;
	struct prec_rec_event_update update;
	struct prec_rec_id_index id_index;
};

#endif
