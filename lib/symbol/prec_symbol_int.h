/* SPDX-License-Identifier: MIT */
/*
 * Internals shared by the files of lib/symbol: the symtab and DSO structs, the sorted symbol
 * array every loader fills, and the entry points of each loader.  Not installed, not used
 * outside lib/symbol.
 */
#ifndef PREC_SYMBOL_INT_H
#define PREC_SYMBOL_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <gelf.h>
#include <libelf.h>

#include "prec_abi.h"
#include "prec_hash.h"
#include "prec_symbol.h"

/* Longest build-id of a file we keep; GNU ones are 20 (sha1) or 16 (md5) bytes,
 * --build-id=0x... can be longer.  A recorded one (PREC_BUILD_ID_SIZE at most) that is
 * longer cannot match any file. */
#define PREC_FILE_BUILD_ID_MAX 64

/*
 * Files larger than this are refused (BAD_FILE).  We mmap, never read, so the cap only bounds
 * address space and what a hostile --symfs could make us walk; the largest debug files seen
 * in the wild (browsers) are 2-5 GiB.
 */
#define PREC_ELF_MAX_SIZE (8ULL << 30)
/* More symbols than this in one table is taken as a corrupt file (33M; Chromium has ~1M). */
#define PREC_SYMS_MAX (1U << 25)
/* Note sections and segments larger than this are not searched for a build-id (they are
 * read whole, converted in a file of the other byte order; a build-id note is 36 bytes). */
#define PREC_NOTES_MAX (1U << 20)
/* kallsyms and perf-PID.map are read into memory; larger files are refused. */
#define PREC_TEXT_MAX_SIZE (512ULL << 20)

#define PREC_NO_UP UINT32_MAX

/* Whether s begins with p. */
static inline bool prec_has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* One symbol in a DSO's sorted array. */
struct prec_syment {
	uint64_t start; /* DSO address space: ELF vaddr, absolute for kernel and JIT */
	uint64_t end; /* exclusive; == start only for a lone zero-size symbol */
	const char *name; /* into the mapped string table, the text buffer, or the strset */
	uint32_t up; /* nearest earlier entry whose range reaches past start, or PREC_NO_UP */
	uint16_t module; /* kernel: 1 + index in modules[]; 0 otherwise */
	uint8_t bind; /* STB_* */
	uint8_t flags; /* PREC_SYMENT_* */
};

/* An entry of the kernel symbol cache file (prec_kcache.c): what prec_syment has, less
 * what the kernel's own symbols do not need. */
struct prec_kcsym {
	uint64_t start, end;
	uint32_t name; /* offset in the names */
	uint32_t up;
};

/* Whether an entry starting at or below `a` holds it: perf's symbols__find(), [start, end),
 * and a zero-size symbol at its start. */
static inline bool prec_sym_holds(uint64_t start, uint64_t end, uint64_t a)
{
	return a < end || (a == start && start == end);
}

/* `name` is final: demangled by the first lookup that returned it, if it needed to be. */
#define PREC_SYMENT_SHOWN 0x01
/* `name` is the demangled one, interned: the symbol table's is found again by
 * prec_elf_linkage_names() */
#define PREC_SYMENT_DEMANGLED 0x02

/* A growable array of entries and the state the sort needs (prec_symvec.c). */
struct prec_symvec {
	struct prec_syment *v;
	uint32_t n, cap;
};

/* Room for `extra` more entries, so pushes do not reallocate. */
int prec_symvec__reserve(struct prec_symvec *sv, uint32_t extra);
int prec_symvec__push(struct prec_symvec *sv, uint64_t start, uint64_t size, const char *name,
		      uint8_t bind);
/* Sort by (start, insertion order), like perf's rb-tree; perf's rules for ends and aliases
 * are applied by the callers through the helpers below. */
void prec_symvec__sort(struct prec_symvec *sv);
/* perf's symbols__fixup_end(): a zero-size symbol ends where the next one starts; the last
 * one ends at the next page boundary + 4 KiB.  With `kallsyms`, a zero-size symbol followed by
 * one on the other side of the vmlinux/module split ends at the next page instead. */
void prec_symvec__fixup_end(struct prec_symvec *sv, bool kallsyms);
/* perf's symbols__fixup_duplicate(): one symbol per start address, chosen as perf does. */
void prec_symvec__dedup(struct prec_symvec *sv);
/* Fill in `up` so lookups can find an enclosing symbol when ranges nest. */
void prec_symvec__link(struct prec_symvec *sv);
void prec_symvec__release(struct prec_symvec *sv);
/* The index of the first of the n sorted entries v[] that starts at or after `a`. */
uint32_t prec_syments_lower_bound(const struct prec_syment *v, uint32_t n, uint64_t a);

