/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cli_config.c  Problem files (INI, read with inih): keys, defaults and
 * validation, one clear message for the first problem found. */
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The problems and the sections of a problem file, for the messages. */
#define MCT__CLI_PROBLEMS "escape, phantom, tally_only, scatter"
#define MCT__CLI_SECTIONS "problem, tally, escape, phantom, tally_only, scatter"

typedef struct {
    mct_cli_config_t* cfg;
    const char* path;
    char error[512];
    int have_type;
} load_ctx_t;

int mct_cli_parse_f64(const char* text, double min, double* out) {
    char* end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v) || v < min) return 1;
    *out = v;
    return 0;
}

int mct_cli_parse_i64(const char* text, int64_t min, int64_t max, int64_t* out) {
    char* end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end != text && *end == '\0' && errno == 0) {
        if (v < min || v > max) return 1;
        *out = v;
        return 0;
    }
    /* "1e8": accepted when it is exactly a whole number in range. */
    double d;
    if (mct_cli_parse_f64(text, (double)min, &d) || d > (double)max || d != floor(d) || d > 9007199254740992.0)
        return 1;
    *out = (int64_t)d;
    return 0;
}

int mct_cli_parse_u64(const char* text, uint64_t* out) {
    char* end = NULL;
    errno = 0;
    if (text[0] == '-' || text[0] == '\0') return 1;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end != '\0' || errno == ERANGE) return 1;
    *out = v;
    return 0;
}

static int fail(load_ctx_t* c, const char* section, const char* key, const char* value, const char* why) {
    snprintf(c->error, sizeof c->error, "[%s] %s = %s: %s", section, key, value, why);
    return 0;
}

static int set_problem(load_ctx_t* c, const char* key, const char* value) {
    mct_cli_config_t* cfg = c->cfg;
    if (!strcmp(key, "type")) {
        if (strcmp(value, "escape") != 0 && strcmp(value, "phantom") != 0 && strcmp(value, "tally_only") != 0 &&
            strcmp(value, "scatter") != 0)
            return fail(c, "problem", key, value, "unknown problem (known: " MCT__CLI_PROBLEMS ")");
        snprintf(cfg->type, sizeof cfg->type, "%s", value);
        c->have_type = 1;
        return 1;
    }
    if (!strcmp(key, "histories"))
        return mct_cli_parse_i64(value, 1, INT64_MAX, &cfg->histories) ? fail(c, "problem", key, value, "expected a whole number >= 1") : 1;
    if (!strcmp(key, "batches"))
        return mct_cli_parse_i64(value, 1, INT64_MAX, &cfg->batches) ? fail(c, "problem", key, value, "expected a whole number >= 1") : 1;
    if (!strcmp(key, "seed"))
        return mct_cli_parse_u64(value, &cfg->seed) ? fail(c, "problem", key, value, "expected a whole number 0 .. 2^64-1") : 1;
    return fail(c, "problem", key, value, "unknown key (known: type, histories, seed, batches)");
}

static int set_tally(load_ctx_t* c, const char* key, const char* value) {
    if (!strcmp(key, "method"))
        return mct_method_from_name(value, &c->cfg->method) ? fail(c, "tally", key, value, "unknown method (see: mctally methods)") : 1;
    if (!strcmp(key, "dtype"))
        return mct_dtype_from_name(value, &c->cfg->dtype) ? fail(c, "tally", key, value, "unknown type (known: i32, u64, f32, f64)") : 1;
    return fail(c, "tally", key, value, "unknown key (known: method, dtype)");
}

