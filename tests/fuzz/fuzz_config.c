/* fuzz_config.c - libFuzzer harness for the configuration loader (docs/reliability.md, "Fuzzing").
 * Arbitrary bytes go through sax_config_parse. A rejection must be SAX_ERR_INPUT (or out of memory)
 * with a message that names the file and leaves nothing allocated; an accepted configuration is
 * evaluated (its candidate) and its space built and walked a little, so values the loader lets
 * through are also fed to the model and the search. Crashes, sanitizer reports and broken
 * invariants (a trap) are findings. */
#include "fuzz.h"

#include "sax_config.h"
#include "sax_search.h"

#include <stdlib.h>
#include <string.h>

#define NAME "fuzz.json"

static void evaluate(const sax_config_t *cfg)
{
    sax_scratch_t *scratch = malloc(sax_scratch_size());
    if (scratch == NULL)
        return;
    sax_scratch_init(scratch);
    sax_result_t r;
    if (cfg->has_candidate)
        (void)sax_model_eval(&cfg->problem, &cfg->candidate, scratch, &r);
    sax_search_t *s = NULL;
    sax_error_t err = {{0}};
    if (cfg->has_space && sax_search_create(&cfg->space, cfg->has_candidate ? &cfg->candidate : NULL,
                                            cfg->scenarios, cfg->n_scenarios, &s, &err) == SAX_OK) {
        /* the first and last candidates and a few in between, each through the checks and the model */
        int64_t size = sax_search_size(s);
        for (int64_t i = 0; i < 8 && size > 0; i++) {
            sax_search_cursor_t cur;
            sax_search_seek(s, i == 7 ? size - 1 : (size - 1) / 7 * i, &cur);
            if (cur.skip == SAX_SKIP_NONE)
                (void)sax_model_eval(sax_search_problem(s, cur.scenario), &cur.candidate, scratch, &r);
        }
        sax_search_destroy(&s);
        fuzz_check(s == NULL);
    } else if (cfg->has_space) {
        fuzz_check(err.text[0] != '\0');
    }
    free(scratch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (text == NULL)
        return 0;
    sax_config_t cfg;
    sax_error_t err = {{0}};
    sax_status_t st = sax_config_parse(text, NAME, &cfg, &err);
    if (st == SAX_OK) {
        fuzz_check(cfg.effective_json != NULL && cfg.n_scenarios >= 1);
        evaluate(&cfg);
        sax_config_fini(&cfg);
        fuzz_check(cfg.effective_json == NULL && cfg.scenarios == NULL);
    } else {
        fuzz_check(st == SAX_ERR_INPUT || st == SAX_ERR_NOMEM);
        fuzz_check(strncmp(err.text, NAME, strlen(NAME)) == 0);
        fuzz_check(cfg.scenarios == NULL && cfg.scenario_values == NULL && cfg.effective_json == NULL);
    }
    free(text);
    return 0;
}
