/* SPDX-License-Identifier: MIT */
/*
 * Symbolization: one prec_dso per distinct binary (keyed by path + build-id), kernel, or JIT
 * map, each loaded once, lazily, on its first lookup.  ELF symbols come from .symtab (else
 * .dynsym) through libelf into one sorted array per DSO; libdw is opened only when inline
 * frames or source lines are asked for, and its answers are cached per address.
 *
 * Addresses: for an ELF DSO, lookups take a FILE OFFSET (sample ip - map start + map pgoff);
 * the DSO turns it into its own virtual address through its PT_LOAD headers.  For the kernel
 * and JIT DSOs they take the absolute address.
 *
 * A binary that cannot be found, whose build-id differs from the recorded one (or, when none
 * was recorded, whose device and inode do), that is not a regular file, is huge (over 8 GiB),
 * or is malformed is never trusted: its lookups return -ENOENT and prec_dso__status() says
 * why.  Nothing here prints: warnings go through
 * prec_log(), one line per refused file.
 *
 * Strings returned (names, paths) are owned by the symtab and live until prec_symtab__free().
 * Not thread-safe, except for the background loader below.
 */
#ifndef PREC_SYMBOL_H
#define PREC_SYMBOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct prec_symtab;
struct prec_dso;

struct prec_symtab_opts {
	const char *symfs; /* --symfs DIR: look for every binary under DIR only; NULL: none */
	const char *kallsyms; /* --kallsyms FILE; NULL: /proc/kallsyms if use_proc_kallsyms */
	bool use_proc_kallsyms; /* the recording was made on this host (and kernel) */
	const char *debug_dir; /* default "/usr/lib/debug"; for tests */
	const char *jit_dir; /* where perf-PID.map files are; default "/tmp" */
	bool no_demangle; /* --no-demangle: C++ and Rust names of ELF symbols as mangled */
	/* where the kernel symbol cache is (see prec_kcache.c); NULL: no cache */
	const char *cache_dir;
	/* for tests: default "/proc/kallsyms" and "/proc/sys/kernel/random/boot_id" */
	const char *proc_kallsyms;
	const char *boot_id_file;
};

int prec_symtab__new(const struct prec_symtab_opts *opts, struct prec_symtab **ret);

/*
 * Whether `path` can serve as opts.kallsyms: 0 when it is a readable regular file whose
 * first line reads "ADDRESS TYPE NAME"; else -errno of open or read, -EINVAL when it is not a
 * regular file, -ENODATA when it is empty, -EBADMSG when its first line is not of that form.
 */
int prec_kallsyms_check(const char *path);
void prec_symtab__free(struct prec_symtab *st); /* NULL-safe; frees every DSO */

/*
 * The DSO for a file mapped by a process, as recorded in MMAP/MMAP2 (`path` as recorded;
 * `build_id` may be NULL / 0 bytes when the recording has none; zero padding to 20 bytes is
 * tolerated).  The same (path, build-id) gives the same DSO.  NULL only on -ENOMEM.  Nothing
 * is opened until the first lookup.  The file is looked for at path, or only at --symfs + path
 * when opts.symfs is set (each also without a " (deleted)" suffix when a build-id was recorded
 * to prove the file there), and its symbols, when it has no .symtab, in
 * <debug_dir>/.build-id/xx/yyyy.debug (under --symfs), then through .gnu_debuglink.
 * Special paths ("[vdso]", "[heap]", "//anon", "[stack]", "/memfd:...") give a DSO whose
 * status is PREC_DSO_NO_FILE (except "[vdso]", which is this host's vdso when
 * opts.use_proc_kallsyms is set and the build-id, if recorded, matches; otherwise also
 * NO_FILE).  A path starting with "[kernel.kallsyms]" gives prec_symtab__kernel().
 */
struct prec_dso *prec_symtab__dso(struct prec_symtab *st, const char *path, const uint8_t *build_id,
				  size_t build_id_len);

/* The identity of a mapped file as an MMAP2 record (inode form) gives it: the device the
 * kernel saw (major, minor), the inode and its generation.  ino 0: not recorded; gen 0: not
 * known (maps read from /proc/PID/maps have none). */
struct prec_file_id {
	uint32_t maj, min;
	uint64_t ino, gen;
};