static int set_escape(load_ctx_t* c, const char* key, const char* value) {
    mct_escape_params_t* e = &c->cfg->escape;
    int64_t v;
    if (!strcmp(key, "thickness_m"))
        return mct_cli_parse_f64(value, 0.0, &e->thickness_m) ? fail(c, "escape", key, value, "expected a number >= 0") : 1;
    if (!strcmp(key, "sigma_per_m")) {
        if (mct_cli_parse_f64(value, 0.0, &e->sigma_per_m) || e->sigma_per_m <= 0.0)
            return fail(c, "escape", key, value, "expected a number > 0");
        return 1;
    }
    if (!strcmp(key, "block_size")) {
        if (mct_cli_parse_i64(value, 1, 1024, &v)) return fail(c, "escape", key, value, "expected a whole number 1 .. 1024");
        e->block_size = (int)v;
        return 1;
    }
    if (!strcmp(key, "launch")) {
        if (!strcmp(value, "paper")) e->launch = MCT_ESCAPE_LAUNCH_PAPER;
        else if (!strcmp(value, "full")) e->launch = MCT_ESCAPE_LAUNCH_FULL;
        else return fail(c, "escape", key, value, "expected paper or full");
        return 1;
    }
    return fail(c, "escape", key, value, "unknown key (known: thickness_m, sigma_per_m, block_size, launch)");
}

/* [phantom]: Liu 2018's water phantom (sim/phantom/phantom.h). */
static int set_phantom_number(load_ctx_t* c, const char* key, const char* value, double* out, double min, double max,
                              const char* why) {
    double v;
    if (mct_cli_parse_f64(value, min, &v) || v > max) return fail(c, "phantom", key, value, why);
    *out = v;
    return 1;
}

static int set_phantom(load_ctx_t* c, const char* key, const char* value) {
    mct_phantom_params_t* p = &c->cfg->phantom;
    int64_t v;
    if (!strcmp(key, "size_cm")) {
        if (set_phantom_number(c, key, value, &p->size_cm, 0.0, 1e4, "expected a number > 0 (cm)") && p->size_cm > 0.0)
            return 1;
        return fail(c, "phantom", key, value, "expected a number > 0 (cm)");
    }
    if (!strcmp(key, "voxels")) {
        if (mct_cli_parse_i64(value, 1, 1290, &v)) return fail(c, "phantom", key, value, "expected a whole number 1 .. 1290 (voxels per edge)");
        p->voxels = (int)v;
        return 1;
    }
    if (!strcmp(key, "energy_MeV"))
        return set_phantom_number(c, key, value, &p->energy_MeV, 0.0, 1000.0, "expected a beam energy in (0, 1000] MeV");
    if (!strcmp(key, "particle")) {
        if (!strcmp(value, "electron")) p->particle = MCT_PHANTOM_ELECTRON;
        else if (!strcmp(value, "photon")) p->particle = MCT_PHANTOM_PHOTON;
        else return fail(c, "phantom", key, value, "expected electron or photon");
        return 1;
    }
    if (!strcmp(key, "electron_cutoff_MeV"))
        return set_phantom_number(c, key, value, &p->electron_cutoff_MeV, 0.0125, 1000.0, "expected a cut-off in [0.0125, 1000] MeV");
    if (!strcmp(key, "photon_cutoff_MeV"))
        return set_phantom_number(c, key, value, &p->photon_cutoff_MeV, 0.001, 1000.0, "expected a cut-off in [0.001, 1000] MeV");
    if (!strcmp(key, "delta_threshold_MeV"))
        return set_phantom_number(c, key, value, &p->delta_threshold_MeV, 0.0125, 1e9, "expected a threshold >= 0.0125 MeV");
    if (!strcmp(key, "brems_threshold_MeV"))
        return set_phantom_number(c, key, value, &p->brems_threshold_MeV, 0.001, 1e9, "expected a threshold >= 0.001 MeV");
    if (!strcmp(key, "step_fraction")) {
        if (set_phantom_number(c, key, value, &p->step_fraction, 0.0, 0.5, "expected a fraction in (0, 0.5]") &&
            p->step_fraction > 0.0)
            return 1;
        return fail(c, "phantom", key, value, "expected a fraction in (0, 0.5]");
    }
    if (!strcmp(key, "mcs")) {
        if (!strcmp(value, "transport")) p->mcs = MCT_PHANTOM_MCS_TRANSPORT;
        else if (!strcmp(value, "highland")) p->mcs = MCT_PHANTOM_MCS_HIGHLAND;
        else return fail(c, "phantom", key, value, "expected transport or highland");
        return 1;
    }
    if (!strcmp(key, "transport")) {
        if (!strcmp(value, "auto")) p->transport = MCT_PHANTOM_TRANSPORT_AUTO;
        else if (!strcmp(value, "f64")) p->transport = MCT_PHANTOM_TRANSPORT_F64;
        else if (!strcmp(value, "f32")) p->transport = MCT_PHANTOM_TRANSPORT_F32;
        else return fail(c, "phantom", key, value, "expected auto, f64 or f32");
        return 1;
    }
    if (!strcmp(key, "block_size")) {
        if (mct_cli_parse_i64(value, 32, 1024, &v)) return fail(c, "phantom", key, value, "expected a whole number 32 .. 1024");
        p->block_size = (int)v;
        return 1;
    }
    return fail(c, "phantom", key, value,
                "unknown key (known: size_cm, voxels, energy_MeV, particle, electron_cutoff_MeV, photon_cutoff_MeV, "
                "delta_threshold_MeV, brems_threshold_MeV, step_fraction, mcs, transport, block_size)");
}

