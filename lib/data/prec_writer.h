/* SPDX-License-Identifier: MIT */
/*
 * The record stream writer: perf's pipe form of perf.data, optionally zstd-compressed.
 *
 * Order of use:
 *   prec_writer__new()            writes the 16-byte pipe header
 *   prec_writer__add_attr()       one HEADER_ATTR per event, with the ids of all its fds
 *   prec_writer__add_feature*()   HEADER_FEATURE records
 *   prec_writer__end_header()     COMPRESSED feature (if compressing) + end-of-features marker
 *   prec_writer__add_<record>() / prec_writer__add_raw()   records
 *   prec_writer__flush()          at least once per flush interval
 *   prec_writer__finish()         final flush and the end marker; then prec_writer__free()
 *
 * Kernel-type records (type < 64), typed or raw, go through the compressor when compression
 * is on: they are cut into chunks of at most PREC_WRITER_CHUNK raw bytes, each chunk becomes
 * one COMPRESSED record (never empty, never more than the declared mmap_len).  One zstd frame
 * runs to finish; each group ends flushed, so the file decodes up to its last group.  Records
 * perf writes itself (type >= 64) stay uncompressed; adding one first closes the pending
 * compressed group, so the file order is the order of the calls.
 *
 * Synthesized records carry the sample_id trailer laid out for the first attr; pass NULL as
 * `sid` for the all-zero trailer (time 0: "apply immediately") that perf uses.
 *
 * Output is buffered and written with write(2) on flush, or earlier when the buffer passes
 * PREC_WRITER_OUTBUF bytes.  The fd is not owned.  Every function returns 0 or -errno; after a
 * write error (-ENOSPC, -EIO, ...) the writer keeps returning that error and writes nothing
 * more, so what is on disk stays a valid stream up to the last successful flush.
 */
#ifndef PREC_WRITER_H
#define PREC_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

#include "prec_record.h"
#include "prec_sample.h"

#define PREC_WRITER_CHUNK (32 * 1024) /* raw bytes per COMPRESSED record, at most */
#define PREC_WRITER_MMAP_LEN PREC_WRITER_CHUNK /* what we declare in HEADER_COMPRESSED */
#define PREC_WRITER_OUTBUF (1024 * 1024)

struct prec_writer;

struct prec_writer_opts {
	int compress_level; /* 0: no compression; 1..19: zstd level */
};

struct prec_writer_stats {
	uint64_t raw_bytes; /* bytes of records before compression */
	uint64_t written_bytes; /* bytes handed to write(2) successfully */
	uint64_t nr_records;
	uint64_t nr_compressed; /* COMPRESSED records written */
};

/* Writes the pipe header. opts may be NULL (no compression). */
int prec_writer__new(int fd, const struct prec_writer_opts *opts, struct prec_writer **ret);

/*
 * Begin a new stream on `fd` (pipe header written, nothing else kept: add the attrs again),
 * with the same options and the memory of the last one, which need not have been finished.
 * For a writer that makes one file after another; 0 or -errno of the write.
 */
int prec_writer__reset(struct prec_writer *w, int fd);

/* NULL-safe. Does not flush: call prec_writer__finish() first to keep buffered data. */
void prec_writer__free(struct prec_writer *w);

/* One event: attr (attr->size is rewritten to 128) and the ids of its fds. */
int prec_writer__add_attr(struct prec_writer *w, const struct perf_event_attr *attr,
			  const uint64_t *ids, size_t nr_ids);

/* HEADER_FEATURE with a raw payload (the feature's file-section bytes). */
int prec_writer__add_feature(struct prec_writer *w, unsigned int feat, const void *data,
			     size_t len);
/* A feature that is one perf string (u32 len + NUL-terminated text padded to 64). */
int prec_writer__add_feature_string(struct prec_writer *w, unsigned int feat, const char *s);
/* A feature that is a perf string list (u32 nr + nr strings). */
int prec_writer__add_feature_strings(struct prec_writer *w, unsigned int feat,
				     const char *const *v, size_t n);
/* EVENT_DESC for every attr added so far; names[i] names attr i. */
int prec_writer__add_event_desc(struct prec_writer *w, const char *const *names);

/* Ends the header part. Records may be added only after this. */
int prec_writer__end_header(struct prec_writer *w);

/* The layout of attr `idx` (for encoding samples and trailers), or NULL. */
const struct prec_sample_layout *prec_writer__layout(const struct prec_writer *w, size_t idx);

