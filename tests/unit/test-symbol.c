/* SPDX-License-Identifier: MIT */
/*
 * Tests lib/symbol on real files.  At run time it compiles small C programs with `cc` into a
 * temporary directory; each program prints the file offsets of its own functions as a
 * profiler sees them (address - mapping start + mapping offset, from /proc/self/maps), and
 * the test looks those offsets up.  Covered: a PIE with sized, zero-size and aliased symbols
 * and a gap; the same binary stripped with its debug file under .build-id/ and via
 * .gnu_debuglink; a build-id mismatch; a missing file; a FIFO, a directory, garbage,
 * truncated and randomly corrupted ELF files; a kallsyms file with a module and an
 * all-zero one; a perf-PID.map; inline frames and source lines of an -O2 -g program; this
 * process's libc and vdso.  Skipped when there is no C compiler.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <linux/fs.h>

#include "prec_log.h"
#include "prec_symbol.h"
#include "tap.h"

#if __has_include(<gnu/lib-names.h>)
#include <gnu/lib-names.h>
#endif
#ifndef LIBC_SO
#define LIBC_SO "libc.so.6"
#endif

static char tmp[PATH_MAX / 2];

/* ---- helpers ---- */

static char logbuf[16384], infobuf[16384];

static void capture_log(enum prec_log_level level, const char *msg, void *ctx)
{
	char *b = level <= PREC_LOG_WARN ? logbuf : infobuf;
	size_t n = strlen(b);

	if (level <= PREC_LOG_INFO)
		snprintf(b + n, sizeof(logbuf) - n, "%s\n", msg);
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	r = system(cmd);
	if (r != 0)
		diag("command failed (%d): %s", r, cmd);
	return r;
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		diag("cannot write %s: %s", path, strerror(errno));
		abort();
	}
}

static char *read_all(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	do {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap + 1);
			if (!buf)
				abort();
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	fclose(f);
	buf[len] = 0;
	if (ret_len)
		*ret_len = len;
	return buf;
}

/* The GNU build-id of an ELF64 little-endian file, from its PT_NOTE segments. */
static size_t build_id_of(const char *path, uint8_t *out, size_t max)
{
	size_t len, ret = 0;
	unsigned char *f = (unsigned char *)read_all(path, &len);
	uint64_t phoff;
	uint16_t phentsize, phnum, i;

	if (!f || len < 64 || memcmp(f, "\177ELF", 4) || f[4] != 2 || f[5] != 1)
		goto out;
	memcpy(&phoff, f + 32, 8);
	memcpy(&phentsize, f + 54, 2);
	memcpy(&phnum, f + 56, 2);
	for (i = 0; i < phnum && phoff + (uint64_t)(i + 1) * phentsize <= len; i++) {
		const unsigned char *ph = f + phoff + (size_t)i * phentsize;
		uint32_t type;
		uint64_t off, sz, pos;

		memcpy(&type, ph, 4);
		memcpy(&off, ph + 8, 8);
		memcpy(&sz, ph + 32, 8);
		if (type != 4 /* PT_NOTE */ || off > len || sz > len - off)
			continue;
		for (pos = off; pos + 12 <= off + sz;) {
			uint32_t namesz, descsz, ntype;

			memcpy(&namesz, f + pos, 4);
			memcpy(&descsz, f + pos + 4, 4);
			memcpy(&ntype, f + pos + 8, 4);
			pos += 12;
			if (ntype == 3 && namesz == 4 && pos + 4 + descsz <= off + sz &&
			    !memcmp(f + pos, "GNU", 4) && descsz <= max) {
				memcpy(out, f + pos + 4, descsz);
				ret = descsz;
				goto out;
			}
			pos += ((namesz + 3) & ~3u) + ((descsz + 3) & ~3u);
		}
	}
out:
	free(f);
	return ret;
}

/* "name offset" lines printed by a test program. */
struct offs {
	char name[16][64];
	uint64_t off[16];
	int n;
};

static bool run_offsets(const char *exe, struct offs *o)
{
	char out[PATH_MAX], *text, *line, *save = NULL;

	memset(o, 0, sizeof(*o));
	snprintf(out, sizeof(out), "%s.out", exe);
	if (sh("'%s' > '%s'", exe, out))
		return false;
	text = read_all(out, NULL);
	if (!text)
		return false;
	for (line = strtok_r(text, "\n", &save); line && o->n < 16;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%63s %" SCNx64, o->name[o->n], &o->off[o->n]) == 2)
			o->n++;
	}
	free(text);
	return o->n > 0;
}

static uint64_t off_of(const struct offs *o, const char *name)
{
	int i;

	for (i = 0; i < o->n; i++)
		if (!strcmp(o->name[i], name))
			return o->off[i];
	diag("no offset printed for %s", name);
	return 0;
}

/* Lookup of `off` names `want`; returns the symbol through *ret when given. */
static bool lookup_is(struct prec_dso *d, uint64_t off, const char *want, const char *what,
		      struct prec_sym *ret)
{
	struct prec_sym s = { 0 };
	int err = prec_dso__lookup(d, off, &s, NULL);

	if (ret)
		*ret = s;
	if (!ok(err == 0 && s.name && !strcmp(s.name, want), "%s: %#" PRIx64 " is %s", what, off,
		want)) {
		diag("  got err %d name %s", err, s.name ? s.name : "(null)");
		return false;
	}
	return true;
}

/* ---- the programs ---- */

static const char offs_h[] =
    "#include <stdio.h>\n"
    "#include <stdint.h>\n"
    "#include <string.h>\n"
    "static void print_off(const char *name, const void *p)\n"
    "{\n"
    "\tuintptr_t a = (uintptr_t)p;\n"
    "\tunsigned long long lo, hi, pgoff;\n"
    "\tchar line[4096];\n"
    "\tFILE *f = fopen(\"/proc/self/maps\", \"r\");\n"
    "\twhile (f && fgets(line, sizeof(line), f)) {\n"
    "\t\tif (sscanf(line, \"%llx-%llx %*s %llx\", &lo, &hi, &pgoff) == 3 && a >= lo && a < hi) {\n"
    "\t\t\tprintf(\"%s %llx\\n\", name, (unsigned long long)(a - lo + pgoff));\n"
    "\t\t\tbreak;\n"
    "\t\t}\n"
    "\t}\n"
    "\tif (f)\n"
    "\t\tfclose(f);\n"
    "}\n";

/* Sized C functions, then assembler symbols: a zero-size one, a gap, and alias groups. */
static const char prog_c[] =
    "#include \"offs.h\"\n"
    "int fn_alpha(int x) __attribute__((noinline));\n"
    "int fn_alpha(int x) { return x * 3 + 1; }\n"
    "int fn_beta(int x) __attribute__((noinline));\n"
    "int fn_beta(int x) { return fn_alpha(x) - 2; }\n"
    "static int fn_local(int x) __attribute__((noinline));\n"
    "int cxx_fn(int x) __asm__(\"_ZNK2ns5StackIiE4peekEi\") __attribute__((noinline));\n"
    "int cxx_fn(int x) { return x + 7; }\n"
    "static int fn_local(int x) { return fn_beta(x) ^ 5; }\n"
    "__asm__(\".text\\n.p2align 6\\n\"\n"
    "\t\".globl zsym\\n.type zsym, STT_FUNC\\nzsym:\\n.fill 32,1,0\\n\"\n"
    "\t\".globl after_zsym\\n.type after_zsym, STT_FUNC\\nafter_zsym:\\n.fill 1,1,0\\n"
    ".size after_zsym, 1\\n\"\n"
    "\t\".p2align 6\\n\"\n"
    "\t\".globl gap_after\\n.type gap_after, STT_FUNC\\ngap_after:\\n.fill 16,1,0\\n"
    ".size gap_after, 16\\n\"\n"
    "\t\".globl __real_impl_alias\\n.type __real_impl_alias, STT_FUNC\\n\"\n"
    "\t\".weak weak_alias\\n.type weak_alias, STT_FUNC\\n\"\n"
    "\t\".globl real_impl\\n.type real_impl, STT_FUNC\\n\"\n"
    "\t\"__real_impl_alias:\\nweak_alias:\\nreal_impl:\\n.fill 16,1,0\\n\"\n"
    "\t\".size real_impl, 16\\n.size weak_alias, 16\\n.size __real_impl_alias, 16\\n\"\n"
    "\t\".globl ab\\n.type ab, STT_FUNC\\n.globl abcd\\n.type abcd, STT_FUNC\\n\"\n"
    "\t\"ab:\\nabcd:\\n.fill 16,1,0\\n.size ab, 16\\n.size abcd, 16\\n\"\n"
    "\t\".globl zero_alias\\n.type zero_alias, STT_FUNC\\n\"\n"
    "\t\".globl sized_alias\\n.type sized_alias, STT_FUNC\\n\"\n"
    "\t\"zero_alias:\\nsized_alias:\\n.fill 16,1,0\\n.size sized_alias, 16\\n\"\n"
    "\t\".globl tail_fn\\n.type tail_fn, STT_FUNC\\ntail_fn:\\n.fill 16,1,0\\n"
    ".size tail_fn, 16\\n\"\n"
    "\t\".weak _ZN2ns3oneEv\\n.type _ZN2ns3oneEv, STT_FUNC\\n\"\n"
    "\t\".globl _ZN2ns3twoEv\\n.type _ZN2ns3twoEv, STT_FUNC\\n\"\n"
    "\t\"_ZN2ns3oneEv:\\n_ZN2ns3twoEv:\\n.fill 16,1,0\\n.size _ZN2ns3oneEv, 16\\n"
    ".size _ZN2ns3twoEv, 16\\n\");\n"
    "extern char zsym[], after_zsym[], gap_after[], real_impl[], ab[], sized_alias[];\n"
    "extern char cxx_alias[] __asm__(\"_ZN2ns3twoEv\");\n"
    "int main(int argc, char **argv)\n"
    "{\n"
    "\tprint_off(\"fn_alpha\", (void *)fn_alpha);\n"
    "\tprint_off(\"fn_beta\", (void *)fn_beta);\n"
    "\tprint_off(\"fn_local\", (void *)fn_local);\n"
    "\tprint_off(\"main\", (void *)main);\n"
    "\tprint_off(\"zsym\", zsym);\n"
    "\tprint_off(\"after_zsym\", after_zsym);\n"
    "\tprint_off(\"gap_after\", gap_after);\n"
    "\tprint_off(\"real_impl\", real_impl);\n"
    "\tprint_off(\"ab\", ab);\n"
    "\tprint_off(\"sized_alias\", sized_alias);\n"
    "\tprint_off(\"puts_plt\", (void *)puts);\n"
    "\tprint_off(\"cxx_fn\", (void *)cxx_fn);\n"
    "\tprint_off(\"cxx_alias\", cxx_alias);\n"
    "\treturn fn_local(argc) == 12345;\n"
    "}\n";

