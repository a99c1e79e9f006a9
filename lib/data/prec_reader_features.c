/* SPDX-License-Identifier: MIT */
/*
 * The reader's header features (build-ids, cmdline, event descriptions, ...): their payloads
 * taken from the file form's feature sections or from pipe-form HEADER_FEATURE records, kept
 * as they are, and the cursor (prec_feat__*) that callers decode them with.  The only payloads
 * read here are EVENT_DESC's (the events' names; its walker, prec_event_desc__*, is also the
 * --header printer's) and VERSION's prefix.
 *
 * Invariants: a file-form payload is at most MAX_FEATURE_SIZE bytes and was checked against
 * the file's size before anything was allocated for it (a pipe-form one is bounded by its
 * record's size); a feature read again replaces the earlier copy; an unknown feature number
 * is never stored; a feature whose section or record is bad is skipped with a warning, never
 * an error of the stream.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "prec_log.h"
#include "prec_reader_int.h"

#define MAX_FEATURE_SIZE (64U << 20)

int prec_feat__bytes(struct prec_feat_cursor *c, size_t n, const void **ret)
{
	if (c->off > c->len || n > c->len - c->off)
		return -EBADMSG;
	*ret = c->p + c->off;
	c->off += n;
	return 0;
}

int prec_feat__u32(struct prec_feat_cursor *c, uint32_t *ret)
{
	const void *p;
	int err = prec_feat__bytes(c, 4, &p);

	if (!err)
		memcpy(ret, p, 4);
	return err;
}

int prec_feat__u64(struct prec_feat_cursor *c, uint64_t *ret)
{
	const void *p;
	int err = prec_feat__bytes(c, 8, &p);

	if (!err)
		memcpy(ret, p, 8);
	return err;
}

int prec_feat__string(struct prec_feat_cursor *c, char **ret)
{
	const void *p;
	uint32_t len;
	char *s;
	int err = prec_feat__u32(c, &len);

	if (!err)
		err = prec_feat__bytes(c, len, &p);
	if (err)
		return err;
	s = strndup(p, len);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

int prec_event_desc__begin(struct prec_feat_cursor *c, uint32_t *ret_nr, uint32_t *ret_attr_size)
{
	uint32_t nr, asz;
	int err = prec_feat__u32(c, &nr);

	if (!err)
		err = prec_feat__u32(c, &asz);
	if (err)
		return err;
	if (nr && asz < PERF_ATTR_SIZE_VER0)
		return -EBADMSG;
	*ret_nr = nr;
	*ret_attr_size = asz;
	return 0;
}

int prec_event_desc__next(struct prec_feat_cursor *c, uint32_t attr_size,
			  struct prec_event_desc *ret)
{
	const void *attr, *ids;
	uint32_t nr_ids;
	char *name;
	int err = prec_feat__bytes(c, attr_size, &attr);

	if (!err)
		err = prec_feat__u32(c, &nr_ids);
	if (!err)
		err = prec_feat__string(c, &name);
	if (err)
		return err;
	if (nr_ids > (c->len - c->off) / 8 || prec_feat__bytes(c, (size_t)nr_ids * 8, &ids)) {
		free(name);
		return -EBADMSG;
	}
	memset(&ret->attr, 0, sizeof(ret->attr));
	memcpy(&ret->attr, attr, attr_size < sizeof(ret->attr) ? attr_size : sizeof(ret->attr));
	ret->name = name;
	ret->ids = ids;
	ret->nr_ids = nr_ids;
	return 0;
}

/* Walk an EVENT_DESC payload; with `apply`, name the events that have no recorded name
 * yet.  0 or -errno. */
static int walk_event_desc(struct prec_reader *r, const void *data, size_t len, bool apply)
{
	struct prec_feat_cursor c = { data, len, 0 };
	struct prec_event_desc e;
	uint32_t nr, asz, i;
	int err = prec_event_desc__begin(&c, &nr, &asz);

	for (i = 0; !err && i < nr; i++) {
		err = prec_event_desc__next(&c, asz, &e);
		if (err)
			break;
		if (apply && i < r->nr_evsels && !r->named[i])
			prec_reader__set_name(r, i, e.name);
		free(e.name);
	}
	return err;
}

/* EVENT_DESC's names, all or none: none from a payload that does not decode to its end, as
 * the --header printer then calls the whole feature malformed. */