/*
 * As prec_symtab__dso(), for a map whose record also gave the file's identity (`id` may be
 * NULL).  Without a build-id, the identity tells files apart (one DSO per path, device and
 * inode) and proves the file: the one found at the recorded path on this host is used only
 * when its device and inode are the recorded ones, and its generation where both are known
 * (the one given when the DSO was made).  A device that differs only as overlayfs and btrfs
 * make it differ, an anonymous device on one side, is accepted.  Else the status is
 * PREC_DSO_FILE_CHANGED.  A file under
 * --symfs cannot be proved so and is trusted; with a build-id, the build-id decides.  A
 * path ending in " (deleted)" is opened under its old name only to find a recorded build-id;
 * without one the status is PREC_DSO_DELETED.
 */
struct prec_dso *prec_symtab__dso_file(struct prec_symtab *st, const char *path,
				       const uint8_t *build_id, size_t build_id_len,
				       const struct prec_file_id *id);
/* The kernel ("[kernel.kallsyms]"): symbols from kallsyms (see opts); absolute addresses. */
struct prec_dso *prec_symtab__kernel(struct prec_symtab *st);
/* JIT code of process `pid`: <jit_dir>/perf-PID.map if it exists, is a regular file and
 * belongs to root or to us (absolute addresses).  perf uses it for anonymous executable
 * mappings ("//anon", "/memfd:..."), so callers ask it for those.  Sizes are honoured as perf
 * does: a zero-size entry covers its start only; the last entry for an address wins.  The
 * directory is listed at the first call: a map written after that is not seen. */
struct prec_dso *prec_symtab__jit(struct prec_symtab *st, uint32_t pid);
/* False when the listing of the directory (made at the first call here or above) shows no
 * perf-PID.map: prec_symtab__jit() would give a DSO without symbols, not worth making. */
bool prec_symtab__jit_may_exist(struct prec_symtab *st, uint32_t pid);

/*
 * Background loading, to read symbol tables on another CPU while the caller reads samples:
 * prec_symtab__loader_start() starts one thread that loads the DSOs handed to
 * prec_symtab__prefetch(), in that order.  Until prec_symtab__loader_stop() returns, the
 * caller may call prec_symtab__dso/kernel/jit, prefetch and the name functions, and ask
 * status and lookups only of DSOs it never prefetched.  stop() loads what is still queued,
 * on the caller's thread and the loader's at once, then ends the thread.  Without start(),
 * prefetch() does nothing.  start() returns 0 or -errno (then there is no loader).
 */
int prec_symtab__loader_start(struct prec_symtab *st);
void prec_symtab__prefetch(struct prec_symtab *st, struct prec_dso *d);
void prec_symtab__loader_stop(struct prec_symtab *st); /* no-op without a loader */
/*
 * For another thread of the caller's that looks DSOs up while the caller reads on: a DSO
 * that prec_symtab__prefetch() queued (prec_dso__prefetched()) may be looked up there once
 * prec_symtab__loader_settled() has said that all queued DSOs are loaded, as long as the
 * caller keeps its promise not to touch it before stop().  Call both before stop().
 */
bool prec_symtab__loader_settled(struct prec_symtab *st);
/* Before start(): the loader also opens each DSO's debug information, for a caller that will
 * ask for inlined functions or source lines (prec_dso__inlines(), prec_dso__srcline()). */
void prec_symtab__loader_dwarf(struct prec_symtab *st);
bool prec_dso__prefetched(const struct prec_dso *d);

enum prec_dso_status {
	PREC_DSO_UNLOADED = 0,	   /* no lookup yet */
	PREC_DSO_OK,		   /* symbols loaded */
	PREC_DSO_NOT_FOUND,	   /* no file at the recorded path, in --symfs, or by build-id */
	PREC_DSO_BUILDID_MISMATCH, /* the file found has another build-id than recorded */
	PREC_DSO_NO_SYMBOLS,	   /* found, but neither .symtab nor .dynsym has function symbols */
	PREC_DSO_BAD_FILE,	   /* not a regular file, too big, or not a valid ELF */
	PREC_DSO_NO_FILE,	   /* anonymous memory, [heap], [stack], ... */
	PREC_DSO_FILE_CHANGED,	   /* no build-id, and the file at the path is another inode */
	PREC_DSO_DELETED, /* no build-id, and the path was " (deleted)" when it was mapped */
};

