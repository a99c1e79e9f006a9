/* SPDX-License-Identifier: MIT */
/*
 * From an address in a DSO to its symbol: a file offset to the DSO's address space through
 * its segments, the binary search over the sorted symbol array (prec_symvec.c), the kernel's
 * symbol cache and its fallback to the live table, the kernel's __pfx_ padding, the name
 * shown (demangled as perf does), and the linkage names behind demangled ones.
 *
 * Invariants: a DSO's symbol array is sorted by start, holds one symbol per start address,
 * and each entry's `up` names the nearest earlier entry whose range reaches past its start, so
 * a lookup is one binary search plus a walk up nested ranges (none in ordinary files).  A
 * lookup allocates nothing, except the demangled name of a symbol it returns for the first time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "prec_log.h"
#include "prec_symbol_int.h"

#ifdef PREC_HAVE_DEMANGLE
#include <libiberty/demangle.h>
#endif

uint64_t prec_dso__off_to_vaddr(const struct prec_dso *d, uint64_t off)
{
	const struct prec_seg *best = NULL;
	uint32_t i;

	if (d->kind != PREC_DSO_KIND_ELF && d->kind != PREC_DSO_KIND_VDSO)
		return off;
	for (i = 0; i < d->nsegs; i++) {
		const struct prec_seg *s = &d->segs[i];

		if (off >= s->off && off - s->off < s->filesz)
			return off - s->off + s->vaddr;
		if (off >= s->off && (!best || s->off > best->off))
			best = s;
	}
	return best ? off - best->off + best->vaddr : off;
}

#ifdef PREC_HAVE_DEMANGLE
char *prec_demangle(const char *name)
{
	static const char plt[] = "@plt";
	size_t len, dlen, n = sizeof(plt) - 1;
	char *base, *dm, *ret;

	/* what libiberty's demangler (Rust first, then C++) takes; perf hands it every name */
	if (strncmp(name, "_Z", 2) && strncmp(name, "_R", 2) && strncmp(name, "_GLOBAL_", 8))
		return NULL;
	len = strlen(name);
	if (len <= n || strcmp(name + len - n, plt))
		return cplus_demangle(name, DMGL_NO_OPTS);
	/* perf demangles a PLT entry's symbol, then appends "@plt" (without parameters the
	 * demangler ignores what follows the name, so "@plt" would be lost) */
	base = strndup(name, len - n);
	dm = base ? cplus_demangle(base, DMGL_NO_OPTS) : NULL;
	free(base);
	if (!dm)
		return NULL;
	dlen = strlen(dm);
	ret = malloc(dlen + n + 1);
	if (ret) {
		memcpy(ret, dm, dlen);
		memcpy(ret + dlen, plt, n + 1);
	}
	free(dm);
	return ret;
}
#else
char *prec_demangle(const char *name)
{
	(void)name;
	return NULL;
}
#endif