/* [tally_only]: Liu 2018's test 1 (sim/tally_only/tally_only.h). */
static int set_tally_only(load_ctx_t* c, const char* key, const char* value) {
    mct_tally_only_params_t* p = &c->cfg->tally_only;
    int64_t v;
    if (!strcmp(key, "bins"))
        return mct_cli_parse_i64(value, 1, INT64_C(1) << 31, &p->bins) ? fail(c, "tally_only", key, value, "expected a whole number 1 .. 2^31") : 1;
    if (!strcmp(key, "collisions")) {
        if (mct_cli_parse_i64(value, 1, 1000000, &v)) return fail(c, "tally_only", key, value, "expected a whole number 1 .. 1000000");
        p->collisions = (int)v;
        return 1;
    }
    if (!strcmp(key, "mean_energy_MeV")) {
        if (mct_cli_parse_f64(value, 0.0, &p->mean_energy) || p->mean_energy <= 0.0 || p->mean_energy > 1e30)
            return fail(c, "tally_only", key, value, "expected a number in (0, 1e30] (MeV)");
        return 1;
    }
    if (!strcmp(key, "launch")) {
        if (!strcmp(value, "paper")) p->launch = MCT_TALLY_ONLY_LAUNCH_PAPER;
        else if (!strcmp(value, "full")) p->launch = MCT_TALLY_ONLY_LAUNCH_FULL;
        else return fail(c, "tally_only", key, value, "expected paper or full");
        return 1;
    }
    return fail(c, "tally_only", key, value, "unknown key (known: bins, collisions, mean_energy_MeV, launch)");
}

