/* SPDX-License-Identifier: MIT */
/*
 * Text symbol files: the kernel's kallsyms and the perf-PID.map files JIT compilers write.
 *
 * Each file is read whole into one buffer that the DSO keeps: symbol names are cut out of it
 * in place, so there is no allocation per symbol.  Files must be regular and at most
 * PREC_TEXT_MAX_SIZE bytes; a JIT map must also belong to root or to us, since its names end
 * up in reports.  Lines that do not parse are skipped.  Kernel symbols follow perf: text
 * symbols (t, T, w, W) including those of modules, zero-size, ending where the next begins.
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

int prec_read_text_file(const char *path, bool check_owner, char **ret, size_t *ret_len)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0, cap = 0;
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
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		prec_warn("%s: not a regular file; not read for symbols", path);
		err = -EINVAL;
		goto out;
	}
	if ((uint64_t)st.st_size > PREC_TEXT_MAX_SIZE) {
		prec_warn("%s: larger than %llu MiB; not read for symbols", path,
			  PREC_TEXT_MAX_SIZE >> 20);
		err = -EFBIG;
		goto out;
	}
	if (check_owner && st.st_uid != 0 && st.st_uid != geteuid()) {
		prec_warn("%s: owned by uid %u, neither root nor us; not read for symbols", path,
			  (unsigned)st.st_uid);
		err = -EPERM;
		goto out;
	}
	/* /proc files say size 0: read until EOF, within the cap */
	for (;;) {
		ssize_t n;

		if (cap - len < 65536) {
			size_t ncap = cap ? cap * 2 : (size_t)st.st_size + 65536;
			char *nb;

			/* len <= PREC_TEXT_MAX_SIZE here, so a read always has room */
			if (ncap > PREC_TEXT_MAX_SIZE + 65536)
				ncap = PREC_TEXT_MAX_SIZE + 65536;
			nb = realloc(buf, ncap);
			if (!nb) {
				err = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			prec_warn("%s: read failed: %s", path, strerror(-err));
			goto out;
		}
		if (!n)
			break;
		len += (size_t)n;
		if (len > PREC_TEXT_MAX_SIZE) {
			prec_warn("%s: larger than %llu MiB; not read for symbols", path,
				  PREC_TEXT_MAX_SIZE >> 20);
			err = -EFBIG;
			goto out;
		}
	}
	buf[len] = 0;
	close(fd);
	if (cap - len > 65536) { /* kept for the run (names point into it): give back the slack */
		char *nb = realloc(buf, len + 1);

		if (nb)
			buf = nb;
	}
	*ret = buf;
	*ret_len = len;
	return 0;
out:
	free(buf);
	close(fd);
	return err;
}

/*
 * Read the text file at `path` (see prec_read_text_file()) for a loader that makes at most
 * one entry per line: that many are reserved in sv, so pushes never reallocate.  On error
 * nothing is left allocated.
 */