/* Two levels of forced inlining; the line numbers are checked below. */
static const char inl_c[] = "#include \"offs.h\"\n"   /* 1 */
			    "volatile int g_k = 3;\n" /* 2 */
			    "static inline __attribute__((always_inline)) int inl_inner(int v)\n"
			    "{\n"		       /* 4 */
			    "\treturn v * g_k + 11;\n" /* 5: INNER_LINE */
			    "}\n"		       /* 6 */
			    "static inline __attribute__((always_inline)) int inl_outer(int v)\n"
			    "{\n"					      /* 8 */
			    "\tint r = inl_inner(v + g_k);\n"		      /* 9: CALL_LINE */
			    "\treturn r ^ g_k;\n"			      /* 10 */
			    "}\n"					      /* 11 */
			    "__attribute__((noinline)) int outer_fn(int v)\n" /* 12 */
			    "{\n"					      /* 13 */
			    "\treturn inl_outer(v) + 1;\n"		      /* 14 */
			    "}\n"
			    "int main(int argc, char **argv)\n"
			    "{\n"
			    "\tprint_off(\"outer_fn\", (void *)outer_fn);\n"
			    "\treturn outer_fn(argc) == 7;\n"
			    "}\n";
#define INNER_LINE 5
#define CALL_LINE 9

/* C++: functions of one name in two namespaces, overloads, one function inlined twice. */
static const char inl_cc[] =
    "#include \"offs.h\"\n"
    "volatile unsigned long g_k = 3;\n"
    "namespace app {\n"
    "template <typename T> inline __attribute__((always_inline)) T mix(T x)\n"
    "{ return x * g_k + 11; }\n"
    "inline __attribute__((always_inline)) int ov(int x) { return x * (int)g_k + 1; }\n"
    "inline __attribute__((always_inline)) double ov(double x)\n"
    "{ return x * (double)g_k + 2.5; }\n"
    "}\n"
    "namespace other {\n"
    "template <typename T> inline __attribute__((always_inline)) T mix(T x)\n"
    "{ return x * g_k + 13; }\n"
    "}\n"
    "extern \"C\" __attribute__((noinline)) unsigned long cxx_outer(unsigned long x)\n"
    "{\n"
    "\tunsigned long a = app::mix(x);\n"
    "\tunsigned long b = other::mix(a);\n"
    "\tunsigned long c = app::mix(b ^ g_k);\n"
    "\tint i = app::ov((int)c);\n"
    "\tdouble d = app::ov((double)c);\n"
    "\treturn a + b + c + (unsigned long)i + (unsigned long)d;\n"
    "}\n"
    "int main(int argc, char **argv)\n"
    "{\n"
    "\t(void)argv;\n"
    "\tprint_off(\"cxx_outer\", (const void *)cxx_outer);\n"
    "\treturn cxx_outer((unsigned long)argc) == 7;\n"
    "}\n";

/* ---- tests ---- */

static struct prec_symtab *new_symtab(const char *debug_dir, const char *jit_dir,
				      const char *kallsyms, const char *symfs)
{
	struct prec_symtab_opts o = { 0 };
	struct prec_symtab *st = NULL;

	o.debug_dir = debug_dir;
	o.jit_dir = jit_dir;
	o.kallsyms = kallsyms;
	o.symfs = symfs;
	if (prec_symtab__new(&o, &st)) {
		diag("prec_symtab__new failed");
		abort();
	}
	return st;
}

#ifdef PREC_HAVE_DEMANGLE
#define CXX_SHOWN "ns::Stack<int>::peek"
#else
#define CXX_SHOWN "_ZNK2ns5StackIiE4peekEi" /* --disable-demangle */
#endif

/* prec_dso__linkage_names() of some functions of prog.c: the names of the symbol table,
 * demangled or not; of a C++ alias group, the alias shown (global over weak). */
static void linkage_names_are(struct prec_dso *d, const struct offs *o, const char *what)
{
	static const char *const fns[] = {"fn_alpha", "cxx_fn", "cxx_alias", "real_impl"};
	static const char *const want[] = {"fn_alpha", "_ZNK2ns5StackIiE4peekEi", "_ZN2ns3twoEv",
					   "real_impl"};
	uint64_t starts[4], t;
	const char *names[4], *w[4], *tw;
	struct prec_sym s;
	size_t i, k;
	int err;

	for (i = 0; i < 4; i++) {
		starts[i] = prec_dso__lookup(d, off_of(o, fns[i]), &s, NULL) ? 0 : s.start;
		w[i] = want[i];
		for (k = i; k > 0 && starts[k - 1] > starts[k]; k--) { /* ascending */
			t = starts[k];
			starts[k] = starts[k - 1];
			starts[k - 1] = t;
			tw = w[k];
			w[k] = w[k - 1];
			w[k - 1] = tw;
		}
	}
	err = prec_dso__linkage_names(d, starts, 4, names);
	is_u64((uint64_t)-err, 0, "%s: linkage names", what);
	for (i = 0; i < 4 && !err; i++)
		ok(names[i] && !strcmp(names[i], w[i]), "%s: linkage name %s (got %s)", what, w[i],
		   names[i] ? names[i] : "(null)");
}

/* A PIE (ET_DYN) or, with `exec`, a non-PIE executable (ET_EXEC) of prog.c. */
static void test_prog(const char *exe, const struct offs *o, bool exec)
{
	struct prec_symtab *st = new_symtab("/nonexistent", NULL, NULL, NULL);
	uint8_t bid[64];
	size_t bid_len = build_id_of(exe, bid, sizeof(bid));
	struct prec_dso *d = prec_symtab__dso(st, exe, bid_len ? bid : NULL, bid_len);
	struct prec_sym s;
	uint64_t v, z, a, g;
	static const char *const fns[] = {"fn_alpha", "fn_beta",    "fn_local", "main",
					  "zsym",     "after_zsym", "gap_after"};
	size_t i;
	int err;

	ok(d != NULL, "pie: dso created");
	ok(prec_symtab__dso(st, exe, bid_len ? bid : NULL, bid_len) == d,
	   "pie: same path and build-id give the same dso");
	ok(!strcmp(prec_dso__short_name(d), exec ? "prog-exec" : "prog"),
	   "pie: short name is the basename");
	is_u64(prec_dso__status(d), PREC_DSO_OK, "pie: symbols load");
	ok(prec_dso__file_used(d) && !strcmp(prec_dso__file_used(d), exe), "pie: file used");
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		uint64_t off = off_of(o, fns[i]);

		lookup_is(d, off, fns[i], "pie: start", &s);
		err = prec_dso__lookup(d, off, &s, &v);
		ok(!err && v == s.start, "pie: %s: vaddr of its start is the symbol start", fns[i]);
	}
	lookup_is(d, off_of(o, "fn_alpha") + 1, "fn_alpha", "pie: inside a function", NULL);

	/* a zero-size symbol reaches the next one, like perf's symbols__fixup_end() */
	z = off_of(o, "zsym");
	a = off_of(o, "after_zsym");
	g = off_of(o, "gap_after");
	lookup_is(d, z + 20, "zsym", "pie: inside a zero-size symbol", &s);
	is_u64(s.size, a - z, "pie: zero-size symbol ends where the next starts");
	/* between a sized symbol and the next one: nothing, but the vaddr is given */
	ok(g > a + 2, "pie: there is a gap after after_zsym");
	err = prec_dso__lookup(d, a + 2, &s, &v);
	is_u64((uint64_t)-err, ENOENT, "pie: an address in a gap has no symbol");
	prec_dso__lookup(d, a, &s, NULL);
	is_u64(v, s.start + 2, "pie: the vaddr is still given for a gap");

	/* aliases, perf's choose_best_symbol(): global over weak, fewer underscores, longer
	 * name, sized over zero-size */
	lookup_is(d, off_of(o, "real_impl") + 3, "real_impl", "pie: alias group 1", NULL);
	lookup_is(d, off_of(o, "ab") + 3, "abcd", "pie: alias group 2 (longest name)", NULL);
	lookup_is(d, off_of(o, "sized_alias") + 3, "sized_alias", "pie: alias group 3 (sized)",
		  NULL);
	/* perf's name@plt for the PLT entry of an imported function, whose address is the
	 * function's in a non-PIE executable */
	if (exec)
		lookup_is(d, off_of(o, "puts_plt"), "puts@plt", "pie: PLT entry", NULL);
	/* a C++ name as perf shows it: demangled, without parameters */
	lookup_is(d, off_of(o, "cxx_fn"), CXX_SHOWN, "pie: C++ name demangled", NULL);
	lookup_is(d, off_of(o, "cxx_fn") + 1, CXX_SHOWN, "pie: C++ name demangled, again", NULL);
#ifdef PREC_HAVE_DEMANGLE
	lookup_is(d, off_of(o, "cxx_alias"), "ns::two", "pie: C++ alias group", NULL);
#endif
	linkage_names_are(d, o, "pie");
	prec_symtab__free(st);

	/* --no-demangle */
	{
		struct prec_symtab_opts so = { .debug_dir = "/nonexistent", .no_demangle = true };

		if (prec_symtab__new(&so, &st))
			abort();
		d = prec_symtab__dso(st, exe, bid_len ? bid : NULL, bid_len);
		lookup_is(d, off_of(o, "cxx_fn"), "_ZNK2ns5StackIiE4peekEi",
			  "pie: no_demangle keeps the mangled name", NULL);
		linkage_names_are(d, o, "pie: no_demangle");
		prec_symtab__free(st);
	}
}

/* Names as perf 6.1 shows them (checked with perf probe -F on a program with these
 * symbols): no parameters, return type or clone suffix; "@plt" kept; not C names. */