/* Loads the DSO if needed, then says how it went. */
enum prec_dso_status prec_dso__status(struct prec_dso *d);
/* One-line reason for a status, e.g. "build-id mismatch", for the report. */
const char *prec_dso_status__str(enum prec_dso_status s);

/* The name perf shows in its Shared Object column: the basename ("libc.so.6", "demo"),
 * "[kernel.kallsyms]", "[vdso]", "perf-1234.map", "[unknown]" for anonymous memory. */
const char *prec_dso__short_name(const struct prec_dso *d);
/* The path as recorded ("/usr/lib/x86_64-linux-gnu/libc.so.6", "[kernel.kallsyms]", ...). */
const char *prec_dso__long_name(const struct prec_dso *d);
/* The file actually read for symbols (may be a debug file), or NULL. Loads if needed. */
const char *prec_dso__file_used(struct prec_dso *d);
bool prec_dso__is_kernel(const struct prec_dso *d);
/* The build-id recorded for the DSO, else that of the file found for it (once loaded): its
 * length (0: none) and *ret its bytes, owned by the DSO. */
size_t prec_dso__build_id(const struct prec_dso *d, const uint8_t **ret);
/* For the kernel DSO: the module whose symbol covers `addr` ("[ext4]", as perf's Shared
 * Object column shows it), or NULL for vmlinux, unknown addresses and other DSOs. */
const char *prec_dso__kernel_module(struct prec_dso *d, uint64_t addr);

struct prec_sym {
	const char *name; /* as perf shows it: ELF symbols demangled (see prec_demangle()) */
	uint64_t start; /* in the DSO's own address space (ELF vaddr / absolute for kernel+JIT) */
	uint64_t size;
};

/*
 * The function containing `addr` (file offset for ELF DSOs, absolute otherwise).
 * 0 and *ret filled (ret may be NULL); -ENOENT when the DSO is unusable or no symbol covers
 * addr.  Symbols and aliases are chosen as perf does; PLT entries are "name@plt" and the PLT
 * header ".plt".  The name of an ELF symbol is demangled, unless opts.no_demangle, when a
 * lookup first returns it (and kept); otherwise a lookup allocates nothing.
 * A symbol covers [start, start + size); a symbol of size 0 covers up to the next symbol, like
 * perf.  Also gives `*ret_vaddr` (the address in the DSO's own space: the ELF vaddr that
 * objdump and addr2line use) when ret_vaddr is not NULL, even on -ENOENT when the DSO loaded
 * (else addr itself).  Note that perf report prints an unresolved user address as
 * [.] 0x<addr>, the file offset (its map_ip), not this vaddr; the two are equal for the text
 * of usual PIEs and shared libraries, not for non-PIE executables.
 */
int prec_dso__lookup(struct prec_dso *d, uint64_t addr, struct prec_sym *ret, uint64_t *ret_vaddr);

/*
 * The linkage names of d's functions that start at starts[0..n) (ascending, each the `start`
 * of a successful prec_dso__lookup()): into ret[i] the name as the symbol table spells it,
 * before demangling (pprof's system_name), owned by the symtab.  It is the name lookups
 * return where that was not demangled (C, the kernel, JIT maps, --no-demangle); NULL where
 * no function starts there or, for a PLT entry, none in the table is named so.  Reads the
 * symbol table once more only for a DSO with demangled names among them.  0 or -ENOMEM.
 */
int prec_dso__linkage_names(struct prec_dso *d, const uint64_t *starts, size_t n, const char **ret);

/* ---- unwinding sampled user stacks (--call-graph dwarf), x86-64 ---- */

/* Registers by DWARF number (0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15
 * r8-r15, 16 rip); bit n of `valid` says r[n] is known. */
#define PREC_UNWIND_NREGS 17
struct prec_unwind_regs {
	uint64_t r[PREC_UNWIND_NREGS];
	uint32_t valid;
};

/* A sample's user registers (perf's x86 sample_regs_user `mask`, values in bit order) into
 * *ret; -EINVAL when rip or rsp is missing. */