/* A PT_LOAD segment, for file offset -> vaddr. */
struct prec_seg {
	uint64_t off, filesz, vaddr;
};

enum prec_dso_kind {
	PREC_DSO_KIND_ELF,
	PREC_DSO_KIND_VDSO,
	PREC_DSO_KIND_KERNEL,
	PREC_DSO_KIND_JIT,
	PREC_DSO_KIND_ANON, /* no file behind it */
};

/* An opened ELF file, mapped; fd already closed. */
struct prec_elf {
	Elf *elf;
	GElf_Ehdr ehdr;
	uint8_t build_id[PREC_FILE_BUILD_ID_MAX];
	uint8_t build_id_len;
	bool has_symtab; /* a non-empty SHT_SYMTAB */
	bool has_debug_info; /* .debug_info with contents */
	/* the identity of the file opened (prec_elf_open only): device numbers, inode, and
	 * the inode generation when the file system tells it (gen_known) */
	uint32_t dev_major, dev_minor;
	uint64_t ino, gen;
	bool gen_known;
};

struct prec_dwarf; /* prec_dwarf.c */
typedef struct Dwarf_CFI_s Dwarf_CFI; /* libdw */

struct prec_dso {
	struct prec_symtab *st;
	enum prec_dso_kind kind;
	enum prec_dso_status status;
	const char *long_name, *short_name; /* interned */
	const char *file_used; /* interned; the file symbols come from */
	const char *runtime_path; /* interned; the executable file found, if any */
	const char *debuglink; /* interned; .gnu_debuglink of the executable file, if any */
	uint32_t debuglink_crc;
	uint8_t build_id[PREC_FILE_BUILD_ID_MAX]; /* as recorded */
	uint8_t build_id_len; /* 0: none recorded; 0xff: recorded but unusable */
	struct prec_file_id fid; /* as recorded, when no build-id was; ino 0: none */
	uint8_t file_build_id[PREC_FILE_BUILD_ID_MAX]; /* of the executable file found */
	uint8_t file_build_id_len;
	uint32_t pid; /* JIT */

	struct prec_syment *syms;
	uint32_t nsyms;
	struct prec_seg *segs;
	uint32_t nsegs;

	Elf *elf; /* the symbol file, kept mapped: names point into it */
	void *image; /* owned memory behind elf (vdso copy) or names (kallsyms, JIT map) */
	struct prec_dwarf *dwarf;
	bool dwarf_tried;
	/* call frame information for unwinding (prec_unwind.c), opened on first use */
	Dwarf_CFI *cfi; /* from .eh_frame: of elf, or of cfi_file */
	Dwarf_CFI *debug_cfi; /* .debug_frame, owned by dwarf */
	struct prec_elf cfi_file; /* the executable file, when elf is its debug file */
	bool cfi_tried;
	bool queued; /* given to the background loader once */
	/* kernel: symbols from the cache (prec_kcache.c), looked up there instead of in syms;
	 * they answer for addresses below kcover_hi only while kpartial.  Its names are
	 * interned, and so are those of the live table read after a fallback (kintern): a
	 * function is one name before and after. */
	struct prec_kcache *kc;
	uint64_t kcover_hi;
	bool kpartial, kintern;
};

struct prec_loader; /* prec_loader.c */
struct prec_kcache; /* prec_kcache.c */

struct prec_symtab {
	struct prec_symtab_opts opts; /* strings below are interned copies */
	pthread_mutex_t strs_lock; /* strs is shared with the background loader */
	struct prec_strset strs;
	struct prec_keyset keys; /* struct dso_key -> index in dsos */
	struct prec_dso **dsos;
	uint32_t ndsos;
	size_t capdsos;
	struct prec_dso *kernel;
	const char **modules; /* kernel module names "[ext4]", interned */
	uint32_t nmodules;
	size_t capmodules;
	bool warned_kptr;
	enum { JIT_UNLISTED, JIT_LISTED, JIT_UNLISTABLE } jit_listing;
	struct prec_keyset jit_pids; /* pids with a perf-PID.map in jit_dir, when JIT_LISTED */
	struct prec_loader *loader; /* NULL unless prec_symtab__loader_start() */
	bool loader_dwarf; /* the loader opens debug info too (prec_symtab__loader_dwarf()) */
};

/* ---- prec_symbol.c ---- */
/* Interned copies, safe while the background loader runs. */
const char *prec_symtab__intern(struct prec_symtab *st, const char *s);
const char *prec_symtab__intern_n(struct prec_symtab *st, const char *s, size_t len);

/* ---- prec_symlookup.c ---- */
/* File offset -> vaddr through d's PT_LOAD segments (identity when there are none). */
uint64_t prec_dso__off_to_vaddr(const struct prec_dso *d, uint64_t off);