static void test_demangle(void)
{
	static const char *const pairs[][2] = {
		{ "_Z14bitmap_set_bitP11bitmap_headi", "bitmap_set_bit" },
		{ "_ZN3app4workImEET_S1_S1_", "app::work<unsigned long>" },
		{ "_ZN12_GLOBAL__N_16helperEm.isra.0", "(anonymous namespace)::helper" },
		{ "_ZN3app6EngineD0Ev.cold", "app::Engine::~Engine" },
		{ "_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector<int, std::allocator<int> >::push_back" },
		{ "_ZThn8_N3app6Engine3runEv", "non-virtual thunk to app::Engine::run()" },
		{ "_ZZ4mainENKUliE_clEi", "main::{lambda(int)#1}::operator()" },
		{ "_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write" },
		{ "_ZdlPv@plt", "operator delete@plt" },
		{ "_ZNSt9exceptionD2Ev@@GLIBCXX_3.4", "std::exception::~exception" },
	};
	static const char *const plain[] = { "main", "puts@plt", "_start", "_Zfoo", "_Z", "@plt",
					     "_Z@plt", "" };
	size_t i;

#ifndef PREC_HAVE_DEMANGLE
	diag("built with --disable-demangle: names stay mangled");
	ok(prec_demangle(pairs[0][0]) == NULL, "demangle: disabled");
	return;
#endif
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		char *r = prec_demangle(pairs[i][0]);

		ok(r && !strcmp(r, pairs[i][1]), "demangle: %s -> %s (got %s)", pairs[i][0],
		   pairs[i][1], r ? r : "NULL");
		free(r);
	}
	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		char *r = prec_demangle(plain[i]);

		ok(!r, "demangle: '%s' is not a mangled name (got %s)", plain[i], r ? r : "NULL");
		free(r);
	}
}

