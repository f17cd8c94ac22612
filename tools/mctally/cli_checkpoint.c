/* SPDX-License-Identifier: BSD-3-Clause */
/** @file cli_checkpoint.c  `run --checkpoint FILE` and `--resume FILE`: the
 * checkpoint file of a run.
 *
 * Layout (host byte order, for the same build to read back): "MCTCKPT\n", a
 * format version (u32) and 4 zero bytes, then three blocks each preceded by
 * its length (u64): the run's identity (JSON text: version, problem, backend,
 * method, type, bins, the problem's full parameters, seed, histories,
 * batches), the tally's state (mct_tally_save_state) and the problem's state
 * (sim_checkpoint.h); last an FNV-1a 64 checksum of everything before it. The
 * file is written as an output set of one (sim_output.h): a kill leaves the
 * previous checkpoint whole. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CKPT_MAGIC "MCTCKPT\n"
#define CKPT_VERSION 1u

uint64_t mct_cli_fnv1a(uint64_t h, const void* p, size_t n) {
    const unsigned char* b = p;
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

static void add_table(cJSON* obj, const mct_sim_param_table_t* table, const void* params) {
    for (int i = 0; i < table->count; ++i) {
        const mct_sim_param_t* e = &table->params[i];
        char text[64];
        if (e->type == MCT_SIM_PARAM_U64)
            snprintf(text, sizeof text, "%llu", (unsigned long long)*(const uint64_t*)((const char*)params + e->offset));
        else if (e->type == MCT_SIM_PARAM_I64)
            snprintf(text, sizeof text, "%lld", (long long)*(const int64_t*)((const char*)params + e->offset));
        else
            snprintf(text, sizeof text, "%.17g", mct_sim_param_get(e, params));
        cJSON_AddStringToObject(obj, e->key, text);
    }
}

char* mct_cli_run_identity(const char* problem, const mct_cli_config_t* cfg, mct_tally_t tally, int loss_sample_log2) {
    mct_tally_desc_t d;
    mct_tally_get_desc(tally, &d);
    cJSON* j = cJSON_CreateObject();
    char text[64];
    cJSON_AddStringToObject(j, "mctally_version", mct_version());
    cJSON_AddStringToObject(j, "problem", problem);
    cJSON_AddStringToObject(j, "backend", mct_backend_name(d.backend));
    cJSON_AddStringToObject(j, "method", mct_method_name(d.method));
    cJSON_AddStringToObject(j, "dtype", mct_dtype_name(d.dtype));
    snprintf(text, sizeof text, "%lld", (long long)d.bins);
    cJSON_AddStringToObject(j, "bins", text);
    snprintf(text, sizeof text, "%d", d.fixed_frac_bits);
    cJSON_AddStringToObject(j, "fixed_frac_bits", text);
    snprintf(text, sizeof text, "%llu", (unsigned long long)cfg->seed);
    cJSON_AddStringToObject(j, "seed", text);
    snprintf(text, sizeof text, "%lld", (long long)cfg->histories);
    cJSON_AddStringToObject(j, "histories", text);
    snprintf(text, sizeof text, "%lld", (long long)cfg->batches);
    cJSON_AddStringToObject(j, "batches", text);
    snprintf(text, sizeof text, "%d", loss_sample_log2);
    cJSON_AddStringToObject(j, "loss_sample", text);
    cJSON* params = cJSON_AddObjectToObject(j, "parameters");
    if (!strcmp(problem, "escape")) {
        add_table(params, &mct_escape_param_table, &cfg->escape);
        cJSON_AddStringToObject(params, "launch", cfg->escape.launch == MCT_ESCAPE_LAUNCH_FULL ? "full" : "paper");
    } else if (!strcmp(problem, "tally_only")) {
        add_table(params, &mct_tally_only_param_table, &cfg->tally_only);
        cJSON_AddStringToObject(params, "launch", cfg->tally_only.launch == MCT_TALLY_ONLY_LAUNCH_FULL ? "full" : "paper");
        cJSON_AddStringToObject(params, "deposit", sim_deposit_name(cfg->tally_only.deposit));
    } else if (!strcmp(problem, "pet")) {
        const mct_pet_params_t* p = &cfg->pet;
        add_table(params, &mct_pet_param_table, p);
        snprintf(text, sizeof text, "%d %d %d", (int)p->source, (int)p->index, p->nshapes);
        cJSON_AddStringToObject(params, "source index shapes", text);
        cJSON* shapes = cJSON_AddArrayToObject(params, "shapes");
        for (int i = 0; i < p->nshapes && i < MCT_PET_MAX_SHAPES; ++i) {
            const mct_pet_shape_t* sh = &p->shapes[i];
            char line[256];
            snprintf(line, sizeof line, "%d %.17g %.17g %.17g %.17g %.17g %.17g %.17g", (int)sh->kind, sh->centre[0],
                     sh->centre[1], sh->centre[2], sh->size[0], sh->size[1], sh->size[2], sh->activity);
            cJSON_AddItemToArray(shapes, cJSON_CreateString(line));
        }
    } else if (!strcmp(problem, "scatter")) {
        add_table(params, &mct_scatter_param_table, &cfg->scatter);
        snprintf(text, sizeof text, "%s %d", mct_scatter_pattern_name(cfg->scatter.pattern), (int)cfg->scatter.check);
        cJSON_AddStringToObject(params, "pattern check", text);
    } else {
        const mct_phantom_params_t* p = &cfg->phantom;
        add_table(params, &mct_phantom_param_table, p);
        snprintf(text, sizeof text, "%d %d %d", (int)p->particle, (int)p->mcs, (int)p->transport);
        cJSON_AddStringToObject(params, "particle mcs transport", text);
        cJSON_AddStringToObject(params, "deposit", sim_deposit_name(p->deposit));
        snprintf(text, sizeof text, "%d", (int)p->source);
        cJSON_AddStringToObject(params, "source", text);
        snprintf(text, sizeof text, "%d", MCT_PHANTOM_HISTORY_REVISION);
        cJSON_AddStringToObject(params, "history_revision", text);
        if (p->geometry) {
            /* The geometry by its content: grid, materials and every voxel (FNV-1a, 64 bits). */
            const mct_phantom_geometry_t* g = p->geometry;
            uint64_t h = UINT64_C(0xcbf29ce484222325);
            const int64_t n = (int64_t)g->nx * g->ny * g->nz;
