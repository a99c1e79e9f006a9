/* SPDX-License-Identifier: MIT */
/*
 * Text symbol files: the kernel's kallsyms and the perf-PID.map files JIT compilers write.
 *
 * Each file is read in chunks and parsed as it comes; the names of the symbols kept are
 * copied into one buffer that the DSO keeps, so there is no allocation per symbol.  Files
 * must be regular and at most PREC_TEXT_MAX_SIZE bytes; a JIT map must also belong to root or
 * to us, since its names end up in reports.  Lines that do not parse are skipped.  Kernel
 * symbols follow perf: text symbols (t, T, w, W) including those of modules, zero-size,
 * ending where the next begins.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prec_buf.h"
#include "prec_log.h"
#include "prec_symbol_int.h"

/* Bytes read at a time; a longer line is skipped like any line that does not parse. */
#define LINE_CHUNK (256 * 1024)

typedef int (*line_fn)(void *arg, char *line, size_t len);

/* The open file at `path` if it is a regular file we may read symbols from, or -errno. */
static int open_text(const char *path, bool check_owner)
{
	struct stat st;
	int fd, err;

	/* stat first so devices and FIFOs are refused without being opened */
	if (stat(path, &st)) {
		if (errno == ENOENT || errno == ENOTDIR)
			return -ENOENT;
	} else if (!S_ISREG(st.st_mode)) {
		prec_warn("%s: not a regular file; not read for symbols", path);
		return -EINVAL;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		err = -errno;
		if (err != -ENOENT && err != -ENOTDIR)
			prec_warn("%s: cannot open: %s", path, strerror(-err));
		return err == -ENOTDIR ? -ENOENT : err;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		prec_warn("%s: not a regular file; not read for symbols", path);
		err = -EINVAL;
		goto fail;
	}
	if ((uint64_t)st.st_size > PREC_TEXT_MAX_SIZE) {
		prec_warn("%s: larger than %llu MiB; not read for symbols", path,
			  PREC_TEXT_MAX_SIZE >> 20);
		err = -EFBIG;
		goto fail;
	}
	if (check_owner && st.st_uid != 0 && st.st_uid != geteuid()) {
		prec_warn("%s: owned by uid %u, neither root nor us; not read for symbols", path,
			  (unsigned)st.st_uid);
		err = -EPERM;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return err;
}

/*
 * Call fn for each line of the text file at `path` (see open_text(); at most
 * PREC_TEXT_MAX_SIZE bytes however much stat says: /proc files say 0), the line
 * NUL-terminated without its newline and valid during the call only.  The file is read in
 * chunks and parsed as it comes: /proc/kallsyms is ~5 MB, reading it whole first cost a
 * chain of reallocations and more passes over the text.  fn's error ends the walk.
 */
static int for_each_line(const char *path, bool check_owner, line_fn fn, void *arg)
{
	uint64_t total = 0;
	size_t have = 0;
	bool skipping = false;
	char *buf;
	int fd, err = 0;

	fd = open_text(path, check_owner);
	if (fd < 0)
		return fd;
	buf = malloc(LINE_CHUNK + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n = read(fd, buf + have, LINE_CHUNK - have);
		char *p, *nl, *end;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			prec_warn("%s: read failed: %s", path, strerror(-err));
			goto out;
		}
		if (!n)
			break;
		total += (uint64_t)n;
		if (total > PREC_TEXT_MAX_SIZE) {
			prec_warn("%s: larger than %llu MiB; not read for symbols", path,
				  PREC_TEXT_MAX_SIZE >> 20);
			err = -EFBIG;
			goto out;
		}
		end = buf + have + n;
		for (p = buf; (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1) {
			*nl = 0;
			if (!skipping && (err = fn(arg, p, (size_t)(nl - p))))
				goto out;
			skipping = false;
		}
		have = (size_t)(end - p);
		if (have == LINE_CHUNK) { /* no newline in a whole chunk */
			skipping = true;
			have = 0;
		} else {
			memmove(buf, p, have);
		}
	}
	if (have && !skipping) { /* the last line has no newline */
		buf[have] = 0;
		err = fn(arg, buf, have);
	}
out:
	free(buf);
	close(fd);
	return err;
}

/*
 * Symbol names copied out of the lines, NUL-separated in one buffer in the order their
 * entries were pushed: the i-th entry has the i-th name, so the entries point at them once
 * the buffer has stopped growing (names_link()).
 */
struct names {
	char *p;
	size_t len, cap;
};

/* Push an entry named by the `len` bytes at `name` (none for an empty name). */
static int push_named(struct prec_symvec *sv, struct names *nm, uint64_t start, uint64_t size,
		      const char *name, size_t len, uint8_t bind)
{
	int err;

	len = strnlen(name, len); /* a NUL inside the line ends the name */
	if (!len)
		return 0;
	if (prec_array__grow((void **)&nm->p, &nm->cap, nm->len + len + 1, 1, 1 << 20))
		return -ENOMEM;
	err = prec_symvec__push(sv, start, size, NULL, bind);
	if (err)
		return err;
	memcpy(nm->p + nm->len, name, len);
	nm->p[nm->len + len] = 0;
	nm->len += len + 1;
	return 0;
}

/* Point the entries at their names (before anything reorders them). */
static void names_link(struct prec_symvec *sv, struct names *nm)
{
	const char *q;
	uint32_t i;

	if (nm->cap - nm->len > 65536) { /* kept for the run: give back the slack */
		char *np = realloc(nm->p, nm->len ? nm->len : 1);

		if (np) {
			nm->p = np;
			nm->cap = nm->len;
		}
	}
	for (i = 0, q = nm->p; i < sv->n; i++, q += strlen(q) + 1)
		sv->v[i].name = q;
}

/* After a walk: on error free what it gathered and pass the error on; else point the
 * entries at their names and sort them. */
static int walk_done(struct prec_symvec *sv, struct names *nm, int err)
{
	if (err) {
		prec_symvec__release(sv);
		free(nm->p);
		return err;
	}
	names_link(sv, nm);
	prec_symvec__sort(sv);
	return 0;
}

/* Give d the sorted symbols and the names they point into. */
static void adopt(struct prec_dso *d, struct prec_symvec *sv, struct names *nm)
{
	prec_symvec__link(sv);
	d->syms = sv->v;
	d->nsyms = sv->n;
	d->image = nm->p;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* A hex number at *p (optional 0x); advances *p. false when there are no digits or too many. */
static bool parse_hex(char **p, uint64_t *ret)
{
	char *s = *p;
	uint64_t v = 0;
	int digits = 0, h;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && hexval((unsigned char)s[2]) >= 0)
		s += 2;
	while ((h = hexval((unsigned char)*s)) >= 0) {
		if (++digits > 16)
			return false;
		v = v << 4 | (uint64_t)h;
		s++;
	}
	if (!digits)
		return false;
	*p = s;
	*ret = v;
	return true;
}

static int module_index(struct prec_symtab *st, const char *name, size_t len, uint16_t *ret)
{
	const char *m = prec_symtab__intern_n(st, name, len);
	uint32_t i;

	if (!m)
		return -ENOMEM;
	for (i = 0; i < st->nmodules; i++) {
		if (st->modules[i] == m) {
			*ret = (uint16_t)(i + 1);
			return 0;
		}
	}
	if (st->nmodules >= UINT16_MAX - 1)
		return -E2BIG;
	if (prec_array__grow((void **)&st->modules, &st->capmodules, st->nmodules + 1,
			     sizeof(*st->modules), 64))
		return -ENOMEM;
	st->modules[st->nmodules++] = m;
	*ret = (uint16_t)st->nmodules;
	return 0;
}

struct kallsyms_walk {
	struct prec_dso *d;
	struct prec_symvec sv;
	struct names nm;
	const char *mod_prev; /* interned name of the last line's module, and its index */
	size_t mod_prev_len;
	uint16_t mod_prev_idx;
	bool any, nonzero;
};

/* The start of a kallsyms line, "ADDRESS TYPE ": false if it is not that; else *ret_name. */
static bool kallsyms_head(char *line, uint64_t *ret_addr, char *ret_type, char **ret_name)
{
	if (!parse_hex(&line, ret_addr) || line[0] != ' ' || !line[1] || line[2] != ' ')
		return false;
	*ret_type = line[1];
	*ret_name = line + 3;
	return true;
}

/* One line of kallsyms: "ADDRESS TYPE NAME[\t[MODULE]]". */
static int kallsyms_line(void *arg, char *line, size_t len)
{
	struct kallsyms_walk *w = arg;
	char *end = line + len, *name, *tab;
	uint64_t addr;
	uint16_t mod = 0;
	char type;
	int err;

	if (!kallsyms_head(line, &addr, &type, &name))
		return 0;
	w->any = true;
	if (addr)
		w->nonzero = true;
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	tab = memchr(name, '\t', (size_t)(end - name));
	if (tab) {
		const char *m = tab + 1;
		size_t mlen = (size_t)(end - m);

		end = tab;
		while (mlen && isspace((unsigned char)m[mlen - 1]))
			mlen--;
		if (mlen) {
			if (w->mod_prev && mlen == w->mod_prev_len && !memcmp(m, w->mod_prev, mlen)) {
				mod = w->mod_prev_idx;
			} else {
				err = module_index(w->d->st, m, mlen, &mod);
				if (err)
					return err;
				w->mod_prev = w->d->st->modules[mod - 1];
				w->mod_prev_len = mlen;
				w->mod_prev_idx = mod;
			}
		}
	}
	/* ARM local labels */
	if (name == end || name[0] == '$')
		return 0;
	err = push_named(&w->sv, &w->nm, addr, 0, name, (size_t)(end - name),
			 type == 'w' || type == 'W'     ? STB_WEAK
			 : isupper((unsigned char)type) ? STB_GLOBAL
							: STB_LOCAL);
	if (err)
		return err;
	w->sv.v[w->sv.n - 1].module = mod;
	return 0;
}

int prec_kallsyms_load(struct prec_dso *d, const char *path)
{
	struct kallsyms_walk w = { .d = d };
	int err;

	/* /proc/kallsyms says size 0; a kernel has ~100k-300k text symbols */
	err = prec_symvec__reserve(&w.sv, 1 << 17);
	if (!err)
		err = for_each_line(path, false, kallsyms_line, &w);
	if (!err && w.any && !w.nonzero)
		err = -ENODATA;
	err = walk_done(&w.sv, &w.nm, err);
	if (err)
		return err;
	prec_symvec__fixup_end(&w.sv, true);
	prec_symvec__dedup(&w.sv);
	adopt(d, &w.sv, &w.nm);
	return 0;
}

int prec_kallsyms_check(const char *path)
{
	char buf[512], *nl, *name, type;
	struct stat st;
	uint64_t addr;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto out;
	}
	err = -EINVAL;
	if (!S_ISREG(st.st_mode))
		goto out;
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	err = n < 0 ? -errno : !n ? -ENODATA : -EBADMSG;
	if (n <= 0)
		goto out;
	buf[n] = 0;
	nl = strchr(buf, '\n');
	if (nl)
		*nl = 0;
	if (kallsyms_head(buf, &addr, &type, &name) && *name)
		err = 0;
out:
	close(fd);
	return err;
}