static void test_stripped(const char *exe, const char *dir, const struct offs *o)
{
	char stripped[PATH_MAX], dbgdir[PATH_MAX / 2 + 16], dbg[PATH_MAX], hex[129];
	uint8_t bid[64];
	size_t bid_len = build_id_of(exe, bid, sizeof(bid)), i;
	struct prec_symtab *st;
	struct prec_dso *d;

	if (!bid_len) {
		ok(0, "stripped: the test binary has a build-id");
		return;
	}
	for (i = 0; i < bid_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", bid[i]);
	snprintf(stripped, sizeof(stripped), "%s/prog-stripped", dir);
	snprintf(dbgdir, sizeof(dbgdir), "%s/debug", dir);
	snprintf(dbg, sizeof(dbg), "%s/.build-id/%.2s/%s.debug", dbgdir, hex, hex + 2);
	if (sh("strip -o '%s' '%s' && mkdir -p '%s/.build-id/%.2s' && "
	       "objcopy --only-keep-debug '%s' '%s'",
	       stripped, exe, dbgdir, hex, exe, dbg)) {
		ok(0, "stripped: strip and objcopy");
		return;
	}
	st = new_symtab(dbgdir, NULL, NULL, NULL);
	d = prec_symtab__dso(st, stripped, bid, bid_len);
	is_u64(prec_dso__status(d), PREC_DSO_OK, "stripped: symbols load");
	ok(prec_dso__file_used(d) && !strcmp(prec_dso__file_used(d), dbg),
	   "stripped: the file used is the debug file found by build-id");
	lookup_is(d, off_of(o, "fn_local") + 1, "fn_local", "stripped: local function", NULL);
	lookup_is(d, off_of(o, "main"), "main", "stripped: main", NULL);
	prec_symtab__free(st);

	/* no build-id directory entry, but a .gnu_debuglink next to the file */
	if (sh("cd '%s' && cp prog-stripped prog-linked && objcopy --only-keep-debug prog "
	       "prog-linked.dbg && objcopy --add-gnu-debuglink=prog-linked.dbg prog-linked",
	       dir)) {
		ok(0, "debuglink: objcopy");
		return;
	}
	snprintf(stripped, sizeof(stripped), "%s/prog-linked", dir);
	st = new_symtab("/nonexistent", NULL, NULL, NULL);
	d = prec_symtab__dso(st, stripped, NULL, 0);
	is_u64(prec_dso__status(d), PREC_DSO_OK, "debuglink: symbols load");
	ok(prec_dso__file_used(d) && strstr(prec_dso__file_used(d), "prog-linked.dbg"),
	   "debuglink: the file used is the linked debug file");
	lookup_is(d, off_of(o, "fn_beta") + 2, "fn_beta", "debuglink: lookup", NULL);
	prec_symtab__free(st);

	/* only the debug file is left: addresses from its program headers */
	st = new_symtab(dbgdir, NULL, NULL, NULL);
	d = prec_symtab__dso(st, "/nonexistent/prog", bid, bid_len);
	is_u64(prec_dso__status(d), PREC_DSO_OK, "debug file only: symbols load");
	lookup_is(d, off_of(o, "fn_alpha"), "fn_alpha", "debug file only: lookup", NULL);
	prec_symtab__free(st);
}

static void test_mismatch_and_missing(const char *exe, const struct offs *o)
{
	struct prec_symtab *st = new_symtab("/nonexistent", NULL, NULL, NULL);
	uint8_t bid[64];
	size_t bid_len = build_id_of(exe, bid, sizeof(bid));
	struct prec_dso *d, *good;
	struct prec_sym s;
	uint64_t v = 0;
	char path[PATH_MAX];

	bid[0] ^= 0x5a;
	d = prec_symtab__dso(st, exe, bid, bid_len ? bid_len : 20);
	bid[0] ^= 0x5a;
	good = prec_symtab__dso(st, exe, bid, bid_len);
	ok(d != good, "mismatch: another build-id is another dso");
	is_u64(prec_dso__status(d), PREC_DSO_BUILDID_MISMATCH, "mismatch: status");
	ok(!strcmp(prec_dso_status__str(PREC_DSO_BUILDID_MISMATCH), "build-id mismatch"),
	   "mismatch: status string");
	is_u64((uint64_t)-prec_dso__lookup(d, off_of(o, "main"), &s, &v), ENOENT,
	       "mismatch: lookups fail");
	is_u64(v, off_of(o, "main"), "mismatch: vaddr is the address itself");
	ok(prec_dso__file_used(d) == NULL, "mismatch: no file used");
	is_u64(prec_dso__status(good), PREC_DSO_OK, "mismatch: the right build-id loads");
	/* perf pads build-ids to 20 bytes */
	if (bid_len < 20) {
		uint8_t padded[20] = { 0 };

		memcpy(padded, bid, bid_len);
		is_u64(prec_dso__status(prec_symtab__dso(st, exe, padded, 20)), PREC_DSO_OK,
		       "mismatch: zero padding is tolerated");
	}

	snprintf(path, sizeof(path), "%s/no-such-file", tmp);
	d = prec_symtab__dso(st, path, NULL, 0);
	is_u64(prec_dso__status(d), PREC_DSO_NOT_FOUND, "missing: status");
	is_u64((uint64_t)-prec_dso__lookup(d, 0x1000, &s, NULL), ENOENT, "missing: lookups fail");
	prec_symtab__free(st);

	/* --symfs: DIR + path first */
	st = new_symtab("/nonexistent", NULL, NULL, tmp);
	if (!sh("mkdir -p '%s/sysroot/bin' && cp '%s' '%s/sysroot/bin/prog'", tmp, exe, tmp)) {
		d = prec_symtab__dso(st, "/sysroot/bin/prog", NULL, 0);
		is_u64(prec_dso__status(d), PREC_DSO_OK, "symfs: found under the symfs");
		lookup_is(d, off_of(o, "fn_beta"), "fn_beta", "symfs: lookup", NULL);
	}
	prec_symtab__free(st);
}

/*
 * Maps without a build-id: the file at the recorded path must be the recorded device and
 * inode (and generation, where known); a --symfs file is trusted; a build-id, when recorded,
 * decides alone; a " (deleted)" path is not opened under its old name without a build-id.
 */
static void test_identity(const char *exe, const struct offs *o)
{
	struct prec_symtab *st = new_symtab("/nonexistent", NULL, NULL, NULL);
	struct prec_file_id id, f;
	struct prec_dso *d, *d2;
	unsigned int gen[2] = {0, 0};
	bool have_gen;
	uint8_t bid[64];
	size_t bid_len = build_id_of(exe, bid, sizeof(bid));
	char path[PATH_MAX];
	struct stat sb;
	int fd;

	if (!ok(stat(exe, &sb) == 0, "identity: stat of the program"))
		return;
	fd = open(exe, O_RDONLY | O_CLOEXEC);
	have_gen = fd >= 0 && !ioctl(fd, FS_IOC_GETVERSION, gen) && gen[0];
	if (fd >= 0)
		close(fd);
	id.maj = major(sb.st_dev);
	id.min = minor(sb.st_dev);
	id.ino = sb.st_ino;
	id.gen = 0;

	d = prec_symtab__dso_file(st, exe, NULL, 0, &id);
	is_u64(prec_dso__status(d), PREC_DSO_OK, "identity: the recorded inode loads");
	lookup_is(d, off_of(o, "fn_beta"), "fn_beta", "identity: lookup", NULL);
	ok(prec_symtab__dso_file(st, exe, NULL, 0, &id) == d, "identity: same file, same dso");

	f = id;
	f.ino++;
	d2 = prec_symtab__dso_file(st, exe, NULL, 0, &f);
	ok(d2 != d, "identity: another inode at the path is another dso");
	is_u64(prec_dso__status(d2), PREC_DSO_FILE_CHANGED, "identity: another inode: status");
	ok(!strcmp(prec_dso_status__str(PREC_DSO_FILE_CHANGED), "file changed since recording"),
	   "identity: status string");
	is_u64((uint64_t)-prec_dso__lookup(d2, off_of(o, "fn_beta"), NULL, NULL), ENOENT,
	       "identity: another inode: lookups fail");
	ok(prec_dso__file_used(d2) == NULL, "identity: another inode: no file used");

	f = id;
	f.maj = id.maj + 1;
	is_u64(prec_dso__status(prec_symtab__dso_file(st, exe, NULL, 0, &f)),
	       id.maj ? PREC_DSO_FILE_CHANGED : PREC_DSO_OK,
	       "identity: another block device is another file (unless ours is anonymous)");
	f = id;
	f.maj = 0;
	f.min = 4242;
	is_u64(prec_dso__status(prec_symtab__dso_file(st, exe, NULL, 0, &f)), PREC_DSO_OK,
	       "identity: an anonymous device (overlayfs, btrfs) with the inode: the file");

	if (have_gen) {
		f = id;
		f.gen = gen[0] + 1;
		f.min = id.min + 1;
		is_u64(prec_dso__status(prec_symtab__dso_file(st, exe, NULL, 0, &f)),
		       PREC_DSO_FILE_CHANGED, "identity: another generation is another file");
		f.gen = gen[0];
		f.maj = id.maj + 1;
		is_u64(prec_dso__status(prec_symtab__dso_file(st, exe, NULL, 0, &f)), PREC_DSO_OK,
		       "identity: the generation vouches for a renumbered device");
	} else {
		diag("no inode generation on this file system: generation checks skipped");
	}

	/* a build-id decides alone */
	f = id;
	f.ino += 2;
	if (bid_len)
		is_u64(prec_dso__status(prec_symtab__dso_file(st, exe, bid, bid_len, &f)),
		       PREC_DSO_OK, "identity: a recorded build-id decides, not the inode");

	/* " (deleted)": not opened under the old name without a build-id */
	snprintf(path, sizeof(path), "%s (deleted)", exe);
	d = prec_symtab__dso_file(st, path, NULL, 0, &id);
	is_u64(prec_dso__status(d), PREC_DSO_DELETED, "identity: deleted, no build-id: status");
	ok(!strcmp(prec_dso_status__str(PREC_DSO_DELETED), "file deleted while mapped"),
	   "identity: deleted: status string");
	if (bid_len)
		is_u64(prec_dso__status(prec_symtab__dso_file(st, path, bid, bid_len, &id)),
		       PREC_DSO_OK, "identity: deleted, with its build-id: found at the old name");
	prec_symtab__free(st);

	/* --symfs: the file there cannot be proved by inode and is trusted */
	st = new_symtab("/nonexistent", NULL, NULL, tmp);
	if (!sh("mkdir -p '%s/idroot/bin' && cp '%s' '%s/idroot/bin/prog'", tmp, exe, tmp)) {
		f = id;
		f.ino += 3;
		snprintf(path, sizeof(path), "%s/idroot/bin/prog", tmp);
		d = prec_symtab__dso_file(st, "/idroot/bin/prog", NULL, 0, &f);
		is_u64(prec_dso__status(d), PREC_DSO_OK, "identity: a --symfs file is trusted");
	}
	prec_symtab__free(st);
}

static void test_bad_files(const char *exe)
{
	struct prec_symtab *st = new_symtab("/nonexistent", NULL, NULL, NULL);
	char fifo[PATH_MAX], dir[PATH_MAX], junk[PATH_MAX], trunc[PATH_MAX], mut[PATH_MAX];
	char *img;
	size_t len, i;
	struct prec_dso *d;
	unsigned seed = 12345;
	int crashes = 0, statuses_ok = 1;

	snprintf(fifo, sizeof(fifo), "%s/fifo", tmp);
	snprintf(dir, sizeof(dir), "%s/adir", tmp);
	if (mkfifo(fifo, 0600) || mkdir(dir, 0700))
		diag("mkfifo/mkdir: %s", strerror(errno));
	logbuf[0] = 0;
	alarm(20); /* an open that blocks on the FIFO fails the test instead of hanging it */
	d = prec_symtab__dso(st, fifo, NULL, 0);
	is_u64(prec_dso__status(d), PREC_DSO_BAD_FILE, "bad: FIFO is refused");
	ok(strstr(logbuf, fifo) && strstr(logbuf, "FIFO"), "bad: one warning names the FIFO");
	d = prec_symtab__dso(st, dir, NULL, 0);
	is_u64(prec_dso__status(d), PREC_DSO_BAD_FILE, "bad: directory is refused");
	alarm(0);
	d = prec_symtab__dso(st, "/dev/null", NULL, 0);
	is_u64(prec_dso__status(d), PREC_DSO_BAD_FILE, "bad: device is refused");

	snprintf(junk, sizeof(junk), "%s/junk.so", tmp);
	img = malloc(4096);
	for (i = 0; i < 4096; i++)
		img[i] = (char)(rand_r(&seed) & 0xff);
	write_file(junk, img, 4096);
	free(img);
	d = prec_symtab__dso(st, junk, NULL, 0);
	is_u64(prec_dso__status(d), PREC_DSO_BAD_FILE, "bad: garbage is refused");
	is_u64((uint64_t)-prec_dso__lookup(d, 0, NULL, NULL), ENOENT, "bad: lookups fail");

	img = read_all(exe, &len);
	if (!img) {
		ok(0, "bad: read %s", exe);
		prec_symtab__free(st);
		return;
	}
	snprintf(trunc, sizeof(trunc), "%s/trunc-hdr", tmp);
	write_file(trunc, img, 100);
	d = prec_symtab__dso(st, trunc, NULL, 0);
	is_u64(prec_dso__status(d), PREC_DSO_BAD_FILE, "bad: ELF cut inside its headers");
	snprintf(trunc, sizeof(trunc), "%s/trunc-half", tmp);
	write_file(trunc, img, len / 2);
	d = prec_symtab__dso(st, trunc, NULL, 0);
	is_u64(prec_dso__status(d), PREC_DSO_BAD_FILE, "bad: ELF cut in half");
	prec_symtab__free(st);

	/* random corruption: any status, never a crash, and lookups stay bounded */
	for (i = 0; i < 300; i++) {
		char *m = malloc(len);
		int k, nflip = 1 + (int)(rand_r(&seed) % 16);
		struct prec_sym s;

		memcpy(m, img, len);
		for (k = 0; k < nflip; k++) {
			size_t at =
			    (size_t)rand_r(&seed) % (i % 2 ? len : (len < 4096 ? len : 4096));

			m[at] = (char)(rand_r(&seed) & 0xff);
		}
		/* also corrupt the section header table and string tables at the end */
		if (i % 3 == 0)
			m[len - 1 - (size_t)rand_r(&seed) % (len < 2048 ? len : 2048)] ^= 0xff;
		snprintf(mut, sizeof(mut), "%s/mut-%zu", tmp, i);
		write_file(mut, m, len);
		free(m);
		st = new_symtab("/nonexistent", NULL, NULL, NULL);
		d = prec_symtab__dso(st, mut, NULL, 0);
		if (prec_dso__status(d) > PREC_DSO_NO_FILE)
			statuses_ok = 0;
		for (k = 0; k < 64; k++)
			prec_dso__lookup(d, (uint64_t)k * 97, &s, NULL);
		prec_dso__srcline(d, 0x1139);
		prec_symtab__free(st);
		unlink(mut);
	}
	ok(statuses_ok && !crashes, "bad: 300 randomly corrupted ELF files load or are refused");
	free(img);
}

/* ---- the kernel symbol cache ---- */

#define KC_FNS 3000
#define KC_BASE UINT64_C(0xffffffff81000000)

/* A kallsyms text: the kernel's functions (locals, globals, a weak/strong pair, data), then
 * two modules; every address moved by `shift` (another KASLR offset). */
static char *kc_text(uint64_t shift, size_t *ret_len)
{
	size_t cap = (KC_FNS + 16) * 64, n = 0;
	char *t = malloc(cap);
	int i;

	if (!t)
		abort();
	n += (size_t)snprintf(t + n, cap - n, "%016" PRIx64 " T _stext\n%016" PRIx64 " T _text\n",
			      KC_BASE + shift, KC_BASE + shift);
	for (i = 0; i < KC_FNS; i++)
		n += (size_t)snprintf(t + n, cap - n, "%016" PRIx64 " %c kfn_%d\n",
				      KC_BASE + shift + 0x1000 + (uint64_t)i * 0x40,
				      i % 3 ? 't' : 'T', i);
	n += (size_t)snprintf(t + n, cap - n,
			      "%016" PRIx64 " W weak_twin\n%016" PRIx64 " T strong_twin\n"
			      "%016" PRIx64 " D kdata\n"
			      "ffffffffc0001000 t mod_fn\t[mymod]\n"
			      "ffffffffc0001100 T mod_fn2\t[mymod]\n",
			      KC_BASE + shift + 0x100000, KC_BASE + shift + 0x100000,
			      KC_BASE + shift + 0x100100);
	*ret_len = n;
	return t;
}

struct kc_probe {
	int err;
	char name[32];
	uint64_t size;
};

#define KC_NPROBE 64
/* Addresses below, in and past the kernel's functions, and in a module. */
static uint64_t kc_addr(int i, uint64_t shift)
{
	if (i == 0)
		return 0x1000; /* below everything: no symbol */
	if (i == KC_NPROBE - 1)
		return 0xffffffffc0001010; /* mod_fn */
	if (i == KC_NPROBE - 2)
		return KC_BASE + shift + 0x100010; /* strong_twin, weak alias */
	return KC_BASE + shift - 0x100 + (uint64_t)(i - 1) * (0x1000 + KC_FNS * 0x40) / 58;
}

static void kc_lookups(struct prec_symtab *st, uint64_t shift, int upto, struct kc_probe *p)
{
	struct prec_dso *k = prec_symtab__kernel(st);
	int i;

	for (i = 0; i < upto; i++) {
		struct prec_sym s = { 0 };

		memset(&p[i], 0, sizeof(p[i]));
		p[i].err = prec_dso__lookup(k, kc_addr(i, shift), &s, NULL);
		if (!p[i].err) {
			snprintf(p[i].name, sizeof(p[i].name), "%s", s.name);
			p[i].size = s.size;
		}
	}
}

static bool kc_same(const struct kc_probe *a, const struct kc_probe *b, int upto)
{
	int i;

	for (i = 0; i < upto; i++)
		if (a[i].err != b[i].err || strcmp(a[i].name, b[i].name) || a[i].size != b[i].size) {
			diag("  probe %d: %d %s %#" PRIx64 " vs %d %s %#" PRIx64, i, a[i].err,
			     a[i].name, a[i].size, b[i].err, b[i].name, b[i].size);
			return false;
		}
	return true;
}

static char kc_ks[PATH_MAX / 2 + 32], kc_boot[PATH_MAX / 2 + 32], kc_dir[PATH_MAX / 2 + 32];

static struct prec_symtab *kc_symtab(bool cache)
{
	struct prec_symtab_opts o = { 0 };
	struct prec_symtab *st = NULL;

	o.use_proc_kallsyms = true;
	o.proc_kallsyms = kc_ks;
	o.boot_id_file = kc_boot;
	o.cache_dir = cache ? kc_dir : NULL;
	if (prec_symtab__new(&o, &st))
		abort();
	infobuf[0] = 0;
	return st;
}

/* How many cache files the directory holds; the name of the last one in *ret. */
static int kc_files(char *ret, size_t len)
{
	char cmd[PATH_MAX + 64], line[NAME_MAX + 2];
	int n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ls '%s' 2>/dev/null", kc_dir);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		snprintf(ret, len, "%s/%s", kc_dir, line);
		n++;
	}
	pclose(f);
	return n;
}