#define MIX(ptr, bytes)                                                                       \
    for (size_t i_ = 0; i_ < (size_t)(bytes); ++i_) h = (h ^ ((const unsigned char*)(ptr))[i_]) * UINT64_C(0x100000001b3)
            const double d[3] = {g->dx_cm, g->dy_cm, g->dz_cm};
            const int dims[3] = {g->nx, g->ny, g->nz};
            MIX(dims, sizeof dims);
            MIX(d, sizeof d);
            for (int m = 0; m < g->materials; ++m) {
                const mct_phantom_material_t* mt = &g->material[m];
                MIX(mt->name, strlen(mt->name) + 1);
                MIX(&mt->density_g_cm3, sizeof mt->density_g_cm3);
                MIX(&mt->i_eV, sizeof mt->i_eV);
                MIX(mt->xcom, sizeof(double) * 8 * (size_t)mt->xcom_rows);
                MIX(mt->estar, sizeof(double) * 7 * (size_t)mt->estar_rows);
            }
            MIX(g->mat, n);
            MIX(g->density, sizeof(float) * (size_t)n);
#undef MIX
            snprintf(text, sizeof text, "%d %d %d %016llx", g->nx, g->ny, g->nz, (unsigned long long)h);
            cJSON_AddStringToObject(params, "geometry", text);
        }
        if (p->nzones > 0) {
            /* The zones whose batch energies the state holds (a lateral reference's), by their count and content. */
            uint64_t h = UINT64_C(0xcbf29ce484222325);
            const unsigned char* z = (const unsigned char*)p->zones;
            for (size_t i = 0; i < (size_t)p->nzones * MCT_PHANTOM_ZONE_COLUMNS * sizeof(double); ++i)
                h = (h ^ z[i]) * UINT64_C(0x100000001b3);
            snprintf(text, sizeof text, "%d %016llx", p->nzones, (unsigned long long)h);
            cJSON_AddStringToObject(params, "zones", text);
        }
    }
    char* s = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return s;
}

int mct_cli_checkpoint_check_path(const char* path) {
    char err[4400];
    return sim_out_check(path, err, sizeof err) ? mct_cli_error("--checkpoint: %s", err) : 0;
}

mct_status_t mct_cli_checkpoint_save(void* ctx, int64_t done, const void* state, size_t bytes) {
    mct_cli_checkpoint_t* c = ctx;
    (void)done;
    size_t tally_bytes = 0;
    mct_status_t st = mct_tally_save_state(c->tally, NULL, &tally_bytes);
    if (st) return st;
    const size_t id_bytes = strlen(c->identity);
    const size_t total = 16 + 8 + id_bytes + 8 + tally_bytes + 8 + bytes + 8;
    unsigned char* buf = malloc(total);
    if (!buf) return MCT_STATUS_OUT_OF_MEMORY;
    unsigned char* p = buf;
    const uint32_t version = CKPT_VERSION, zero = 0;
    memcpy(p, CKPT_MAGIC, 8), p += 8;
    memcpy(p, &version, 4), p += 4;
    memcpy(p, &zero, 4), p += 4;
    uint64_t len = id_bytes;
    memcpy(p, &len, 8), p += 8;
    memcpy(p, c->identity, id_bytes), p += id_bytes;
    len = tally_bytes;
    memcpy(p, &len, 8), p += 8;
    size_t room = tally_bytes;
    if ((st = mct_tally_save_state(c->tally, p, &room))) {
        free(buf);
        return st;
    }
    p += tally_bytes;
    len = bytes;
    memcpy(p, &len, 8), p += 8;
    if (bytes) memcpy(p, state, bytes);
    p += bytes;
    const uint64_t sum = mct_cli_fnv1a(MCT_CLI_FNV1A_INIT, buf, (size_t)(p - buf));
    memcpy(p, &sum, 8);
    char err[4400];
    const int rc = sim_out_write_file(c->path, buf, total, err, sizeof err);
    free(buf);
    if (rc) {
        mct_cli_error("%s", err);
        return MCT_STATUS_IO_ERROR;
    }
    return MCT_STATUS_SUCCESS;
}