static int read_lines(const char *path, bool check_owner, struct prec_symvec *sv, char **ret)
{
	const char *p, *end;
	uint64_t n = 1;
	size_t len;
	char *buf;
	int err;

	err = prec_read_text_file(path, check_owner, &buf, &len);
	if (err)
		return err;
	for (p = buf, end = buf + len; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		n++;
	err = prec_symvec__reserve(sv, n > PREC_SYMS_MAX ? PREC_SYMS_MAX : (uint32_t)n);
	if (err) {
		free(buf);
		return err;
	}
	*ret = buf;
	return 0;
}

/* Give d the sorted symbols and the text their names point into. */
static void adopt(struct prec_dso *d, struct prec_symvec *sv, char *buf)
{
	prec_symvec__link(sv);
	d->syms = sv->v;
	d->nsyms = sv->n;
	d->image = buf;
}

/* The line at *p, NUL-terminated in place, *p moved past it; NULL at the end of the text. */
static char *next_line(char **p)
{
	char *line = *p, *eol;

	if (!*line)
		return NULL;
	eol = strchr(line, '\n');
	if (!eol)
		eol = line + strlen(line);
	*p = *eol ? eol + 1 : eol;
	*eol = 0;
	return line;
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

int prec_kallsyms_load(struct prec_dso *d, const char *path)
{
	struct prec_symvec sv = { 0 };
	char *buf, *p, *line, *mod_prev = NULL;
	size_t mod_prev_len = 0;
	uint16_t mod_prev_idx = 0;
	bool nonzero = false, any = false;
	int err;

	err = read_lines(path, false, &sv, &buf);
	if (err)
		return err;
	for (p = buf; (line = next_line(&p));) {
		char *name, *tab;
		uint64_t addr;
		char type;
		uint16_t mod = 0;

		if (!parse_hex(&line, &addr) || line[0] != ' ' || !line[1] || line[2] != ' ')
			continue;
		type = line[1];
		name = line + 3;
		any = true;
		if (addr)
			nonzero = true;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		tab = strchr(name, '\t');
		if (tab) {
			char *m = tab + 1;
			size_t mlen = strlen(m);

			*tab = 0;
			while (mlen && isspace((unsigned char)m[mlen - 1]))
				mlen--;
			if (mlen) {
				if (mod_prev && mlen == mod_prev_len &&
				    !memcmp(m, mod_prev, mlen)) {
					mod = mod_prev_idx;
				} else {
					err = module_index(d->st, m, mlen, &mod);
					if (err)
						goto fail;
					mod_prev = m;
					mod_prev_len = mlen;
					mod_prev_idx = mod;
				}
			}
		}
		/* ARM local labels */
		if (!name[0] || name[0] == '$')
			continue;
		err = prec_symvec__push(&sv, addr, 0, name,
					type == 'w' || type == 'W'     ? STB_WEAK
					: isupper((unsigned char)type) ? STB_GLOBAL
								       : STB_LOCAL,
					STT_FUNC);
		if (err)
			goto fail;
		sv.v[sv.n - 1].module = mod;
	}
	if (any && !nonzero) {
		err = -ENODATA;
		goto fail;
	}
	prec_symvec__sort(&sv);
	prec_symvec__fixup_end(&sv, true);
	prec_symvec__dedup(&sv);
	adopt(d, &sv, buf);
	return 0;
fail:
	prec_symvec__release(&sv);
	free(buf);
	return err;
}

int prec_jitmap_load(struct prec_dso *d, const char *path)
{
	struct prec_symvec sv = { 0 };
	char *buf, *p, *line;
	uint32_t i, out;
	int err;

	err = read_lines(path, true, &sv, &buf);
	if (err)
		return err;
	for (p = buf; (line = next_line(&p));) {
		uint64_t start, size;
		size_t n;

		while (*line == ' ' || *line == '\t')
			line++;
		if (!parse_hex(&line, &start) || *line != ' ')
			continue;
		while (*line == ' ')
			line++;
		if (!parse_hex(&line, &size) || *line != ' ')
			continue;
		line++;
		n = strlen(line);
		while (n && (line[n - 1] == '\r' || line[n - 1] == ' '))
			line[--n] = 0;
		if (!n)
			continue;
		err = prec_symvec__push(&sv, start, size, line, STB_GLOBAL, STT_FUNC);
		if (err)
			goto fail;
	}
	/*
	 * perf neither stretches nor deduplicates JIT symbols: a zero size covers its start only.
	 * Code regenerated at an address shows up later in the file, so the last entry for a
	 * start wins.
	 */
	prec_symvec__sort(&sv);
	for (i = 0, out = 0; i < sv.n; i++) {
		if (out && sv.v[out - 1].start == sv.v[i].start)
			sv.v[out - 1] = sv.v[i];
		else
			sv.v[out++] = sv.v[i];
	}
	sv.n = out;
	adopt(d, &sv, buf);
	return 0;
fail:
	prec_symvec__release(&sv);
	free(buf);
	return err;
}