/* A report's kernel lookups with the cache on: answered as `want`, from the cache or not. */
static void kc_check(uint64_t shift, const struct kc_probe *want, bool cached, const char *what)
{
	struct kc_probe got[KC_NPROBE];
	struct prec_symtab *st = kc_symtab(true);

	kc_lookups(st, shift, KC_NPROBE, got);
	ok(!strstr(infobuf, "from the cache") == !cached && kc_same(want, got, KC_NPROBE), "%s",
	   what);
	prec_symtab__free(st);
}

static void test_kcache(void)
{
	struct kc_probe ref[KC_NPROBE], got[KC_NPROBE], shifted[KC_NPROBE];
	char file[PATH_MAX], *text, *good;
	const char *before, *after;
	struct prec_symtab *st;
	struct prec_dso *k;
	struct prec_sym s;
	size_t len, glen;
	unsigned int seed = 7;
	bool all_ok = true;
	int i;

#if !defined(__x86_64__)
	diag("the kernel symbol cache is x86-64 only: not checked");
	return;
#endif
	snprintf(kc_ks, sizeof(kc_ks), "%s/proc-kallsyms", tmp);
	snprintf(kc_boot, sizeof(kc_boot), "%s/boot_id", tmp);
	snprintf(kc_dir, sizeof(kc_dir), "%s/cache/precord", tmp); /* made with its parent */
	text = kc_text(0, &len);
	write_file(kc_ks, text, len);
	free(text);
	write_file(kc_boot, "0123abcd-0000-4000-8000-00000000aaaa\n", 37);

	st = kc_symtab(false);
	kc_lookups(st, 0, KC_NPROBE, ref);
	prec_symtab__free(st);
	ok(ref[0].err && ref[1].err && !ref[2].err && !ref[KC_NPROBE - 1].err &&
	       !strcmp(ref[KC_NPROBE - 1].name, "mod_fn") &&
	       !strcmp(ref[KC_NPROBE - 2].name, "strong_twin"),
	   "kcache: the reference lookups without a cache");

	st = kc_symtab(true);
	kc_lookups(st, 0, KC_NPROBE, got);
	ok(strstr(infobuf, "cached in") != NULL, "kcache: the first load writes the cache");
	ok(kc_same(ref, got, KC_NPROBE), "kcache: ... and answers as without");
	prec_symtab__free(st);
	is_u64((uint64_t)kc_files(file, sizeof(file)), 1, "kcache: one file");
	ok(strstr(file, "kallsyms-0123abcd-0000-4000-8000-00000000aaaa") != NULL,
	   "kcache: named by the boot id");
	good = read_all(file, &glen);

	st = kc_symtab(true);
	k = prec_symtab__kernel(st);
	kc_lookups(st, 0, KC_NPROBE - 1, got);
	ok(strstr(infobuf, "from the cache") != NULL && !strstr(infobuf, "outside"),
	   "kcache: the second load reads the cache, no fallback for the kernel's addresses");
	ok(kc_same(ref, got, KC_NPROBE - 1), "kcache: cached lookups answer as without");
	before = prec_dso__lookup(k, KC_BASE + 0x1010, &s, NULL) ? NULL : s.name;
	lookup_is(k, 0xffffffffc0001010, "mod_fn", "kcache: a module address reads kallsyms", NULL);
	ok(strstr(infobuf, "outside the cached symbols") != NULL, "kcache: ... and says so");
	after = prec_dso__lookup(k, KC_BASE + 0x1010, &s, NULL) ? NULL : s.name;
	ok(before && before == after, "kcache: one name for a function before and after that");
	kc_lookups(st, 0, KC_NPROBE, got);
	ok(kc_same(ref, got, KC_NPROBE), "kcache: all lookups after the fallback as without");
	prec_symtab__free(st);

	/* another KASLR offset under the same boot id: the head differs, not used */
	text = kc_text(0x2000000, &len);
	write_file(kc_ks, text, len);
	free(text);
	st = kc_symtab(false);
	kc_lookups(st, 0x2000000, KC_NPROBE, shifted);
	prec_symtab__free(st);
	kc_check(0x2000000, shifted, false, "kcache: other kernel addresses: the cache is not used");
	kc_check(0x2000000, shifted, true, "kcache: ... and is rewritten for them");

	/* a new boot: its file replaces the old one */
	write_file(kc_boot, "0123abcd-0000-4000-8000-00000000bbbb\n", 37);
	st = kc_symtab(true);
	kc_lookups(st, 0x2000000, KC_NPROBE, got);
	prec_symtab__free(st);
	ok(kc_files(file, sizeof(file)) == 1 &&
	       strstr(file, "kallsyms-0123abcd-0000-4000-8000-00000000bbbb"),
	   "kcache: a new boot's file replaces the last boot's");

	/* damaged files: truncated, a byte changed, grown; never a wrong answer */
	text = kc_text(0, &len);
	write_file(kc_ks, text, len);
	free(text);
	write_file(kc_boot, "0123abcd-0000-4000-8000-00000000aaaa\n", 37);
	snprintf(file, sizeof(file), "%s/kallsyms-0123abcd-0000-4000-8000-00000000aaaa", kc_dir);
	for (i = 0; i < 200 && good; i++) {
		char *m = calloc(1, glen + 64);
		size_t ml = glen;

		memcpy(m, good, glen);
		if (i % 4 == 0)
			ml = (size_t)rand_r(&seed) % glen;
		else if (i % 4 == 3)
			ml = glen + 8;
		else
			m[(size_t)rand_r(&seed) % glen] ^= (char)(1 + rand_r(&seed) % 255);
		unlink(file);
		write_file(file, m, ml);
		chmod(file, 0600);
		free(m);
		st = kc_symtab(true);
		kc_lookups(st, 0, KC_NPROBE, got);
		if (strstr(infobuf, "from the cache") || !kc_same(ref, got, KC_NPROBE)) {
			diag("  damage %d used or answered wrong", i);
			all_ok = false;
		}
		prec_symtab__free(st);
	}
	ok(good && all_ok, "kcache: 200 damaged files are not used, the answers stay right");

	/* a file others may write, or a link, is not used */
	unlink(file);
	write_file(file, good, glen);
	chmod(file, 0666);
	kc_check(0, ref, false, "kcache: a file others may write is not used");
	{
		char other[PATH_MAX];

		snprintf(other, sizeof(other), "%s/kc-copy", tmp);
		write_file(other, good, glen);
		chmod(other, 0600);
		unlink(file);
		if (symlink(other, file))
			abort();
		kc_check(0, ref, false, "kcache: a symbolic link is not followed");
	}
	kc_check(0, ref, true, "kcache: the file written in its place is used");
	free(good);
}

static void test_kallsyms(void)
{
	static const char ks[] = "ffffffff81000000 T _stext\n"
				 "ffffffff81000000 T _text\n"
				 "ffffffff81000100 t local_fn\n"
				 "ffffffff81000200 W weak_fn\n"
				 "ffffffff81000200 T strong_fn\n"
				 "ffffffff81000300 D some_data\n"
				 "ffffffff81000400 T last_vmlinux\n"
				 "ffffffffc0001000 t mod_fn\t[mymod]\n"
				 "ffffffffc0001100 T mod_fn2\t[mymod]\n"
				 "ffffffffc0005000 t other_fn\t[othermod]\n"
				 "not a line\n";
	static const char zero[] = "0000000000000000 T _stext\n"
				   "0000000000000000 t foo\n";
	char path[PATH_MAX];
	struct prec_symtab *st;
	struct prec_dso *k;
	struct prec_sym s;

	snprintf(path, sizeof(path), "%s/kallsyms", tmp);
	write_file(path, ks, sizeof(ks) - 1);
	st = new_symtab(NULL, NULL, path, NULL);
	k = prec_symtab__kernel(st);
	ok(prec_dso__is_kernel(k), "kallsyms: kernel dso");
	ok(prec_symtab__dso(st, "[kernel.kallsyms]_text", NULL, 0) == k,
	   "kallsyms: [kernel.kallsyms]_text is the kernel dso");
	ok(!strcmp(prec_dso__short_name(k), "[kernel.kallsyms]"), "kallsyms: short name");
	is_u64(prec_dso__status(k), PREC_DSO_OK, "kallsyms: loads");
	lookup_is(k, 0xffffffff81000050, "_text", "kallsyms: zero-size aliases like perf", NULL);
	lookup_is(k, 0xffffffff81000150, "local_fn", "kallsyms: local text symbol", &s);
	is_u64(s.size, 0x100, "kallsyms: a symbol ends where the next starts");
	lookup_is(k, 0xffffffff81000250, "strong_fn", "kallsyms: strong beats weak", NULL);
	lookup_is(k, 0xffffffff81000350, "strong_fn", "kallsyms: data symbols are skipped", NULL);
	lookup_is(k, 0xffffffff81001fff, "last_vmlinux",
		  "kallsyms: last vmlinux symbol reaches the next page", NULL);
	is_u64((uint64_t)-prec_dso__lookup(k, 0xffffffff81002000, &s, NULL), ENOENT,
	       "kallsyms: not into the module area");
	lookup_is(k, 0xffffffffc0001010, "mod_fn", "kallsyms: module symbol, tag stripped", NULL);
	ok(prec_dso__kernel_module(k, 0xffffffffc0001010) &&
	       !strcmp(prec_dso__kernel_module(k, 0xffffffffc0001010), "[mymod]"),
	   "kallsyms: module name");
	ok(prec_dso__kernel_module(k, 0xffffffff81000150) == NULL, "kallsyms: vmlinux has none");
	lookup_is(k, 0xffffffffc0002fff, "mod_fn2", "kallsyms: last module symbol", NULL);
	lookup_is(k, 0xffffffffc0005001, "other_fn", "kallsyms: second module", NULL);
	ok(!strcmp(prec_dso__kernel_module(k, 0xffffffffc0005001), "[othermod]"),
	   "kallsyms: second module name");
	prec_symtab__free(st);

	write_file(path, zero, sizeof(zero) - 1);
	logbuf[0] = 0;
	st = new_symtab(NULL, NULL, path, NULL);
	k = prec_symtab__kernel(st);
	is_u64(prec_dso__status(k), PREC_DSO_NO_SYMBOLS, "kallsyms: all-zero addresses");
	ok(strstr(logbuf, "kptr_restrict") != NULL, "kallsyms: kptr_restrict is named");
	prec_symtab__free(st);

	st = new_symtab(NULL, NULL, NULL, NULL);
	is_u64(prec_dso__status(prec_symtab__kernel(st)), PREC_DSO_NOT_FOUND,
	       "kallsyms: none asked for");
	prec_symtab__free(st);
}