/* Typed records.  `sid` may be NULL (zero trailer). */
int prec_writer__add_comm(struct prec_writer *w, uint32_t pid, uint32_t tid, const char *comm,
			  bool exec, const struct prec_sample_id *sid);
int prec_writer__add_mmap(struct prec_writer *w, uint16_t misc, uint32_t pid, uint32_t tid,
			  uint64_t addr, uint64_t len, uint64_t pgoff, const char *filename,
			  const struct prec_sample_id *sid);

int prec_writer__add_mmap2(struct prec_writer *w, uint16_t misc, const struct prec_mmap2 *m,
			   const struct prec_sample_id *sid);
/* FORK (exit=false) or EXIT (exit=true). */
int prec_writer__add_task(struct prec_writer *w, bool exit, uint32_t pid, uint32_t ppid,
			  uint32_t tid, uint32_t ptid, uint64_t time,
			  const struct prec_sample_id *sid);
int prec_writer__add_lost(struct prec_writer *w, uint64_t id, uint64_t lost,
			  const struct prec_sample_id *sid);
int prec_writer__add_lost_samples(struct prec_writer *w, uint64_t lost,
				  const struct prec_sample_id *sid);
int prec_writer__add_throttle(struct prec_writer *w, bool unthrottle, uint64_t time, uint64_t id,
			      uint64_t stream_id, const struct prec_sample_id *sid);
/* SWITCH (cpu_wide=false) or SWITCH_CPU_WIDE. */
int prec_writer__add_switch(struct prec_writer *w, bool out, bool cpu_wide,
			    uint32_t next_prev_pid, uint32_t next_prev_tid,
			    const struct prec_sample_id *sid);
/* A SAMPLE encoded with the layout of attr `attr_idx`; misc carries the cpumode. */
int prec_writer__add_sample(struct prec_writer *w, size_t attr_idx, uint16_t misc,
			    const struct prec_sample *s);
int prec_writer__add_finished_round(struct prec_writer *w);
int prec_writer__add_finished_init(struct prec_writer *w);

/*
 * HEADER_BUILD_ID: the build-id (`len` <= 20 bytes) of the file `filename`, as mapped by
 * `pid` (-1: any process of the host); `cpumode` as in a record's misc (USER for files of
 * processes).  Readers apply it at once, by path, to the maps of that file: write it before
 * the samples in the file.  -EINVAL for a longer build-id or an empty name.
 */
int prec_writer__add_build_id(struct prec_writer *w, uint16_t cpumode, int32_t pid,
			      const uint8_t *id, size_t len, const char *filename);

struct prec_id_index_entry {
	uint64_t id, idx, cpu, tid;
};
int prec_writer__add_id_index(struct prec_writer *w, const struct prec_id_index_entry *e,
			      size_t n);

/*
 * Whole records in kernel format, as drained from a ring (trailers included), `len` bytes.
 * Kernel-type records only; the caller has checked the record boundaries.
 */
int prec_writer__add_raw(struct prec_writer *w, const void *buf, size_t len);

/* Flush the pending compressed group (all of it decodes) and write everything buffered. */
int prec_writer__flush(struct prec_writer *w);
/*
 * The normal end of a stream: the final flush, ending the zstd frame, then the end marker, a
 * SAMPLE_TIME HEADER_FEATURE holding the first and last sample times seen (0 when none, or when
 * the attrs disagree on where a sample's time is), written last.  A stream that lacks it was
 * cut short (see prec_reader__cut_short()).  The marker is written once, and only when the
 * header was ended and no write failed; no record may be added after it (-EINVAL).
 */
int prec_writer__finish(struct prec_writer *w);

void prec_writer__get_stats(const struct prec_writer *w, struct prec_writer_stats *ret);

/*
 * Feature payload parts, appended to `b` (also for the file form): a perf header string (u32
 * length, the text, its NUL and zeros up to a multiple of 64), and one event's entry of
 * EVENT_DESC (its attr in PREC_ATTR_SIZE bytes with size set to that, u32 number of ids, the
 * name as a header string, the ids).  0 or -errno.
 */
struct prec_buf;
int prec_feat_put_string(struct prec_buf *b, const char *s);
int prec_feat_put_event(struct prec_buf *b, const struct perf_event_attr *attr, const uint64_t *ids,
			size_t nr_ids, const char *name);

#endif
