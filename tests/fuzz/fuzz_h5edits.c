/* fuzz_h5edits.c - libFuzzer harness for the results reader, aware of the file's structure
 * (docs/reliability.md, "Fuzzing"). fuzz_results.c feeds the reader arbitrary bytes, and HDF5 1.10's
 * own decoding of object headers overflows on those before sax's checks run; this harness instead
 * changes a valid results file (tests/fuzz/corpus/results/seed-tiny-sweep.h5) through the HDF5 API,
 * so that the file stays well-formed HDF5 and what is exercised is what sax checks: fields, types,
 * sizes, attributes and values. The input is a program: its first byte gives the number of edits
 * (1 to 4), then 8 bytes per edit (what, object or attribute, member, value, element as a 32-bit
 * number), then a text used where an edit writes a string. The edits:
 *   0 a value of one element (and member) of a dataset: NaN, infinities, -1, 0, -0, 1e308, 5e-324,
 *     2^31, -2^31 - 1, 2^53 + 1, 1, 3, 1e9 (integers clamped), or the text for a string;
 *   1 a dataset with another number of elements (rows cut off, or added as zeros and NULL strings);
 *   2 a compound dataset without one of its fields;  3 one field of another type (int, double, text);
 *   4 an attribute deleted;  5 an attribute replaced by an int, a double, a text or an array of doubles;
 *   6 an object deleted;  7 a field renamed.
 * The file is then read with the invariants of fuzz_results.h. Objects and attributes are chosen by
 * their number modulo how many there are, listed again after each edit. */
#include "fuzz_results.h"

#include <hdf5.h>
#include <limits.h>
#include <math.h>

#define MAX_OBJECTS 64
#define MAX_ATTRS 512
#define TEXT_MAX 64

typedef struct {
    char path[256];
    bool dataset;
} object_t;

typedef struct {
    int object;
    char name[128];
} attr_t;

typedef struct {
    object_t object[MAX_OBJECTS];
    attr_t attr[MAX_ATTRS];
    int n_objects, n_attrs;
} listing_t;

static const double values[] = {
    NAN,          INFINITY,      -INFINITY,          -1.0, 0.0, -0.0, 1e308, 5e-324,
    2147483648.0, -2147483649.0, 9007199254740993.0, 1.0,  3.0, 1e9};
#define N_VALUES (sizeof values / sizeof values[0])

static herr_t list_object(hid_t root, const char *name, const H5O_info_t *info, void *op)
{
    listing_t *l = op;
    if (l->n_objects >= MAX_OBJECTS)
        return 0;
    object_t *o = &l->object[l->n_objects];
    if ((size_t)snprintf(o->path, sizeof o->path, "%s", name) >= sizeof o->path)
        return 0;
    o->dataset = info->type == H5O_TYPE_DATASET;
    for (hsize_t i = 0; i < info->num_attrs && l->n_attrs < MAX_ATTRS; i++) {
        attr_t *a = &l->attr[l->n_attrs];
        ssize_t len = H5Aget_name_by_idx(root, name, H5_INDEX_NAME, H5_ITER_INC, i, a->name, sizeof a->name,
                                         H5P_DEFAULT);
        if (len > 0 && (size_t)len < sizeof a->name) {
            a->object = l->n_objects;
            l->n_attrs++;
        }
    }
    l->n_objects++;
    return 0;
}

static void list(hid_t file, listing_t *l)
{
    l->n_objects = l->n_attrs = 0;
    H5Ovisit(file, H5_INDEX_NAME, H5_ITER_INC, list_object, l);
}

/* The n-th dataset of the listing, or NULL. */
static const char *dataset(const listing_t *l, unsigned n)
{
    int count = 0;
    for (int i = 0; i < l->n_objects; i++)
        count += l->object[i].dataset;
    if (count == 0)
        return NULL;
    n %= (unsigned)count;
    for (int i = 0; i < l->n_objects; i++)
        if (l->object[i].dataset && n-- == 0)
            return l->object[i].path;
    return NULL;
}

/* Writes value v (or the text, for a string) into one element of native type t at p. The text is
 * the caller's: the pointer a variable-length string held is returned, to be put back before HDF5
 * reclaims the buffer. */