/*
 * The kernel's __pfx_ (and kCFI's __cfi_) padding before a function is never reported: an
 * address in it, or at the byte before the function (a return address at the function's
 * first byte is looked up there), is the function.  From kallsyms, and from the per-boot
 * cache written by a first load and read by a second.
 */
static void test_kallsyms_pfx(void)
{
	static const char ks[] = "ffffffff81000000 T _text\n"
				 "ffffffff81000100 t before_fn\n"
				 "ffffffff810001f0 t __pfx_padded_fn\n"
				 "ffffffff81000200 t padded_fn\n"
				 "ffffffff810002f0 T __cfi_cfi_fn\n"
				 "ffffffff81000300 T cfi_fn\n"
				 "ffffffff810003f0 T __pfx_b_alias\n"
				 "ffffffff810003f0 T __pfx_a_alias\n"
				 "ffffffff81000400 T a_alias\n"
				 "ffffffff81000400 T b_alias\n"
				 "ffffffff81000500 T last_fn\n";
	static const char *const how[] = {"kallsyms", "cache written", "cache read"};
	char path[PATH_MAX], boot[PATH_MAX], dir[PATH_MAX], what[96];
	struct prec_symtab_opts o;
	struct prec_symtab *st;
	struct prec_dso *k;
	struct prec_sym s;
	int i;

	snprintf(path, sizeof(path), "%s/kallsyms-pfx", tmp);
	write_file(path, ks, sizeof(ks) - 1);
	snprintf(boot, sizeof(boot), "%s/boot_id-pfx", tmp);
	write_file(boot, "0123abcd-0000-4000-8000-00000000bbbb\n", 37);
	snprintf(dir, sizeof(dir), "%s/cache-pfx/precord", tmp);
	for (i = 0; i < 3; i++) {
		memset(&o, 0, sizeof(o));
		if (i == 0) {
			o.kallsyms = path;
		} else {
			o.use_proc_kallsyms = true;
			o.proc_kallsyms = path;
			o.boot_id_file = boot;
			o.cache_dir = dir;
		}
		if (prec_symtab__new(&o, &st))
			abort();
		infobuf[0] = 0;
		k = prec_symtab__kernel(st);
		snprintf(what, sizeof(what), "pfx (%s): a function's first byte", how[i]);
		lookup_is(k, 0xffffffff81000200, "padded_fn", what, NULL);
		snprintf(what, sizeof(what), "pfx (%s): the byte before it is the function",
			 how[i]);
		if (lookup_is(k, 0xffffffff810001ff, "padded_fn", what, &s))
			is_u64(s.start, 0xffffffff81000200, "pfx: ... with the function's start");
		snprintf(what, sizeof(what), "pfx (%s): inside the padding", how[i]);
		lookup_is(k, 0xffffffff810001f0, "padded_fn", what, NULL);
		snprintf(what, sizeof(what), "pfx (%s): the function before ends at it", how[i]);
		if (lookup_is(k, 0xffffffff810001ef, "before_fn", what, &s))
			is_u64(s.size, 0xf0, "pfx: ... its size");
		snprintf(what, sizeof(what), "pfx (%s): kCFI's __cfi_ too", how[i]);
		lookup_is(k, 0xffffffff810002ff, "cfi_fn", what, NULL);
		snprintf(what, sizeof(what), "pfx (%s): padding of aliases", how[i]);
		ok(!prec_dso__lookup(k, 0xffffffff810003f8, &s, NULL) &&
		       s.start == 0xffffffff81000400 && strncmp(s.name, "__pfx_", 6),
		   "%s", what);
#if defined(__x86_64__) /* the cache is x86-64 only */
		if (i == 2)
			ok(strstr(infobuf, "from the cache") != NULL, "pfx: the cache was read");
#endif
		prec_symtab__free(st);
	}
}

static void test_jit(void)
{
	static const char map[] = "7f0000001000 40 jit_one\n"
				  "0x7f0000001040 0x20 jit two with spaces\n"
				  "7f0000002000 0 zero_size\n"
				  "7f0000003000 10 old_code\n"
				  "7f0000003000 20 new_code\n"
				  "garbage line\n"
				  "7f0000004000\n";
	char path[PATH_MAX], jitdir[PATH_MAX / 2 + 8];
	struct prec_symtab *st;
	struct prec_dso *j;
	struct prec_sym s;

	bool fifo, foreign = false;

	snprintf(jitdir, sizeof(jitdir), "%s/jit", tmp);
	mkdir(jitdir, 0700);
	snprintf(path, sizeof(path), "%s/perf-4242.map", jitdir);
	write_file(path, map, sizeof(map) - 1);
	/* read in chunks: a line longer than a chunk is skipped, the lines around it are read,
	 * and so is a last line without a newline; a NUL ends a name */
	{
		size_t big = 600 * 1024, off = 0;
		char *m = malloc(big + 256);

		if (!m)
			abort();
		off += (size_t)sprintf(m, "7f0000001000 10 before_long\n7f0000002000 10 ");
		memset(m + off, 'x', big);
		off += big;
		off += (size_t)sprintf(m + off, "\n7f0000003000 10 after_long\n");
		memcpy(m + off, "7f0000004000 10 nul\0ended\n", 26);
		off += 26;
		off += (size_t)sprintf(m + off, "7f0000005000 10 no_newline");
		snprintf(path, sizeof(path), "%s/perf-4249.map", jitdir);
		write_file(path, m, off);
		free(m);
	}
	/* names that only look like maps of pid 4246 or 4247 */
	snprintf(path, sizeof(path), "%s/perf-4246.map.old", jitdir);
	write_file(path, map, sizeof(map) - 1);
	snprintf(path, sizeof(path), "%s/perf-+4247.map", jitdir);
	write_file(path, map, sizeof(map) - 1);
	snprintf(path, sizeof(path), "%s/perf-4244.map", jitdir);
	fifo = !mkfifo(path, 0600);
	if (geteuid() == 0) {
		snprintf(path, sizeof(path), "%s/perf-4245.map", jitdir);
		write_file(path, map, sizeof(map) - 1);
		foreign = !chown(path, 54321, 54321);
	}
	st = new_symtab(NULL, jitdir, NULL, NULL);
	j = prec_symtab__jit(st, 4242);
	ok(prec_symtab__jit(st, 4242) == j, "jit: one dso per pid");
	ok(!strcmp(prec_dso__short_name(j), "perf-4242.map"), "jit: short name");
	is_u64(prec_dso__status(j), PREC_DSO_OK, "jit: loads");
	lookup_is(j, 0x7f0000001010, "jit_one", "jit: first", NULL);
	lookup_is(j, 0x7f000000105f, "jit two with spaces", "jit: 0x prefixes and spaces", NULL);
	is_u64((uint64_t)-prec_dso__lookup(j, 0x7f0000001060, &s, NULL), ENOENT,
	       "jit: sizes are honoured");
	lookup_is(j, 0x7f0000002000, "zero_size", "jit: zero size covers its start", NULL);
	is_u64((uint64_t)-prec_dso__lookup(j, 0x7f0000002001, &s, NULL), ENOENT,
	       "jit: zero size covers its start only");
	lookup_is(j, 0x7f0000003018, "new_code", "jit: the last entry for an address wins", NULL);
	is_u64(prec_dso__status(prec_symtab__jit(st, 4243)), PREC_DSO_NOT_FOUND,
	       "jit: no map file");
	if (fifo) {
		alarm(20);
		is_u64(prec_dso__status(prec_symtab__jit(st, 4244)), PREC_DSO_BAD_FILE,
		       "jit: a FIFO is refused");
		alarm(0);
	}
	if (foreign)
		is_u64(prec_dso__status(prec_symtab__jit(st, 4245)), PREC_DSO_BAD_FILE,
		       "jit: a map owned by someone else is refused");
	is_u64(prec_dso__status(prec_symtab__jit(st, 4246)), PREC_DSO_NOT_FOUND,
	       "jit: perf-PID.map.old is not a map");
	is_u64(prec_dso__status(prec_symtab__jit(st, 4247)), PREC_DSO_NOT_FOUND,
	       "jit: perf-+PID.map is not a map");
	j = prec_symtab__jit(st, 4249);
	is_u64(prec_dso__status(j), PREC_DSO_OK, "jit: a map with a long line loads");
	lookup_is(j, 0x7f0000001004, "before_long", "jit: the line before a long one", NULL);
	is_u64((uint64_t)-prec_dso__lookup(j, 0x7f0000002004, &s, NULL), ENOENT,
	       "jit: a line longer than a chunk is skipped");
	lookup_is(j, 0x7f0000003004, "after_long", "jit: the line after a long one", NULL);
	lookup_is(j, 0x7f0000004004, "nul", "jit: a NUL ends a name", NULL);
	lookup_is(j, 0x7f0000005004, "no_newline", "jit: a last line without a newline", NULL);
	/* the directory was listed at the first call */
	snprintf(path, sizeof(path), "%s/perf-4248.map", jitdir);
	write_file(path, map, sizeof(map) - 1);
	is_u64(prec_dso__status(prec_symtab__jit(st, 4248)), PREC_DSO_NOT_FOUND,
	       "jit: a map written after the listing is not seen");
	prec_symtab__free(st);

	/* a new symtab lists again; a directory that is not there has no maps */
	st = new_symtab(NULL, jitdir, NULL, NULL);
	is_u64(prec_dso__status(prec_symtab__jit(st, 4248)), PREC_DSO_OK,
	       "jit: listed by the next symtab");
	prec_symtab__free(st);
	snprintf(path, sizeof(path), "%s/no-such-dir", jitdir);
	st = new_symtab(NULL, path, NULL, NULL);
	is_u64(prec_dso__status(prec_symtab__jit(st, 4242)), PREC_DSO_NOT_FOUND,
	       "jit: no directory, no maps");
	prec_symtab__free(st);
}