int prec_unwind_regs_x86_64(struct prec_unwind_regs *ret, uint64_t mask, const uint64_t *vals);

/* The DSO mapped at `pc` in the sampled process and the file offset of pc in it; NULL for
 * none (or anonymous memory). */
typedef struct prec_dso *(*prec_unwind_find_fn)(void *arg, uint64_t pc, uint64_t *ret_off);

/*
 * Unwind a sampled user stack with the call frame information of the DSOs (.eh_frame of the
 * executable file, else .debug_frame): writes the pcs, leaf first, to pcs (at most max):
 * regs' rip, then return addresses.  `stack` is the sampled copy of the stack from regs' rsp
 * on, stack_len bytes; nothing else is read.  Stops at the first frame it cannot get past
 * (no CFI, a value outside the copy, the outermost frame).  Returns how many pcs; with
 * ret_truncated (may be NULL), whether it stopped because the copy ended before the caller's
 * frame (a broken stack: a larger copy would have gone on).  Loads the DSOs it needs: none of
 * them may be waiting for the background loader.
 */
size_t prec_unwind(const struct prec_unwind_regs *regs, const void *stack, uint64_t stack_len,
		   prec_unwind_find_fn find, void *arg, uint64_t *pcs, size_t max,
		   bool *ret_truncated);

/*
 * The name perf report shows for the ELF symbol `name`, malloc'd, or NULL when it is not a
 * mangled name (or on -ENOMEM, or when built without demangling): C++ and Rust names
 * demangled as perf does (libiberty, no options: no parameter list, no return type, no clone
 * suffix such as ".isra.0"), and "@plt" kept on PLT entries ("_ZdlPv@plt" -> "operator
 * delete@plt").  The kernel's and JIT maps' names are not demangled (nor by perf).
 */
char *prec_demangle(const char *name);

/*
 * Inline frames at `addr` (same address space as lookup), from libdw: the functions inlined
 * into the one that prec_dso__lookup() finds, innermost first, at most `max`.  Each is a
 * name (owned by the symtab) and, when known, the position "file.c:LINE" inside that frame
 * that is executing: for ret[0] the line of `addr` itself (= prec_dso__srcline()), for
 * ret[i] the call site where ret[i - 1] was inlined.  The name is the one perf shows: the
 * function's linkage name demangled like ELF symbols (opts.no_demangle: as it is), else its
 * DWARF name (C).  Names without parameters can be equal for different functions
 * (overloads; static functions of two files): `id` tells them apart, and is the same
 * wherever one function was inlined.  Returns the number of frames written (0 when none or
 * no debug info), or -ENOMEM.
 */
struct prec_inline_frame {
	const char *name;
	const char *linkage; /* its DWARF linkage name (pprof's system_name), NULL: none (C) */
	const char *srcline; /* where this frame's code is ("file.c:12"), or NULL */
	const char *path; /* srcline's file with the directory the debug info gives, or NULL */
	uint64_t id; /* the function's: a hash of its linkage name (else name) and declaration */
	int decl_line; /* the line where the function is declared; 0: unknown */
};
int prec_dso__inlines(struct prec_dso *d, uint64_t addr, struct prec_inline_frame *ret, size_t max);

/* Source line of `addr` as "file.c:LINE" (basename, like perf's srcline), or NULL when there
 * is no line info.  Cached per address. */
const char *prec_dso__srcline(struct prec_dso *d, uint64_t addr);
/* The position "file.c:LINE" executing at `addr` in the function prec_dso__lookup() finds
 * there: where the outermost function of prec_dso__inlines() was inlined into it, else
 * prec_dso__srcline(); NULL when not known.  *ret_decl_line: the line where that function
 * is declared, 0 when not known; *ret_path: the position's file with the directory the debug
 * info gives (NULL when not known).  Cached per address. */
const char *prec_dso__outer_srcline(struct prec_dso *d, uint64_t addr, int *ret_decl_line,
				    const char **ret_path);
/* Whether d's debug information is open (by the loader, or by one of the three above).  Then
 * those three touch only the debug information and the symtab's strings: one thread may ask
 * them while another looks d up (prec_dso__lookup()). */
bool prec_dso__dwarf_open(const struct prec_dso *d);

#endif
