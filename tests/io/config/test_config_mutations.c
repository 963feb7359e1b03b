/* test_config_mutations.c - robustness of the loader: every value of the example configurations is
 * replaced in turn by wrong values (wrong type, negative, zero, non-integer, huge, a bad unit,
 * null, an empty object/list, true) and every key or list element is removed in turn. Each variant
 * must either load or fail with SAX_ERR_INPUT and a message that names the file and says what was
 * expected or which key is wrong; nothing may crash or leak (run it under valgrind to check). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sax_config.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONFIGS SAX_TEST_DATA "/configs/"

static cJSON *load_json(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    cJSON *root = cJSON_Parse(buf);
    assert_non_null(root);
    return root;
}

typedef struct {
    const char *file;
    int variants, loaded, rejected;
} tally_t;

static void check_variant(const cJSON *root, tally_t *t, const char *what)
{
    sax_config_t cfg;
    sax_error_t err = {{0}};
    sax_status_t st = sax_config_from_json(root, t->file, "", &cfg, &err);
    t->variants++;
    if (st == SAX_OK) {
        t->loaded++;
        sax_config_fini(&cfg);
        return;
    }
    bool ok = st == SAX_ERR_INPUT && strncmp(err.text, t->file, strlen(t->file)) == 0 &&
              (strstr(err.text, "expected") != NULL || strstr(err.text, "unknown key") != NULL ||
               strstr(err.text, "missing required key") != NULL);
    if (!ok) {
        print_error("%s (%s): status %s, message \"%s\"\n", t->file, what, sax_status_name(st), err.text);
        fail();
    }
    assert_null(cfg.effective_json);
    t->rejected++;
}

static cJSON *bad_value(int k)
{
    switch (k) {
    case 0: return cJSON_CreateNumber(-1);
    case 1: return cJSON_CreateNumber(0);
    case 2: return cJSON_CreateNumber(0.5);
    case 3: return cJSON_CreateNumber(1e300);
    case 4: return cJSON_CreateString("12 furlongs");
    case 5: return cJSON_CreateString("");
    case 6: return cJSON_CreateNull();
    case 7: return cJSON_CreateObject();
    case 8: return cJSON_CreateArray();
    case 9: return cJSON_CreateTrue();
    default: return NULL;
    }
}
#define N_BAD 10

#define MAX_DEPTH 8

/* The item reached from `root` by child indices idx[0..depth). */
static cJSON *item_at(cJSON *root, const int *idx, int depth)
{
    cJSON *node = root;
    for (int d = 0; d < depth && node != NULL; d++)
        node = cJSON_GetArrayItem(node, idx[d]);
    return node;
}

/* Every value below the item at idx[0..depth): replaced by each bad value, then removed; each
 * variant is a fresh copy of the original tree. */
static void mutate(cJSON *root, int *idx, int depth, tally_t *t)
{
    int n = cJSON_GetArraySize(item_at(root, idx, depth));
    for (int i = 0; i < n && depth < MAX_DEPTH; i++) {
        idx[depth] = i;
        mutate(root, idx, depth + 1, t);
        for (int k = 0; k <= N_BAD; k++) {
            cJSON *copy = cJSON_Duplicate(root, 1);
            assert_non_null(copy);
            cJSON *parent = item_at(copy, idx, depth), *item = item_at(copy, idx, depth + 1);
            char what[64];
            snprintf(what, sizeof what, "%s %s", k < N_BAD ? "changed" : "removed",
                     item->string != NULL ? item->string : "list element");
            if (k < N_BAD && cJSON_IsObject(parent))
                assert_true(cJSON_ReplaceItemInObjectCaseSensitive(parent, item->string, bad_value(k)));
            else if (k < N_BAD)
                assert_true(cJSON_ReplaceItemInArray(parent, i, bad_value(k)));
            else
                cJSON_Delete(cJSON_DetachItemViaPointer(parent, item));
            check_variant(copy, t, what);
            cJSON_Delete(copy);
        }
    }
}

static void run_file(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s%s", CONFIGS, name);
    cJSON *root = load_json(path);
    tally_t t = {name, 0, 0, 0};
    int idx[MAX_DEPTH + 1];
    mutate(root, idx, 0, &t);
    /* the original tree is untouched and still loads */
    sax_config_t cfg;
    sax_error_t err = {{0}};
    assert_int_equal(sax_config_from_json(root, name, "", &cfg, &err), SAX_OK);
    sax_config_fini(&cfg);
    cJSON_Delete(root);
    print_message("%s: %d variants, %d loaded, %d rejected\n", name, t.variants, t.loaded, t.rejected);
    assert_true(t.rejected > t.variants / 2);
}

static void test_contract_sweep(void **state)
{
    (void)state;
    run_file("contract-sweep.json");
}

static void test_presets_multisite(void **state)
{
    (void)state;
    run_file("presets-multisite.json");
}

static void test_moe_sweep(void **state)
{
    (void)state;
    run_file("moe-sweep.json");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contract_sweep),
        cmocka_unit_test(test_presets_multisite),
        cmocka_unit_test(test_moe_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