/* ---- prec_dsoload.c ---- */
/* Load d's symbols (d->status UNLOADED): sets status, and syms and the rest when OK. */
void prec_dso__load(struct prec_dso *d);
/* Whether a file's build-id matches the recorded one (trailing zero padding tolerated). */
bool prec_build_id_match(const uint8_t *rec, size_t rec_len, const uint8_t *file,
			 size_t file_len);

/* ---- prec_elfsyms.c ---- */
enum prec_open_result {
	PREC_OPEN_OK = 0,
	PREC_OPEN_MISSING, /* ENOENT, ENOTDIR, EACCES, ...: try elsewhere */
	PREC_OPEN_BAD, /* exists but refused: not regular, too big, not ELF; warned once */
};


/* Open `path` read-only without blocking, refuse what is not a regular file of sane size or
 * not a valid ELF (one prec_warn naming the file and why). */
enum prec_open_result prec_elf_open(const char *path, struct prec_elf *ret);
/* Same for an in-memory image (the vdso); the image must outlive the Elf. */
enum prec_open_result prec_elf_open_mem(void *image, size_t size, const char *name,
					struct prec_elf *ret);
void prec_elf_close(struct prec_elf *pe);
/* The .gnu_debuglink file name and CRC, or NULL. Points into the mapping. */
const char *prec_elf_debuglink(Elf *elf, uint32_t *ret_crc);
/* CRC-32 of the whole file as .gnu_debuglink defines it. */
int prec_elf_crc32(Elf *elf, uint32_t *ret);
/* The .gnu_debugaltlink path and its build-id, or NULL. */
const char *prec_elf_altlink(Elf *elf, const uint8_t **ret_bid, size_t *ret_bid_len);

/*
 * Load d's symbols: ELF symbols of `syms` (.symtab, else .dynsym), PT_LOAD segments and PLT
 * entries of `runtime` (may be the same file, or NULL when only a debug file was found).
 * Sets d->syms/nsyms/segs/nsegs; names point into syms->elf.  0, -ENOMEM, or -EBADMSG.
 */
int prec_elf_load_syms(struct prec_dso *d, struct prec_elf *syms, struct prec_elf *runtime);
/*
 * For each i with want[i] set (a demangled name shown, not a PLT entry's), the symbol of
 * d->elf's table (the one prec_elf_load_syms() read) that starts at starts[i] (ascending
 * vaddrs) and was shown as want[i]: its name into ret[i] (NULL before), pointing into
 * d->elf.  Other ret[] are left alone.  One pass over the table; left NULL on -ENOMEM.
 */
void prec_elf_linkage_names(struct prec_dso *d, const uint64_t *starts, const char *const *want,
			    size_t n, const char **ret);

/* ---- prec_kallsyms.c ---- */
/* Load kernel symbols from `path` into d; 0, -ENOENT, -EBADMSG, -ENOMEM, or -ENODATA when
 * the addresses are all zero (kptr_restrict). */
int prec_kallsyms_load(struct prec_dso *d, const char *path);
/* Load a perf-PID.map; 0 or -errno (-EPERM when the owner is wrong). */
int prec_jitmap_load(struct prec_dso *d, const char *path);

/* ---- prec_kcache.c ---- */
/* Load the kernel's own symbols from the cache into d (sets kc, kcover_hi, kpartial): 0, or
 * -ENOENT / -EBADMSG / -ENOMEM when there is no usable cache file. */
int prec_kcache_load(struct prec_dso *d);
/* Look `a` up in d->kc: 0 (name interned), -ENOENT, or -EIO / -ENOMEM. */
int prec_kcache_lookup(struct prec_dso *d, uint64_t a, struct prec_sym *ret);
void prec_kcache_free(struct prec_kcache *kc); /* NULL-safe */
/* After a full load of opts.proc_kallsyms into d: write the cache file (errors ignored). */
void prec_kcache_store(const struct prec_dso *d);

/* ---- prec_dwarf.c ---- */
void prec_dwarf__free(struct prec_dwarf *dw);
/* The .debug_frame CFI of the DWARF file, or NULL. */
Dwarf_CFI *prec_dwarf__cfi(struct prec_dwarf *dw);

/* ---- prec_unwind.c ---- */
void prec_dso__cfi_free(struct prec_dso *d);
/* Finds a file with DWARF for d (d->elf, else a debug file) the first time. */
int prec_dwarf__open(struct prec_dso *d);

/* ---- prec_dsoload.c, used by prec_dwarf.c ---- */
/* Open the separate debug file for d (by build-id, then .gnu_debuglink); PREC_OPEN_OK with
 * *ret and *ret_path set, else MISSING. */
enum prec_open_result prec_dso__open_debug_file(struct prec_dso *d, struct prec_elf *ret,
						const char **ret_path);

#endif