static void test_inlines(const char *exe, const struct offs *o)
{
	struct prec_symtab *st = new_symtab("/nonexistent", NULL, NULL, NULL);
	struct prec_dso *d = prec_symtab__dso(st, exe, NULL, 0);
	struct prec_sym s;
	struct prec_inline_frame fr[8];
	uint64_t off = off_of(o, "outer_fn"), v, k;
	char inner[32], call[32];
	bool found = false, line_ok = false;
	const char *sl;
	int n, maxn = 0;

	snprintf(inner, sizeof(inner), "inl.c:%d", INNER_LINE);
	snprintf(call, sizeof(call), "inl.c:%d", CALL_LINE);
	if (!lookup_is(d, off, "outer_fn", "inline: the outer function", &s)) {
		prec_symtab__free(st);
		return;
	}
	prec_dso__lookup(d, off, &s, &v);
	for (k = 0; k < s.size; k++) {
		n = prec_dso__inlines(d, off + k, fr, 8);
		if (n > maxn)
			maxn = n;
		if (n >= 2 && !strcmp(fr[0].name, "inl_inner") &&
		    !strcmp(fr[1].name, "inl_outer")) {
			found = true;
			sl = prec_dso__srcline(d, off + k);
			if (fr[0].srcline && !strcmp(fr[0].srcline, inner) && fr[1].srcline &&
			    !strcmp(fr[1].srcline, call) && sl && !strcmp(sl, inner))
				line_ok = true;
		}
	}
	ok(found, "inline: inl_inner inside inl_outer, innermost first (max depth %d)", maxn);
	ok(line_ok, "inline: lines %s (in inl_inner) and %s (call site in inl_outer)", inner, call);
	is_u64((uint64_t)prec_dso__inlines(d, off, fr, 0), 0, "inline: max 0 writes nothing");
	sl = prec_dso__srcline(d, off);
	ok(sl && !strncmp(sl, "inl.c:", 6), "inline: srcline of the function start (%s)",
	   sl ? sl : "null");
	ok(prec_dso__srcline(d, off) == sl, "inline: srcline is cached");
	prec_symtab__free(st);
}

/*
 * C++ inline frames are named as perf names them, by their demangled linkage name
 * ("app::mix<unsigned long>", not DWARF's "mix<long unsigned int>"), and functions that
 * show one name (overloads without parameters) keep distinct ids, while one function
 * inlined twice keeps one.
 */
static void test_inline_names(const char *exe, const struct offs *o)
{
	struct prec_symtab *st = new_symtab("/nonexistent", NULL, NULL, NULL);
	struct prec_dso *d = prec_symtab__dso(st, exe, NULL, 0);
	struct prec_inline_frame fr[8];
	uint64_t off = off_of(o, "cxx_outer"), k, ids[64];
	const char *names[64];
	struct prec_sym s;
	int n, i, nseen = 0, app_mix = -1, other_mix = -1, ov[2] = {-1, -1};
	bool dwarf_name = false, one_id = true;

	if (!lookup_is(d, off, "cxx_outer", "inline names: the outer function", &s)) {
		prec_symtab__free(st);
		return;
	}
	for (k = 0; k < s.size; k++) {
		n = prec_dso__inlines(d, off + k, fr, 8);
		for (i = 0; n > 0 && i < nseen; i++)
			if (names[i] == fr[0].name && ids[i] == fr[0].id)
				break;
		if (n <= 0 || i < nseen || nseen == 64)
			continue;
		names[nseen] = fr[0].name;
		ids[nseen++] = fr[0].id;
	}
	for (i = 0; i < nseen; i++) {
		diag("inline names: %s (id %016" PRIx64 ")", names[i], ids[i]);
		if (!strcmp(names[i], "app::mix<unsigned long>")) {
			one_id = one_id && (app_mix < 0 || ids[app_mix] == ids[i]);
			app_mix = i;
		} else if (!strcmp(names[i], "other::mix<unsigned long>")) {
			other_mix = i;
		} else if (!strcmp(names[i], "app::ov")) {
			ov[ov[0] < 0 ? 0 : 1] = i;
		} else if (strstr(names[i], "mix<long unsigned int>")) {
			dwarf_name = true;
		}
	}
	ok(app_mix >= 0 && other_mix >= 0,
	   "inline names: app::mix<unsigned long> and other::mix<unsigned long>");
	ok(!dwarf_name, "inline names: not DWARF's mix<long unsigned int>");
	ok(app_mix >= 0 && other_mix >= 0 && ids[app_mix] != ids[other_mix],
	   "inline names: the two have different ids");
	ok(one_id, "inline names: app::mix inlined twice has one id");
	ok(ov[0] >= 0 && ov[1] >= 0 && ids[ov[0]] != ids[ov[1]],
	   "inline names: the overloads app::ov(int) and app::ov(double): one name, two ids");
	prec_symtab__free(st);
	{
		struct prec_symtab_opts op = {0};
		bool mangled = false;

		op.debug_dir = "/nonexistent";
		op.no_demangle = true;
		if (prec_symtab__new(&op, &st))
			abort();
		d = prec_symtab__dso(st, exe, NULL, 0);
		for (k = 0; k < s.size && !mangled; k++) {
			n = prec_dso__inlines(d, off + k, fr, 8);
			mangled = n > 0 && !strcmp(fr[0].name, "_ZN3app3mixImEET_S1_");
		}
		ok(mangled, "inline names: --no-demangle: the linkage name as it is");
		prec_symtab__free(st);
	}
}