struct jitmap_walk {
	struct prec_symvec sv;
	struct names nm;
};

/* One line of a perf-PID.map: "START SIZE NAME", hex, 0x optional. */
static int jitmap_line(void *arg, char *line, size_t len)
{
	struct jitmap_walk *w = arg;
	char *end = line + len;
	uint64_t start, size;

	while (*line == ' ' || *line == '\t')
		line++;
	if (!parse_hex(&line, &start) || *line != ' ')
		return 0;
	while (*line == ' ')
		line++;
	if (!parse_hex(&line, &size) || *line != ' ')
		return 0;
	line++;
	while (end > line && (end[-1] == '\r' || end[-1] == ' '))
		end--;
	if (end == line)
		return 0;
	return push_named(&w->sv, &w->nm, start, size, line, (size_t)(end - line), STB_GLOBAL);
}

int prec_jitmap_load(struct prec_dso *d, const char *path)
{
	struct jitmap_walk w = { 0 };
	uint32_t i, out;
	int err;

	err = walk_done(&w.sv, &w.nm, for_each_line(path, true, jitmap_line, &w));
	if (err)
		return err;
	/*
	 * perf neither stretches nor deduplicates JIT symbols: a zero size covers its start only.
	 * Code regenerated at an address shows up later in the file, so the last entry for a
	 * start wins.
	 */
	for (i = 0, out = 0; i < w.sv.n; i++) {
		if (out && w.sv.v[out - 1].start == w.sv.v[i].start)
			w.sv.v[out - 1] = w.sv.v[i];
		else
			w.sv.v[out++] = w.sv.v[i];
	}
	w.sv.n = out;
	adopt(d, &w.sv, &w.nm);
	return 0;
}