static struct prec_syment *find_sym(const struct prec_dso *d, uint64_t a)
{
	uint32_t lo = 0, hi = d->nsyms, i;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (d->syms[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	for (i = lo - 1; i != PREC_NO_UP; i = d->syms[i].up) {
		struct prec_syment *e = &d->syms[i];

		if (prec_sym_holds(e->start, e->end, a))
			return e;
	}
	return NULL;
}

/* The entry of d that starts at `a` and whose name has been shown, or NULL. */
static const struct prec_syment *sym_at(const struct prec_dso *d, uint64_t a)
{
	uint32_t lo = prec_syments_lower_bound(d->syms, d->nsyms, a);

	for (; lo < d->nsyms && d->syms[lo].start == a; lo++) /* PLT entries may share it */
		if (d->syms[lo].flags & PREC_SYMENT_SHOWN)
			return &d->syms[lo];
	return NULL;
}

/* Settle the name of symbol `e` of `d` for showing: demangled where perf demangles it (ELF
 * files, not the kernel or JIT maps), once. */
static void show_name(struct prec_dso *d, struct prec_syment *e)
{
	char *dm;
	const char *s;

	e->flags |= PREC_SYMENT_SHOWN;
	if (d->kintern) { /* see kernel_cover() */
		s = prec_symtab__intern(d->st, e->name);
		if (s)
			e->name = s;
		return;
	}
	if (d->st->opts.no_demangle || (d->kind != PREC_DSO_KIND_ELF && d->kind != PREC_DSO_KIND_VDSO))
		return;
	dm = prec_demangle(e->name);
	if (!dm)
		return;
	s = prec_symtab__intern(d->st, dm); /* on -ENOMEM the mangled name stays */
	free(dm);
	if (s) {
		e->name = s;
		e->flags |= PREC_SYMENT_DEMANGLED;
	}
}

/*
 * Kernel symbols from the cache cover the kernel image and what lies below it: for an
 * address above, read the live table after all (once), which also has modules, BPF and
 * trampolines.  The cache handed out interned names; the live table's are interned too when
 * first shown, so that a function looked up before and after is one name, one report entry.
 * If the read fails, addresses above stay unknown.
 */
static void kernel_cover(struct prec_dso *d, uint64_t a)
{
	if (!d->kpartial || a < d->kcover_hi)
		return;
	d->kpartial = false;
	prec_log(PREC_LOG_INFO, "kernel address %#" PRIx64 " is outside the cached symbols: "
		 "reading %s", a, d->st->opts.proc_kallsyms);
	if (!prec_kallsyms_load(d, d->st->opts.proc_kallsyms) && d->nsyms) {
		prec_kcache_free(d->kc);
		d->kc = NULL;
		d->kintern = true;
		return;
	}
	free(d->syms);
	free(d->image);
	d->image = NULL;
	d->syms = NULL;
	d->nsyms = 0;
}

/* The symbol holding `v` in d's own address space: 0 or -ENOENT. */
static int lookup_at(struct prec_dso *d, uint64_t v, struct prec_sym *ret)
{
	struct prec_syment *e;

	kernel_cover(d, v);
	if (d->kc) /* its read errors too leave the address unknown */
		return prec_kcache_lookup(d, v, ret) ? -ENOENT : 0;
	e = find_sym(d, v);
	if (!e)
		return -ENOENT;
	if (!(e->flags & PREC_SYMENT_SHOWN))
		show_name(d, e);
	ret->name = e->name;
	ret->start = e->start;
	ret->size = e->end - e->start;
	return 0;
}

/*
 * The kernel pads each function with 16 bytes of NOPs before it, named __pfx_<function> in
 * kallsyms (__cfi_<function> with kCFI, where they hold its type check).  They are the next
 * function's: an address there, or a return address at a function's first byte (looked up at
 * the byte before: an interrupted address in the middle of a chain), is that function.
 */
static bool kernel_prefix(const struct prec_dso *d, const struct prec_sym *s)
{
	return d->kind == PREC_DSO_KIND_KERNEL && s->size && s->start + s->size > s->start &&
	       (prec_has_prefix(s->name, "__pfx_") || prec_has_prefix(s->name, "__cfi_"));
}

int prec_dso__lookup(struct prec_dso *d, uint64_t addr, struct prec_sym *ret, uint64_t *ret_vaddr)
{
	struct prec_sym s, next;
	uint64_t v;

	if (d->status != PREC_DSO_OK) {
		if (d->status == PREC_DSO_UNLOADED)
			prec_dso__load(d);
		if (d->status != PREC_DSO_OK) {
			if (ret_vaddr)
				*ret_vaddr = addr;
			return -ENOENT;
		}
	}
	v = prec_dso__off_to_vaddr(d, addr);
	if (ret_vaddr)
		*ret_vaddr = v;
	if (lookup_at(d, v, &s))
		return -ENOENT;
	if (kernel_prefix(d, &s) && !lookup_at(d, s.start + s.size, &next) &&
	    next.start == s.start + s.size)
		s = next;
	if (ret)
		*ret = s;
	return 0;
}

const char *prec_dso__kernel_module(struct prec_dso *d, uint64_t addr)
{
	const struct prec_syment *e;

	if (d->kind != PREC_DSO_KIND_KERNEL || prec_dso__status(d) != PREC_DSO_OK)
		return NULL;
	kernel_cover(d, addr);
	if (d->kc) /* the kernel's own symbols: no module */
		return NULL;
	e = find_sym(d, addr);
	if (!e || !e->module || e->module > d->st->nmodules)
		return NULL;
	return d->st->modules[e->module - 1];
}

static bool has_suffix(const char *s, const char *x)
{
	size_t n = strlen(s), m = strlen(x);

	return n >= m && !memcmp(s + n - m, x, m);
}

int prec_dso__linkage_names(struct prec_dso *d, const uint64_t *starts, size_t n, const char **ret)
{
	const char **want = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct prec_syment *e = NULL;

		if (d->status == PREC_DSO_OK && !d->kc)
			e = sym_at(d, starts[i]);
		ret[i] = e ? e->name : NULL;
		if (!e || !(e->flags & PREC_SYMENT_DEMANGLED))
			continue;
		ret[i] = NULL;
		if (has_suffix(e->name, "@plt")) /* named after a relocation, not in the table */
			continue;
		if (!want) {
			want = calloc(n, sizeof(*want));
			if (!want)
				return -ENOMEM;
		}
		want[i] = e->name;
	}
	if (want && d->elf)
		prec_elf_linkage_names(d, starts, want, n, ret);
	free(want);
	return 0;
}
