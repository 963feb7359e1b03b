/* fuzz_checkpoint.c - libFuzzer harness for the checkpoint reader (docs/reliability.md, "Fuzzing").
 * The bytes are written to a file and read back by sax_checkpoint_load against the sweep of
 * tests/reliability/data/tiny-sweep.json (its space and reductions). A rejection must come with a
 * message and leave the reductions and finished ranges untouched; an accepted checkpoint must give a
 * finite, non-negative elapsed time, finished ranges inside the space, and reductions whose best
 * candidates have finite times. With SAX_FUZZ_SEED_OUT=PATH the first call also writes a valid
 * checkpoint of that sweep (a few candidates evaluated, a range finished) to PATH: the seed of
 * tests/fuzz/corpus/checkpoint. */
#include "fuzz.h"

#include "sax_comm.h"
#include "sax_config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HASH 0x5eed5eedull

static sax_config_t cfg;
static sax_search_t *search;

static bool setup(void)
{
    if (search != NULL)
        return true;
    sax_error_t err = {{0}};
    if (sax_config_load(SAX_FUZZ_CHECKPOINT_CONFIG, &cfg, &err) != SAX_OK ||
        sax_search_create(&cfg.space, cfg.has_candidate ? &cfg.candidate : NULL, cfg.scenarios,
                          cfg.n_scenarios, &search, &err) != SAX_OK) {
        fprintf(stderr, "fuzz_checkpoint: %s\n", err.text);
        abort();
    }
    const char *seed = getenv("SAX_FUZZ_SEED_OUT");
    if (seed != NULL) {
        sax_reduce_t *acc = NULL;
        sax_ranges_t done;
        sax_ranges_init(&done);
        sax_scratch_t *scratch = malloc(sax_scratch_size());
        fuzz_check(scratch != NULL && sax_reduce_create(search, 4, &acc, &err) == SAX_OK);
        sax_scratch_init(scratch);
        int64_t n = sax_search_size(search) < 64 ? sax_search_size(search) : 64;
        for (int64_t i = 0; i < n; i++) {
            sax_search_cursor_t cur;
            sax_search_seek(search, i, &cur);
            sax_result_t r;
            if (cur.skip == SAX_SKIP_NONE && sax_model_eval(sax_search_problem(search, cur.scenario),
                                                            &cur.candidate, scratch, &r) == SAX_OK)
                fuzz_check(sax_reduce_add(acc, &cur, &r) == SAX_OK);
            else
                sax_reduce_add_skipped(acc, cur.skip, 1);
        }
        fuzz_check(sax_ranges_add(&done, 0, n) == SAX_OK);
        fuzz_check(sax_checkpoint_save(seed, HASH, 1.5, &done, acc, &err) == SAX_OK);
        sax_reduce_destroy(&acc);
        /* the seed reads back: the fuzzer starts from a checkpoint the reader accepts */
        double elapsed;
        sax_ranges_t again;
        sax_ranges_init(&again);
        fuzz_check(sax_reduce_create(search, 4, &acc, &err) == SAX_OK &&
                   sax_checkpoint_load(seed, HASH, &elapsed, &again, acc, &err) == SAX_OK && elapsed == 1.5 &&
                   sax_reduce_counts_const(acc)->evaluated > 0);
        sax_reduce_destroy(&acc);
        sax_ranges_fini(&again);
        sax_ranges_fini(&done);
        free(scratch);
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    char path[64];
    if (!fuzz_file(data, size, "ckpt", path, sizeof path))
        return 0;
    sax_reduce_t *acc = NULL;
    sax_error_t err = {{0}};
    fuzz_check(sax_reduce_create(search, 4, &acc, &err) == SAX_OK);
    sax_ranges_t done;
    sax_ranges_init(&done);
    double elapsed = -1.0;
    sax_status_t st = sax_checkpoint_load(path, HASH, &elapsed, &done, acc, &err);
    remove(path);
    const sax_counts_t *c = sax_reduce_counts_const(acc);
    if (st == SAX_OK) {
        fuzz_check(isfinite(elapsed) && elapsed >= 0.0);
        for (int sc = 0; sc < cfg.n_scenarios; sc++) {
            const sax_record_t *b = sax_reduce_best(acc, sc);
            fuzz_check(b->index < 0 ||
                       (b->index < sax_search_size(search) && isfinite(b->result.iteration_time_s) &&
                        b->result.iteration_time_s > 0.0));
        }
    } else {
        fuzz_check((st == SAX_ERR_INPUT || st == SAX_ERR_NOMEM || st == SAX_ERR_IO) && err.text[0] != '\0');
        fuzz_check(c->evaluated == 0); /* nothing merged from a refused file */
    }
    sax_ranges_fini(&done);
    sax_reduce_destroy(&acc);
    return 0;
}
