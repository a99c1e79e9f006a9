/* SPDX-License-Identifier: MIT */
/*
 * The state of the recorded machine, replayed from side records in time order: threads
 * (tid -> pid, comm) and one address space per process (pid) holding its file mappings, plus
 * the kernel's address space (mappings recorded with pid -1).
 *
 * Records are fed with prec_machine__process(); samples then find their thread and, for each
 * address, the mapping that held it at that time.  Maps do not know about symbols: the layer
 * above keeps what it derives from a map (its DSO) in map->priv.
 *
 * Thread and map pointers stay valid until prec_machine__free(), except that a map pointer
 * is valid only until the next record is processed (mappings move when others are added).
 */
#ifndef PREC_MACHINE_H
#define PREC_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prec_abi.h"
#include "prec_hash.h"

#define PREC_PID_KERNEL UINT32_MAX /* pid -1 in MMAP records */

/* A build-id, interned by the machine: equal ids, one pointer. */
struct prec_build_id {
	uint8_t len;
	uint8_t id[PREC_BUILD_ID_SIZE];
};

struct prec_map {
	uint64_t start, end; /* [start, end) */
	uint64_t pgoff;
	const char *path; /* interned; as recorded */
	const struct prec_build_id *build_id; /* NULL: none recorded */
	/* the file's identity from an MMAP2 record in inode form: device, inode, generation
	 * (ino 0: none, as for MMAP records and anonymous memory) */
	uint32_t maj, min;
	uint64_t ino, ino_gen;
	/* for the layer above; NULL on a new map.  A forked process shares its parent's maps
	 * until either changes them, so this must depend only on the map, not the process. */
	void *priv;
};

struct prec_mapvec;

struct prec_mspace {
	uint32_t pid;
	struct prec_map *maps; /* sorted by start, not overlapping: vec's */
	size_t nr;
	struct prec_mapvec *vec; /* maybe shared with forked processes (copied on change) */
	/* the maps before the last exec, kept until the process is seen in user mode: a sample
	 * taken inside execve after its COMM still has the old image's user stack */
	struct prec_map *old;
	size_t nr_old;
	struct prec_mapvec *old_vec;
	uint64_t gen; /* the machine's change count when these maps last changed */
};

struct prec_thread {
	uint32_t pid, tid;
	const char *comm; /* interned; ":TID" until a COMM is seen, "swapper" for tid 0 */
	struct prec_mspace *ms;
	/* the machine's user may keep per-thread data of its own here: zero when the thread
	 * is made, never read or written by the machine */
	uint64_t user[3];
};

struct prec_machine;

int prec_machine__new(struct prec_machine **ret);
void prec_machine__free(struct prec_machine *m); /* NULL-safe */

/*
 * Apply one kernel side record (COMM, MMAP, MMAP2, FORK, EXIT; others are ignored): `rec`
 * points to the whole record, header included, `size` bytes; `type` is its header's (the
 * decoders read the rest of the header, misc included, from the record).  Returns 0, -EBADMSG for a record too short or corrupt for its type (see
 * prec_record.h), or -ENOMEM.
 */
int prec_machine__process(struct prec_machine *m, uint32_t type, const void *rec, size_t size);

/*
 * Build-ids from the BUILD_ID header feature, by path: a map of that path without a build-id
 * of its own gets this one.  -ENOMEM.
 */
int prec_machine__add_build_id(struct prec_machine *m, const char *path, const uint8_t *id,
			       size_t len);

/* The thread `tid` of process `pid`, created if unknown.  NULL on -ENOMEM. */
struct prec_thread *prec_machine__thread(struct prec_machine *m, uint32_t pid, uint32_t tid);

/* The mapping holding `addr`, or NULL: of the current maps, else of the maps before an exec
 * the process has not yet been seen to return from. */
struct prec_map *prec_mspace__find(struct prec_mspace *ms, uint64_t addr);

/* The process of `ms` was sampled in user mode: it runs its new image, so the maps kept from
 * before its exec go. */
void prec_machine__user_seen(struct prec_machine *m, struct prec_mspace *ms);

/*
 * A number that changes whenever a processed record may have changed the maps that resolve
 * addresses of `ms`: its own or the kernel's (build-ids added by prec_machine__add_build_id()
 * do not count).  What was derived from those maps under one value stays true while it is
 * unchanged; records about other processes leave it alone.
 */
uint64_t prec_machine__generation(const struct prec_machine *m, const struct prec_mspace *ms);

#endif