static void test_libc(void)
{
	void *h = dlopen(LIBC_SO, RTLD_LAZY | RTLD_NOLOAD), *fn;
	unsigned long long lo, hi, pgoff;
	char line[4096], path[PATH_MAX] = "", want[PATH_MAX];
	uint64_t off = 0;
	uint8_t bid[64];
	size_t bid_len;
	struct prec_symtab *st;
	struct prec_dso *d;
	struct prec_sym s;
	struct timespec t0, t1;
	FILE *f;
	int i, pass;

	fn = h ? dlsym(h, "malloc") : NULL;
	if (!ok(fn != NULL, "libc: dlsym(malloc) in %s", LIBC_SO))
		return;
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %4095s", &lo, &hi, &pgoff, want) ==
			4 &&
		    (uintptr_t)fn >= lo && (uintptr_t)fn < hi) {
			off = (uintptr_t)fn - lo + pgoff;
			snprintf(path, sizeof(path), "%s", want);
		}
	}
	if (f)
		fclose(f);
	dlclose(h);
	if (!ok(path[0] == '/', "libc: malloc is in %s at offset %#" PRIx64, path, off))
		return;
	bid_len = build_id_of(path, bid, sizeof(bid));
	/* with the system's debug directory (libc6-dbg, if installed), then with none */
	for (pass = 0; pass < 2; pass++) {
		st = new_symtab(pass ? "/nonexistent" : NULL, NULL, NULL, NULL);
		d = prec_symtab__dso(st, path, bid_len ? bid : NULL, bid_len);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		prec_dso__status(d);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		diag("libc symbols from %s loaded in %.3f ms", prec_dso__file_used(d),
		     (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
			 (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
		is_u64(prec_dso__status(d), PREC_DSO_OK, "libc: loads");
		/* aliases of malloc (__libc_malloc, __malloc) lose on leading underscores */
		lookup_is(d, off, "malloc", "libc: malloc's address", &s);
		lookup_is(d, off + 7, "malloc", "libc: inside malloc", NULL);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (i = 0; i < 1000000; i++)
			prec_dso__lookup(d, off + (uint64_t)(i & 1023), &s, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		diag("1e6 lookups in %.1f ms", (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
						   (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
		prec_symtab__free(st);
	}
}

/* ---- unwinding ---- */

#define UW_BASE 0x555500000000ULL /* where the test program is "mapped", at offset 0 */
#define UW_SP 0x7ffd00001000ULL

struct uw_map {
	struct prec_dso *d;
	uint64_t size;
};

static struct prec_dso *uw_find(void *arg, uint64_t pc, uint64_t *ret_off)
{
	struct uw_map *m = arg;

	if (pc < UW_BASE || pc - UW_BASE >= m->size)
		return NULL;
	*ret_off = pc - UW_BASE;
	return m->d;
}

/* The unwinder on the test program's .eh_frame, with stacks made up here. */
static void test_unwind(const char *exe, const struct offs *o)
{
	struct prec_symtab *st = new_symtab("/nonexistent", NULL, NULL, NULL);
	struct uw_map m = { prec_symtab__dso(st, exe, NULL, 0), 0 };
	struct prec_unwind_regs regs;
	uint64_t vals[20], pcs[64], stack[32], ret = UW_BASE + off_of(o, "main") + 20;
	struct stat sb;
	size_t n, i, k, worst = 0;
	unsigned seed = 12345;
	bool truncated = true;

	if (stat(exe, &sb))
		abort();
	m.size = (uint64_t)sb.st_size;
	/* perf's x86 register order: ax bx cx dx si di bp sp ip flags cs ss, then r8-r15 */
	for (i = 0; i < 20; i++)
		vals[i] = 100 + i;
	ok(!prec_unwind_regs_x86_64(&regs, 0xff0fffULL, vals) && regs.r[16] == 108 &&
		   regs.r[7] == 107 && regs.r[3] == 101 && regs.r[1] == 103 && regs.r[8] == 112 &&
		   regs.r[15] == 119 && !(regs.valid & (1u << 17)),
	   "unwind: perf's registers in DWARF numbering");
	ok(prec_unwind_regs_x86_64(&regs, 0xff0fffULL & ~(1ULL << 8), vals) == -EINVAL,
	   "unwind: no ip, no unwinding");

	/* at a function's first instruction the return address is at rsp */
	memset(&regs, 0, sizeof(regs));
	regs.r[16] = UW_BASE + off_of(o, "fn_alpha");
	regs.r[7] = UW_SP;
	regs.valid = 1u << 16 | 1u << 7;
	memset(stack, 0, sizeof(stack));
	stack[0] = ret;
	n = prec_unwind(&regs, stack, sizeof(stack), uw_find, &m, pcs, 64, &truncated);
	ok(n >= 2 && pcs[0] == regs.r[16] && pcs[1] == ret,
	   "unwind: from fn_alpha's entry to the return address in main (%zu pcs)", n);
	ok(!truncated, "unwind: a stack that ends within the copy is not truncated");
	n = prec_unwind(&regs, stack, 4, uw_find, &m, pcs, 64, &truncated);
	ok(n == 1 && truncated, "unwind: a return address beyond the copy ends it, truncated "
				"(%zu pcs)", n);
	n = prec_unwind(&regs, stack, sizeof(stack), uw_find, &m, pcs, 1, NULL);
	ok(n == 1 && pcs[0] == regs.r[16], "unwind: at most max pcs");
	regs.r[16] = 0x1000; /* nowhere */
	n = prec_unwind(&regs, stack, sizeof(stack), uw_find, &m, pcs, 64, NULL);
	ok(n == 1 && pcs[0] == 0x1000, "unwind: a pc outside every DSO is the last");

	/* garbage: any registers, any stack, never past max and never a crash */
	for (k = 0; k < 2000; k++) {
		for (i = 0; i < 32; i++) {
			seed = seed * 1103515245u + 12345u;
			stack[i] = i % 3 ? UW_BASE + (seed >> 8) % m.size : UW_SP + (seed % 256);
		}
		for (i = 0; i < PREC_UNWIND_NREGS; i++) {
			seed = seed * 1103515245u + 12345u;
			regs.r[i] = i == 7 ? UW_SP : UW_BASE + (seed >> 4) % m.size;
		}
		regs.valid = (1u << PREC_UNWIND_NREGS) - 1;
		n = prec_unwind(&regs, stack, sizeof(stack), uw_find, &m, pcs, 64, NULL);
		if (n > worst)
			worst = n;
		if (n < 1 || n > 64)
			break;
	}
	ok(k == 2000, "unwind: 2000 made-up stacks give 1..64 pcs (at most %zu)", worst);
	prec_symtab__free(st);
}

/*
 * The background loader: DSOs prefetched while the caller keeps creating others (the string
 * set is shared) come out of loader_stop() loaded exactly as a lazy load would have them.
 */
static void test_loader(const char *exe, const char *exe2, const struct offs *o)
{
	struct prec_symtab *st = new_symtab("/nonexistent", NULL, NULL, NULL);
	struct prec_symtab *ref = new_symtab("/nonexistent", NULL, NULL, NULL);
	const char *paths[] = {exe, exe2, "/nonexistent/gone", "/dev/null", "/bin/sh"};
	struct prec_dso *d[5], *r[5];
	struct prec_sym s;
	char name[64];
	size_t i, same = 0;
	int k, made = 0;

	prec_symtab__prefetch(st, prec_symtab__dso(st, "/nonexistent/x", NULL, 0));
	ok(prec_symtab__loader_start(st) == 0, "loader: started");
	ok(prec_symtab__loader_start(st) == 0, "loader: a second start is harmless");
	for (i = 0; i < 5; i++) {
		d[i] = prec_symtab__dso(st, paths[i], NULL, 0);
		prec_symtab__prefetch(st, d[i]);
		prec_symtab__prefetch(st, d[i]); /* queued once */
	}
	prec_symtab__prefetch(st, prec_symtab__kernel(st));
	/* meanwhile the caller interns paths of its own */
	for (k = 0; k < 3000; k++) {
		snprintf(name, sizeof(name), "/made/up/lib%d.so", k);
		made += prec_symtab__dso(st, name, NULL, 0) != NULL;
	}
	prec_symtab__loader_stop(st);
	prec_symtab__loader_stop(st);
	is_u64((uint64_t)made, 3000, "loader: 3000 DSOs created while it loaded");
	for (i = 0; i < 5; i++) {
		r[i] = prec_symtab__dso(ref, paths[i], NULL, 0);
		same += prec_dso__status(d[i]) == prec_dso__status(r[i]);
	}
	is_u64(same, 5, "loader: statuses as lazy loads give them (%s: %s)", paths[0],
	       prec_dso_status__str(prec_dso__status(d[0])));
	lookup_is(d[0], off_of(o, "fn_alpha") + 1, "fn_alpha", "loader: lookup after the loader",
		  &s);
	ok(prec_symtab__dso(st, "/made/up/lib2999.so", NULL, 0) != NULL &&
		   !strcmp(prec_dso__short_name(prec_symtab__dso(st, "/made/up/lib7.so", NULL, 0)),
			   "lib7.so"),
	   "loader: names interned meanwhile are intact");
	prec_symtab__free(ref);
	/* freed with the loader running: free stops it first */
	ok(prec_symtab__loader_start(st) == 0, "loader: started again");
	prec_symtab__prefetch(st, prec_symtab__dso(st, exe2, (const uint8_t *)"x", 1));
	prec_symtab__free(st);
	ok(true, "loader: symtab freed with the loader running");
}

static void test_special(void)
{
	struct prec_symtab_opts o = {.use_proc_kallsyms = true};
	struct prec_symtab *st;
	struct prec_dso *d;
	void *h, *fn;

	if (prec_symtab__new(&o, &st))
		abort();
	d = prec_symtab__dso(st, "//anon", NULL, 0);
	is_u64(prec_dso__status(d), PREC_DSO_NO_FILE, "special: //anon");
	ok(!strcmp(prec_dso__short_name(d), "[unknown]"), "special: //anon is [unknown]");
	d = prec_symtab__dso(st, "[heap]", NULL, 0);
	is_u64(prec_dso__status(d), PREC_DSO_NO_FILE, "special: [heap]");
	ok(!strcmp(prec_dso__short_name(d), "[heap]"), "special: [heap] keeps its name");
	d = prec_symtab__dso(st, "/memfd:jit (deleted)", NULL, 0);
	is_u64(prec_dso__status(d), PREC_DSO_NOT_FOUND, "special: memfd is a file not found");
	ok(!strcmp(prec_dso__short_name(d), "memfd:jit (deleted)"),
	   "special: memfd's name, as perf shows it");
	is_u64(prec_dso__status(prec_symtab__dso(st, "[anon:dalvik]", NULL, 0)), PREC_DSO_NO_FILE,
	       "special: [anon:...]");
	d = prec_symtab__dso(st, "[vdso]", NULL, 0);
	ok(!strcmp(prec_dso__short_name(d), "[vdso]"), "special: [vdso] short name");
	h = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);
	fn = h ? dlsym(h, "__vdso_clock_gettime") : NULL;
	if (fn && getauxval(AT_SYSINFO_EHDR)) {
		is_u64(prec_dso__status(d), PREC_DSO_OK, "special: this host's vdso");
		lookup_is(d, (uint64_t)((uintptr_t)fn - getauxval(AT_SYSINFO_EHDR)),
			  "__vdso_clock_gettime", "special: vdso symbol (global beats weak)", NULL);
	} else {
		diag("no vdso with __vdso_clock_gettime here; vdso lookups not checked");
	}
	if (h)
		dlclose(h);
	prec_symtab__free(st);
}

int main(void)
{
	const char *t = getenv("TMPDIR");
	char exe[PATH_MAX], inl[PATH_MAX], exe2[PATH_MAX];
	struct offs o, oi, o2;
	bool have_inl;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (system("cc --version > /dev/null 2>&1") != 0)
		return skip_all("no C compiler (cc) to build the test programs");
	snprintf(tmp, sizeof(tmp), "%s/precord-test-symbol-XXXXXX", t && t[0] ? t : "/tmp");
	if (!mkdtemp(tmp))
		return skip_all("cannot make a temporary directory");
	prec_log_set_fn(capture_log, NULL);

	snprintf(exe, sizeof(exe), "%s/offs.h", tmp);
	write_file(exe, offs_h, sizeof(offs_h) - 1);
	snprintf(exe, sizeof(exe), "%s/prog.c", tmp);
	write_file(exe, prog_c, sizeof(prog_c) - 1);
	snprintf(inl, sizeof(inl), "%s/inl.c", tmp);
	write_file(inl, inl_c, sizeof(inl_c) - 1);
	if (sh("cd '%s' && cc -O1 -g -fPIE -pie -Wl,--build-id -o prog prog.c", tmp)) {
		sh("rm -rf '%s'", tmp);
		return skip_all("cc cannot build a PIE here");
	}
	snprintf(exe, sizeof(exe), "%s/prog", tmp);
	if (!run_offsets(exe, &o)) {
		sh("rm -rf '%s'", tmp);
		return skip_all("cannot run a program built in TMPDIR (noexec?)");
	}
	have_inl = !sh("cd '%s' && cc -O2 -g -fPIE -pie -Wl,--build-id -o inl inl.c", tmp);
	snprintf(inl, sizeof(inl), "%s/inl", tmp);

	test_prog(exe, &o, false);
	if (system("strip --version > /dev/null 2>&1 && objcopy --version > /dev/null 2>&1") == 0)
		test_stripped(exe, tmp, &o);
	else
		diag("no strip/objcopy (binutils): stripped binaries and debug files not checked");
	test_mismatch_and_missing(exe, &o);
	test_identity(exe, &o);
	snprintf(exe2, sizeof(exe2), "%s/prog-exec", tmp);
	if (!sh("cd '%s' && cc -O1 -g -fno-pie -no-pie -Wl,--build-id -o prog-exec prog.c", tmp) &&
	    ok(run_offsets(exe2, &o2), "the non-PIE test program prints its offsets")) {
		diag("the same checks on a non-PIE executable (ET_EXEC):");
		test_prog(exe2, &o2, true);
	}
	test_demangle();
	test_bad_files(exe);
	test_kallsyms();
	test_kallsyms_pfx();
	test_kcache();
	test_jit();
	if (have_inl && ok(run_offsets(inl, &oi), "the inline program prints its offsets"))
		test_inlines(inl, &oi);
	if (!system("c++ --version > /dev/null 2>&1")) {
		char cxx[PATH_MAX];
		struct offs oc;

		snprintf(cxx, sizeof(cxx), "%s/inl.cc", tmp);
		write_file(cxx, inl_cc, sizeof(inl_cc) - 1);
		snprintf(cxx, sizeof(cxx), "%s/inlcc", tmp);
		if (ok(!sh("cd '%s' && c++ -O2 -g -fPIE -pie -o inlcc inl.cc", tmp),
		       "the C++ inline program builds") &&
		    ok(run_offsets(cxx, &oc), "the C++ inline program prints its offsets"))
			test_inline_names(cxx, &oc);
	} else {
		diag("no C++ compiler (c++): C++ inline names not checked");
	}
	test_libc();
	test_loader(exe, exe2, &o);
	test_unwind(exe, &o);
	test_special();

	prec_log_set_fn(NULL, NULL);
	sh("rm -rf '%s'", tmp);
	return done_testing();
}