static void apply_event_desc(struct prec_reader *r, const void *data, size_t len)
{
	if (!walk_event_desc(r, data, len, false))
		walk_event_desc(r, data, len, true);
}

/* Keep `data` (malloc'ed, `len` bytes; taken) as feature `feat`. */
static void store_feature(struct prec_reader *r, unsigned int feat, void *data, size_t len)
{
	struct prec_reader_feature *f = &r->features[feat];

	free(f->data);
	f->data = data;
	f->len = len;
	f->present = true;
	if (feat == PREC_FEAT_EVENT_DESC)
		apply_event_desc(r, data, len);
}

int prec_reader__read_features(struct prec_reader *r, uint64_t off, const uint64_t bits[4])
{
	uint64_t fsize = prec_src__size(&r->src);
	unsigned int feat, k;
	void *data;

	for (feat = 0, k = 0; feat < PREC_FEAT_BITS; feat++) {
		uint64_t sec[2];

		if (!(bits[feat / 64] & (1ULL << (feat % 64))))
			continue;
		k++;
		if (feat >= PREC_FEAT_LAST || feat == 0)
			continue;
		if (prec_src__pread(&r->src, off + (uint64_t)(k - 1) * 16, sec, 16)) {
			prec_warn("feature table is truncated; %s and later features skipped",
				  prec_feature_name(feat));
			break;
		}
		if (sec[1] > MAX_FEATURE_SIZE) {
			prec_warn("feature %s: size %" PRIu64 " is not sane; skipped",
				  prec_feature_name(feat), sec[1]);
			continue;
		}
		/* before allocating: the size comes from the file */
		if (fsize != PREC_NO_LIMIT && (sec[0] > fsize || sec[1] > fsize - sec[0])) {
			prec_warn("feature %s lies outside the file; skipped",
				  prec_feature_name(feat));
			continue;
		}
		data = malloc(sec[1] ? sec[1] : 1);
		if (!data)
			return -ENOMEM;
		if (prec_src__pread(&r->src, sec[0], data, sec[1])) {
			free(data);
			prec_warn("feature %s lies outside the file; skipped",
				  prec_feature_name(feat));
			continue;
		}
		store_feature(r, feat, data, sec[1]);
	}
	return 0;
}

void prec_reader__absorb_feature(struct prec_reader *r, const unsigned char *p, size_t size,
				 uint64_t off)
{
	struct prec_rec_feature f;
	uint64_t feat;
	void *data;

	if (prec_rec_feature__parse(p, size, &f)) {
		prec_warn("offset %#" PRIx64 ": HEADER_FEATURE too short; ignored", off);
		return;
	}
	feat = f.feat;
	if (feat == PREC_FEAT_LAST) {
		r->features_ended = true;
		return;
	}
	if (feat == PREC_FEAT_SAMPLE_TIME && r->features_ended)
		r->end_marker = true;
	if (feat == 0 || feat >= PREC_FEAT_LAST) {
		prec_warn("offset %#" PRIx64 ": unknown feature %" PRIu64 "; ignored", off, feat);
		return;
	}
	data = malloc(f.len ? f.len : 1);
	if (!data) {
		prec_warn("offset %#" PRIx64 ": out of memory storing a feature", off);
		return;
	}
	if (f.len)
		memcpy(data, f.data, f.len);
	store_feature(r, (unsigned int)feat, data, f.len);
}

const void *prec_reader__feature(const struct prec_reader *r, unsigned int feat, size_t *ret_len)
{
	if (feat >= PREC_FEAT_BITS || !r->features[feat].present)
		return NULL;
	if (ret_len)
		*ret_len = r->features[feat].len;
	return r->features[feat].data;
}

bool prec_reader__from_precord(const struct prec_reader *r)
{
	const struct prec_reader_feature *f = &r->features[PREC_FEAT_VERSION];
	/* a perf string: u32 length, then the text */
	struct prec_feat_cursor c = { f->data, f->len, 4 };
	size_t n = sizeof(PREC_VERSION_PREFIX) - 1;
	const void *p;

	return f->present && !prec_feat__bytes(&c, n, &p) && !memcmp(p, PREC_VERSION_PREFIX, n);
}

void prec_reader__free_features(struct prec_reader *r)
{
	size_t i;

	for (i = 0; i < PREC_FEAT_BITS; i++)
		free(r->features[i].data);
}