/* Names the first field where the two identities differ. */
static void explain_mismatch(const char* path, const char* saved, const char* now) {
    cJSON* a = cJSON_Parse(saved);
    cJSON* b = cJSON_Parse(now);
    const char *key = NULL, *was = NULL, *is = NULL;
    for (cJSON* x = a ? a->child : NULL; x && !key; x = x->next) {
        cJSON* y = cJSON_GetObjectItemCaseSensitive(b, x->string);
        if (cJSON_IsObject(x)) {
            for (cJSON* u = x->child; u && !key; u = u->next) {
                cJSON* v = cJSON_GetObjectItemCaseSensitive(y, u->string);
                if (!v || !cJSON_IsString(v) || strcmp(u->valuestring, v->valuestring))
                    key = u->string, was = u->valuestring, is = v && cJSON_IsString(v) ? v->valuestring : "(none)";
            }
        } else if (cJSON_IsString(x) && (!cJSON_IsString(y) || strcmp(x->valuestring, y->valuestring))) {
            key = x->string, was = x->valuestring, is = cJSON_IsString(y) ? y->valuestring : "(none)";
        }
    }
    if (key)
        mct_cli_error("--resume: checkpoint '%s' is of another run: %s %s there, %s here", path, key, was, is);
    else
        mct_cli_error("--resume: checkpoint '%s' is of another run", path);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

int mct_cli_checkpoint_resume(const char* path, const char* identity, mct_tally_t tally, void** state, size_t* bytes) {
    *state = NULL;
    *bytes = 0;
    FILE* f = fopen(path, "rb");
    if (!f) return mct_cli_error("--resume: cannot read '%s': %s", path, strerror(errno));
    unsigned char* buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 1 << 16;
            unsigned char* grown = realloc(buf, cap);
            if (!grown) {
                free(buf), fclose(f);
                return mct_cli_error("--resume: out of memory reading '%s'", path);
            }
            buf = grown;
        }
        const size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    const int read_error = ferror(f);
    fclose(f);
    int rc = 0;
    uint64_t sum = 0, len[3] = {0, 0, 0};
    uint32_t version = 0;
    size_t off[3] = {0, 0, 0};
    if (read_error) rc = mct_cli_error("--resume: cannot read '%s'", path);
    else if (n < 16 + 8 || memcmp(buf, CKPT_MAGIC, 8))
        rc = mct_cli_error("--resume: '%s' is not an mctally checkpoint", path);
    if (!rc) {
        memcpy(&version, buf + 8, 4);
        memcpy(&sum, buf + n - 8, 8);
        if (version != CKPT_VERSION)
            rc = mct_cli_error("--resume: '%s' has checkpoint format %u; this mctally reads format %u", path, version,
                               CKPT_VERSION);
        else if (sum != mct_cli_fnv1a(MCT_CLI_FNV1A_INIT, buf, n - 8))
            rc = mct_cli_error("--resume: checkpoint '%s' is corrupt or truncated (checksum mismatch)", path);
    }
    size_t p = 16;
    for (int i = 0; i < 3 && !rc; ++i) {
        if (n - 8 - p < 8) {
            rc = mct_cli_error("--resume: checkpoint '%s' is truncated", path);
            break;
        }
        memcpy(&len[i], buf + p, 8);
        p += 8;
        if (len[i] > n - 8 - p) {
            rc = mct_cli_error("--resume: checkpoint '%s' is truncated", path);
            break;
        }
        off[i] = p;
        p += (size_t)len[i];
    }
    if (!rc && p != n - 8) rc = mct_cli_error("--resume: checkpoint '%s' has trailing bytes", path);
    if (!rc && (len[0] != strlen(identity) || memcmp(buf + off[0], identity, (size_t)len[0]))) {
        char* saved = malloc((size_t)len[0] + 1);
        if (saved) {
            memcpy(saved, buf + off[0], (size_t)len[0]);
            saved[len[0]] = '\0';
            explain_mismatch(path, saved, identity);
            free(saved);
        }
        rc = 1;
    }
    mct_status_t st = MCT_STATUS_SUCCESS;
    if (!rc && (st = mct_tally_load_state(tally, buf + off[1], (size_t)len[1])))
        rc = mct_cli_error("--resume: the tally state in '%s' does not fit this tally (%s)", path, mct_status_name(st));
    if (!rc && len[2]) {
        *state = malloc((size_t)len[2]);
        if (!*state) rc = mct_cli_error("--resume: out of memory");
        else memcpy(*state, buf + off[2], (size_t)len[2]), *bytes = (size_t)len[2];
    }
    free(buf);
    return rc;
}