/* [scatter]: Westphal's workload (sim/scatter/scatter.h). */
static int set_scatter(load_ctx_t* c, const char* key, const char* value) {
    mct_scatter_params_t* p = &c->cfg->scatter;
    int64_t v;
    if (!strcmp(key, "bins"))
        return mct_cli_parse_i64(value, 1, INT64_C(1) << 31, &p->bins) ? fail(c, "scatter", key, value, "expected a whole number 1 .. 2^31 (cells)") : 1;
    if (!strcmp(key, "width")) {
        if (mct_cli_parse_i64(value, 1, MCT_SCATTER_MAX_WIDTH, &v))
            return fail(c, "scatter", key, value, "expected a whole number 1 .. 1024 (components per particle)");
        p->width = (int)v;
        return 1;
    }
    if (!strcmp(key, "pattern"))
        return mct_scatter_pattern_from_name(value, &p->pattern) ? fail(c, "scatter", key, value, "unknown pattern (known: uniform, sorted, hot)") : 1;
    if (!strcmp(key, "check")) {
        if (!strcmp(value, "auto")) p->check = MCT_SCATTER_CHECK_AUTO;
        else if (!strcmp(value, "yes")) p->check = MCT_SCATTER_CHECK_ALWAYS;
        else if (!strcmp(value, "no")) p->check = MCT_SCATTER_CHECK_NEVER;
        else return fail(c, "scatter", key, value, "expected auto, yes or no");
        return 1;
    }
    if (!strcmp(key, "chunk"))
        return mct_cli_parse_i64(value, 1, INT64_MAX, &p->chunk) ? fail(c, "scatter", key, value, "expected a whole number >= 1 (particles per add)") : 1;
    return fail(c, "scatter", key, value, "unknown key (known: bins, width, pattern, check, chunk)");
}

static int on_key(void* user, const char* section, const char* key, const char* value) {
    load_ctx_t* c = user;
    if (!strcmp(section, "problem")) return set_problem(c, key, value);
    if (!strcmp(section, "tally")) return set_tally(c, key, value);
    if (!strcmp(section, "escape")) return set_escape(c, key, value);
    if (!strcmp(section, "phantom")) return set_phantom(c, key, value);
    if (!strcmp(section, "tally_only")) return set_tally_only(c, key, value);
    if (!strcmp(section, "scatter")) return set_scatter(c, key, value);
    if (!section[0]) return fail(c, "", key, value, "key outside any section");
    snprintf(c->error, sizeof c->error, "unknown section [%s] (known: " MCT__CLI_SECTIONS ")", section);
    return 0;
}

/* inih reports sections only through their keys, so an empty unknown section
 * would pass unseen; check the section headers first. */
static int check_sections(FILE* f, char* error, size_t size) {
    char line[1024];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        ++lineno;
        char* s = line + strspn(line, " \t");
        if (*s != '[') continue;
        char* end = strchr(s, ']');
        if (!end) {
            snprintf(error, size, "line %d: section header without ']'", lineno);
            return 1;
        }
        *end = '\0';
        if (strcmp(s + 1, "problem") && strcmp(s + 1, "tally") && strcmp(s + 1, "escape") && strcmp(s + 1, "phantom") &&
            strcmp(s + 1, "tally_only") && strcmp(s + 1, "scatter")) {
            snprintf(error, size, "line %d: unknown section [%s] (known: " MCT__CLI_SECTIONS ")", lineno, s + 1);
            return 1;
        }
    }
    return 0;
}

int mct_cli_config_load(const char* path, mct_cli_config_t* cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->histories = 1000000;
    cfg->seed = 1;
    cfg->batches = 10;
    cfg->method = MCT_METHOD_ATOMIC;
    cfg->dtype = MCT_DTYPE_F64;
    mct_escape_params_init(&cfg->escape);
    mct_phantom_params_init(&cfg->phantom);
    mct_tally_only_params_init(&cfg->tally_only);
    mct_scatter_params_init(&cfg->scatter);

    FILE* f = fopen(path, "r");
    if (!f) return mct_cli_error("cannot open problem file '%s': %s", path, strerror(errno));
    load_ctx_t c = {cfg, path, "", 0};
    if (check_sections(f, c.error, sizeof c.error)) {
        fclose(f);
        return mct_cli_error("%s: %s", path, c.error);
    }
    rewind(f);
    int line = ini_parse_file(f, on_key, &c);
    fclose(f);
    if (line != 0) {
        if (c.error[0]) return mct_cli_error("%s:%d: %s", path, line, c.error);
        return mct_cli_error("%s:%d: not valid INI syntax", path, line);
    }
    if (!c.have_type) return mct_cli_error("%s: missing [problem] type (known: " MCT__CLI_PROBLEMS ")", path);
    return 0;
}
