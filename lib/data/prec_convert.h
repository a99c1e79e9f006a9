/* SPDX-License-Identifier: MIT */
/*
 * Rewriting a recording into perf's file form, uncompressed: what tools that do not read pipe
 * streams or compressed data need (perf diff, perf annotate and perf buildid-list of 6.1,
 * hotspot's perfparser built without zstd).
 *
 * Whatever prec_reader reads (precord's or perf's, pipe or file form, compressed or not, cut
 * short) becomes one file: the events as attrs with their ids, every record in its order
 * (COMPRESSED records replaced by what they hold; the records that only carry the pipe
 * header, HEADER_ATTR and HEADER_FEATURE, and HEADER_BUILD_ID dropped), and the features:
 * those of the input, except the ones that describe the old form (COMPRESSED, DIR_FORMAT,
 * AUXTRACE); EVENT_DESC rebuilt from the events and their names; SAMPLE_TIME from the samples;
 * BUILD_ID from every build-id the recording holds (HEADER_BUILD_ID records, MMAP2 records
 * that carry one, the input's BUILD_ID feature), each file once.
 *
 * MMAP2 records that claim a build-id longer than 20 bytes were marked by a kernel bug (seen
 * on 6.18 while another session records with attr.build_id): what they hold is device and
 * inode, and perf 6.1 aborts on them.  They are written with the build-id flag cleared.
 */
#ifndef PREC_CONVERT_H
#define PREC_CONVERT_H

#include <stdbool.h>
#include <stdint.h>

#include "prec_reader.h"

struct prec_convert_stats {
	uint64_t records; /* records written */
	uint64_t samples;
	uint64_t build_ids;   /* entries of the BUILD_ID feature */
	uint64_t mmap2_fixed; /* MMAP2 records whose false build-id flag was cleared */
	bool truncated;	      /* the input ended inside a record (the reader warned) */
	bool cut_short;	      /* a precord stream without its end marker */
};

/*
 * Convert everything `r` holds (nothing read from it yet) into `fd`, a new, empty, seekable
 * file (not owned).  Returns 0 and fills *ret; or -EOPNOTSUPP for what the file form cannot
 * carry here (tracepoint data, AUX area data, events announced after the first record; said
 * through the log), -ENODATA when there is no record at all (the file form would say "did not
 * finish"), -EBADMSG for corrupt input, -ENOMEM, or the -errno of a failed write.
 * On an error the file is incomplete: remove it.
 */
int prec_convert_to_file(struct prec_reader *r, int fd, struct prec_convert_stats *ret);

#endif