static char *poke(hid_t t, unsigned char *p, double v, char *text)
{
    size_t size = H5Tget_size(t);
    switch (H5Tget_class(t)) {
    case H5T_FLOAT:
        if (size == sizeof(double))
            memcpy(p, &v, sizeof v);
        else if (size == sizeof(float)) {
            float f = (float)(isfinite(v) && fabs(v) > 3e38 ? copysign(3e38, v) : v);
            memcpy(p, &f, sizeof f);
        }
        return NULL;
    case H5T_INTEGER:
    case H5T_ENUM: {
        long long x = isnan(v) ? 0 : v >= 9.2e18 ? LLONG_MAX : v <= -9.2e18 ? LLONG_MIN : (long long)v;
        if (size <= sizeof x)
            memcpy(p, &x, size); /* little-endian: the low bytes */
        return NULL;
    }
    case H5T_STRING:
        if (H5Tis_variable_str(t) > 0) {
            char *old;
            memcpy(&old, p, sizeof old);
            memcpy(p, &text, sizeof text);
            return old;
        }
        memset(p, 0, size);
        memcpy(p, text, strlen(text) < size ? strlen(text) : size);
        return NULL;
    default: return NULL;
    }
}

/* Edit 0: one element (and member) of dataset `path` set to values[v % N_VALUES], or the text. */
static void set_value(hid_t file, const char *path, unsigned member, unsigned v, uint32_t element, char *text)
{
    hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
    hid_t ft = d < 0 ? -1 : H5Dget_type(d), space = d < 0 ? -1 : H5Dget_space(d);
    hid_t nt = ft < 0 ? -1 : H5Tget_native_type(ft, H5T_DIR_DEFAULT);
    hssize_t n = space < 0 ? 0 : H5Sget_simple_extent_npoints(space);
    size_t size = nt < 0 ? 0 : H5Tget_size(nt);
    unsigned char *buf = n > 0 && size > 0 ? calloc((size_t)n, size) : NULL;
    if (buf != NULL && H5Dread(d, nt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0) {
        hid_t mt = nt;
        size_t offset = 0;
        if (H5Tget_class(nt) == H5T_COMPOUND && H5Tget_nmembers(nt) > 0) {
            unsigned k = member % (unsigned)H5Tget_nmembers(nt);
            mt = H5Tget_member_type(nt, k);
            offset = H5Tget_member_offset(nt, k);
        }
        unsigned char *at = buf + (size_t)(element % (uint64_t)n) * size + offset;
        char *old = poke(mt, at, values[v % N_VALUES], text);
        H5Dwrite(d, nt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
        if (H5Tget_class(mt) == H5T_STRING && H5Tis_variable_str(mt) > 0)
            memcpy(at, &old, sizeof old); /* HDF5 frees what it allocated, not the text */
        if (mt != nt)
            H5Tclose(mt);
        H5Dvlen_reclaim(nt, space, H5P_DEFAULT, buf);
    }
    free(buf);
    if (nt >= 0)
        H5Tclose(nt);
    if (ft >= 0)
        H5Tclose(ft);
    if (space >= 0)
        H5Sclose(space);
    if (d >= 0)
        H5Dclose(d);
}

static herr_t copy_attr(hid_t src, const char *name, const H5A_info_t *info, void *op)
{
    (void)info;
    hid_t dst = *(hid_t *)op;
    hid_t a = H5Aopen(src, name, H5P_DEFAULT);
    hid_t ft = H5Aget_type(a), space = H5Aget_space(a), nt = H5Tget_native_type(ft, H5T_DIR_DEFAULT);
    hssize_t n = H5Sget_simple_extent_npoints(space);
    void *buf = calloc(n > 0 ? (size_t)n : 1, H5Tget_size(nt));
    if (buf != NULL && H5Aread(a, nt, buf) >= 0) {
        hid_t b = H5Acreate2(dst, name, ft, space, H5P_DEFAULT, H5P_DEFAULT);
        if (b >= 0) {
            H5Awrite(b, nt, buf);
            H5Aclose(b);
        }
        H5Dvlen_reclaim(nt, space, H5P_DEFAULT, buf);
    }
    free(buf);
    H5Tclose(nt);
    H5Tclose(ft);
    H5Sclose(space);
    H5Aclose(a);
    return 0;
}

enum { RESIZE = 1, DROP = 2, RETYPE = 3, RENAME = 7 };

/* Edits 1, 2, 3 and 7: dataset `path` made again as a new one with its attributes, `rows` elements
 * (RESIZE) or the same number, and its type's member `member` dropped, retyped as `kind` (int,
 * double or text) or renamed. Members are laid out anew, packed; what the file's dataset has under
 * the same names is read into them, the rest is zero. */
static void remake(hid_t file, const char *path, int edit, unsigned member, unsigned kind, uint32_t rows)
{
    hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
    if (d < 0)
        return;
    hid_t ft = H5Dget_type(d), space = H5Dget_space(d), nt = H5Tget_native_type(ft, H5T_DIR_DEFAULT);
    hid_t dcpl = H5Dget_create_plist(d);
    hssize_t n = H5Sget_simple_extent_npoints(space);
    bool compound = H5Tget_class(nt) == H5T_COMPOUND && H5Tget_nmembers(nt) > 1;
    hid_t new_t = -1, read_t = -1, text_t = -1;
    if (edit == RESIZE || !compound) {
        new_t = H5Tcopy(nt);
        read_t = H5Tcopy(nt);
    } else {
        int nm = H5Tget_nmembers(nt);
        unsigned k = member % (unsigned)nm;
        text_t = H5Tcopy(H5T_C_S1);
        H5Tset_size(text_t, H5T_VARIABLE);
        hid_t types[64];
        char *names[64];
        size_t offsets[64], at = 0;
        int m = 0;
        for (int i = 0; i < nm && m < 64; i++) {
            if ((unsigned)i == k && edit == DROP)
                continue;
            names[m] = H5Tget_member_name(nt, (unsigned)i);
            types[m] = H5Tget_member_type(nt, (unsigned)i);
            if ((unsigned)i == k && edit == RETYPE) {
                H5Tclose(types[m]);
                types[m] = H5Tcopy(kind % 3 == 0   ? H5T_NATIVE_INT
                                   : kind % 3 == 1 ? H5T_NATIVE_DOUBLE
                                                   : text_t);
            }
            offsets[m] = at;
            at += H5Tget_size(types[m]);
            m++;
        }
        new_t = H5Tcreate(H5T_COMPOUND, at);
        read_t = H5Tcreate(H5T_COMPOUND, at);
        for (int i = 0, j = 0; i < nm && j < m; i++) {
            if ((unsigned)i == k && edit == DROP)
                continue;
            bool changed = (unsigned)i == k; /* retyped or renamed: nothing of it is read */
            char renamed[300];
            snprintf(renamed, sizeof renamed, "%s~", names[j]);
            H5Tinsert(new_t, changed && edit == RENAME ? renamed : names[j], offsets[j], types[j]);
            if (!changed)
                H5Tinsert(read_t, names[j], offsets[j], types[j]);
            j++;
        }
        for (int j = 0; j < m; j++) {
            H5free_memory(names[j]);
            H5Tclose(types[j]);
        }
    }
    hsize_t count = edit == RESIZE ? rows % (2 * (uint64_t)n + 4) : (hsize_t)n;
    size_t size = H5Tget_size(new_t);
    unsigned char *buf = calloc((size_t)(count > (hsize_t)n ? count : (hsize_t)n) + 1, size);
    if (buf != NULL && (H5Tget_class(read_t) != H5T_COMPOUND || H5Tget_nmembers(read_t) > 0) &&
        H5Dread(d, read_t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0) {
        H5Dclose(d);
        d = -1;
        if (H5Lmove(file, path, file, "fuzz-old", H5P_DEFAULT, H5P_DEFAULT) >= 0) {
            hid_t new_dcpl = H5Pcreate(H5P_DATASET_CREATE);
            hsize_t dims[1] = {count}, max[1] = {count}, chunk[1] = {64};
            if (H5Pget_layout(dcpl) == H5D_CHUNKED) {
                max[0] = H5S_UNLIMITED;
                H5Pset_chunk(new_dcpl, 1, chunk);
            }
            hid_t new_space = H5Screate_simple(1, dims, max);
            hid_t nd = H5Dcreate2(file, path, new_t, new_space, H5P_DEFAULT, new_dcpl, H5P_DEFAULT);
            if (nd >= 0) {
                if (count > 0)
                    H5Dwrite(nd, new_t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
                hid_t old = H5Dopen2(file, "fuzz-old", H5P_DEFAULT);
                H5Aiterate2(old, H5_INDEX_NAME, H5_ITER_INC, NULL, copy_attr, &nd);
                H5Dclose(old);
                H5Dclose(nd);
            }
            H5Ldelete(file, "fuzz-old", H5P_DEFAULT);
            H5Sclose(new_space);
            H5Pclose(new_dcpl);
        }
        H5Dvlen_reclaim(read_t, space, H5P_DEFAULT, buf);
    }
    free(buf);
    if (text_t >= 0)
        H5Tclose(text_t);
    H5Tclose(new_t);
    H5Tclose(read_t);
    H5Pclose(dcpl);
    H5Tclose(nt);
    H5Tclose(ft);
    H5Sclose(space);
    if (d >= 0)
        H5Dclose(d);
}

/* Edit 5: attribute `name` of `object` replaced by an int, a double, the text or an array of doubles. */
static void set_attr(hid_t file, const char *object, const char *name, unsigned kind, unsigned v, uint32_t n,
                     char *text)
{
    if (H5Adelete_by_name(file, object, name, H5P_DEFAULT) < 0)
        return;
    double x[3] = {values[v % N_VALUES], values[(v + 1) % N_VALUES], values[(v + 2) % N_VALUES]};
    int i = isnan(x[0])             ? 0
            : x[0] >= 2147483647.0  ? INT32_MAX
            : x[0] <= -2147483648.0 ? INT32_MIN
                                    : (int)x[0];
    hsize_t dims[1] = {n % 4};
    hid_t text_t = H5Tcopy(H5T_C_S1);
    H5Tset_size(text_t, H5T_VARIABLE);
    hid_t type = kind % 4 == 0 ? H5T_NATIVE_INT : kind % 4 == 2 ? text_t : H5T_NATIVE_DOUBLE;
    hid_t space = kind % 4 == 3 ? H5Screate_simple(1, dims, NULL) : H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate_by_name(file, object, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0) {
        const void *data = kind % 4 == 0   ? (const void *)&i
                           : kind % 4 == 2 ? (const void *)&text
                                           : (const void *)x;
        H5Awrite(a, type, data);
        H5Aclose(a);
    }
    H5Sclose(space);
    H5Tclose(text_t);
}

static unsigned char *seed;
static size_t seed_size;

static void load_seed(void)
{
    if (seed != NULL)
        return;
    FILE *f = fopen(SAX_FUZZ_RESULTS_SEED, "rb");
    fuzz_check(f != NULL);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    seed = malloc((size_t)size);
    fuzz_check(seed != NULL && size > 0 && fread(seed, 1, (size_t)size, f) == (size_t)size);
    seed_size = (size_t)size;
    fclose(f);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* a failed edit is part of the game: no error stack printed */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 + 8)
        return 0;
    load_seed();
    int edits = data[0] % 4 + 1;
    if (size < 1 + 8 * (size_t)edits)
        return 0;
    char text[TEXT_MAX];
    size_t tlen = size - 1 - 8 * (size_t)edits;
    tlen = tlen < TEXT_MAX - 1 ? tlen : TEXT_MAX - 1;
    memcpy(text, data + 1 + 8 * edits, tlen);
    text[tlen] = '\0';

    char path[64];
    if (!fuzz_file(seed, seed_size, "h5edits.h5", path, sizeof path))
        return 0;
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    fuzz_check(file >= 0);
    listing_t *l = malloc(sizeof *l);
    fuzz_check(l != NULL);
    for (int e = 0; e < edits; e++) {
        const uint8_t *op = data + 1 + 8 * e;
        uint32_t arg;
        memcpy(&arg, op + 4, sizeof arg);
        list(file, l);
        const char *d = dataset(l, op[1]);
        switch (op[0] % 8) {
        case 0:
            if (d != NULL)
                set_value(file, d, op[2], op[3], arg, text);
            break;
        case RESIZE:
        case DROP:
        case RETYPE:
        case RENAME:
            if (d != NULL)
                remake(file, d, op[0] % 8, op[2], op[3], arg);
            break;
        case 4:
        case 5:
            if (l->n_attrs > 0) {
                const attr_t *a = &l->attr[op[1] % l->n_attrs];
                const char *object = l->object[a->object].path;
                if (op[0] % 8 == 4)
                    H5Adelete_by_name(file, object, a->name, H5P_DEFAULT);
                else
                    set_attr(file, object, a->name, op[2], op[3], arg, text);
            }
            break;
        case 6:
            if (l->n_objects > 1) { /* the first is the root group itself */
                const object_t *o = &l->object[1 + op[1] % (l->n_objects - 1)];
                H5Ldelete(file, o->path, H5P_DEFAULT);
            }
            break;
        }
    }
    free(l);
    fuzz_check(H5Fclose(file) >= 0);
    fuzz_results_read_check(path);
    remove(path);
    return 0;
}
