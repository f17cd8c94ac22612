/* SPDX-License-Identifier: BSD-3-Clause */
/** @file test_phantom_transport_body.h  The checks of test_phantom_transport.c
 * in one precision: included once per precision with SUFFIX (f64, f32), NAME
 * (its string), REAL and ULP (the precision's machine epsilon) defined. No include guard: meant to be
 * included twice. */
#define TPT_CAT_(a, b) a##_##b
#define TPT_CAT(a, b) TPT_CAT_(a, b)
#define TPT(name) TPT_CAT(name, SUFFIX)
#define TPT_PH(name) TPT_CAT(mct_ph_##name, SUFFIX)

/** The grid, and its box read back in double. */
static TPT_PH(geom_t) TPT(grid)(double lo[3], double hi[3], double* extent) {
    TPT_PH(geom_t) g = TPT_PH(geom_make)(grid_n, grid_d, 1.0, MCT_PH_ELECTRON, 0.2, 0.01, 0.01, 0.2, 0.01, 0.1, 1.0, 1u);
    *extent = 0.0;
    for (int a = 0; a < 3; ++a) {
        lo[a] = (double)g.lo[a];
        hi[a] = (double)g.hi[a];
        if (hi[a] - lo[a] > *extent) *extent = hi[a] - lo[a];
    }
    return g;
}

/** A particle on the ray, the ray then read back from the particle's
 * rounded coordinates. */
static TPT_PH(particle_t) TPT(particle)(ray_t* r) {
    TPT_PH(particle_t) p;
    memset(&p, 0, sizeof p);
    p.x = (REAL)r->pos[0];
    p.y = (REAL)r->pos[1];
    p.z = (REAL)r->pos[2];
    p.u = (REAL)r->dir[0];
    p.v = (REAL)r->dir[1];
    p.w = (REAL)r->dir[2];
    p.e = (REAL)1;
    p.type = MCT_PH_ELECTRON;
    r->pos[0] = (double)p.x;
    r->pos[1] = (double)p.y;
    r->pos[2] = (double)p.z;
    r->dir[0] = (double)p.u;
    r->dir[1] = (double)p.v;
    r->dir[2] = (double)p.w;
    return p;
}

/** How far rounding may move a face along the ray: a few units in the last
 * place of the largest coordinate, over the smallest direction cosine that
 * crosses faces. */
static double TPT(face_slack)(const ray_t* r, double extent) {
    double dmin = 1.0;
    for (int a = 0; a < 3; ++a)
        if (r->dir[a] != 0.0 && fabs(r->dir[a]) < dmin) dmin = fabs(r->dir[a]);
    return 16.0 * ULP * extent / dmin;
}

/** The uniform path: pieces by length. */
static void TPT(run_uniform)(void) {
    double lo[3], hi[3], extent;
    const TPT_PH(geom_t) g = TPT(grid)(lo, hi, &extent);
    double dose[VOXELS], want[VOXELS];
    int single = 0, multi = 0, points = 0;
    double worst = 0.0;
    for (int trial = 0; trial < TRIALS; ++trial) {
        ray_t r;
        random_ray(&r, lo, hi);
        TPT_PH(particle_t) p = TPT(particle)(&r);
        const double dexit = exit_of(&r, lo, hi), u = uniform();
        /* points, short segments (most stay in their voxel), long ones */
        const REAL len = (REAL)(u < 0.02 ? 0.0 : dexit * uniform() * (u < 0.5 ? 0.05 : 0.999));
        const REAL de = (REAL)(0.5 + uniform());
        memset(dose, 0, sizeof dose);
        memset(want, 0, sizeof want);
        mct_phantom_counters_t c;
        memset(&c, 0, sizeof c);
        const TPT_PH(face_t) f = TPT_PH(deposit_segment)(dose, &g, &p, len, de, 0, (REAL)0, &c);
        ASSERT_TRUE(f.cut == 0);
        int crossed = 0;
        if (len > (REAL)0) {
            for (int k = 0; k < NZ; ++k)
                for (int j = 0; j < NY; ++j)
                    for (int i = 0; i < NX; ++i) {
                        const int v[3] = {i, j, k};
                        double t0, t1;
                        if (!clip(&r, lo, v, (double)len, &t0, &t1)) continue;
                        want[voxel_index(v)] = (double)de * (t1 - t0) / (double)len;
                        ++crossed;
                    }
            ASSERT_NEAR_F64((double)f.dist, (double)len, 4.0 * ULP * (double)len);
            if (crossed == 1) ++single;
            else ++multi;
        } else {
            want[start_voxel(&r, lo)] = (double)de;
            ++points;
        }
        const double tol = (double)de * (TPT(face_slack)(&r, extent) / (len > (REAL)0 ? (double)len : 1.0) + 64.0 * ULP);
        double sum = 0.0;
        for (int v = 0; v < VOXELS; ++v) {
            const double err = fabs(dose[v] - want[v]);
            if (err > tol) {
                printf("%s trial %d: voxel %d got %.17g, chord share %.17g (len %.9g, %d voxels)\n", NAME, trial,
                       v, dose[v], want[v], (double)len, crossed);
                ASSERT_TRUE(err <= tol);
            }
            if (err / (double)de > worst) worst = err / (double)de;
            sum += dose[v];
        }
        ASSERT_NEAR_F64(sum, (double)de, 64.0 * ULP * (double)de);
        ASSERT_NEAR_F64(c.scored, sum, 64.0 * ULP * (double)de);
    }
    printf("%s uniform: %d segments in one voxel, %d across faces, %d points; worst piece error %.3g of de\n",
           NAME, single, multi, points, worst);
    /* Both forms of the walk ran often. */
    ASSERT_TRUE(single > TRIALS / 4);
    ASSERT_TRUE(multi > TRIALS / 4);
}

/** One voxel the ray crosses, in the order it does. */
typedef struct {
    int voxel;
    double t0, t1;
} TPT(cross_t);

/** The voxel path: pieces by mass, cut at another material or the surface. */
static void TPT(run_stop)(void) {
    double lo[3], hi[3], extent;
    TPT_PH(geom_t) g = TPT(grid)(lo, hi, &extent);
    uint8_t mat[VOXELS];
    float rho[VOXELS];
    for (int v = 0; v < VOXELS; ++v) {
        mat[v] = (uint8_t)(uniform() < 0.25);
        rho[v] = (float)(0.2 + 1.8 * uniform());
    }
    g.het = 1;
    g.mat = mat;
    g.rho = rho;
    g.materials = 2;
    double dose[VOXELS], want[VOXELS];
    int cut_material = 0, cut_surface = 0, ended = 0, near_face = 0;
    double worst = 0.0;
    for (int trial = 0; trial < TRIALS; ++trial) {
        ray_t r;
        random_ray(&r, lo, hi);
        TPT_PH(particle_t) p = TPT(particle)(&r);
        const double dexit = exit_of(&r, lo, hi);
        /* The voxels the ray crosses up to the surface, in order. */
        TPT(cross_t) path[NX + NY + NZ + 3];
        int np = 0;
        for (int k = 0; k < NZ; ++k)
            for (int j = 0; j < NY; ++j)
                for (int i = 0; i < NX; ++i) {
                    const int v[3] = {i, j, k};
                    double t0, t1;
                    if (!clip(&r, lo, v, dexit, &t0, &t1)) continue;
                    ASSERT_TRUE(np < NX + NY + NZ + 3);
                    int at = np++;
                    for (; at > 0 && path[at - 1].t0 > t0; --at) path[at] = path[at - 1];
                    path[at] = (TPT(cross_t)){voxel_index(v), t0, t1};
                }
        if (np == 0) continue; /* on the surface, heading out */
        const int v0 = path[0].voxel;
        /* The step's reference density: the start voxel's (a step's first
         * part) or another (its second part, after the hinge). */
        const REAL ref = uniform() < 0.5 ? (REAL)rho[v0] : (REAL)(0.3 + 1.2 * uniform());
        double mass_to_surface = 0.0;
        for (int q = 0; q < np; ++q) mass_to_surface += rho[path[q].voxel] * (path[q].t1 - path[q].t0);
        const REAL len = (REAL)(mass_to_surface * 1.3 * uniform() / (double)ref);
        if (!(len > (REAL)0)) continue;
        const double mass = (double)len * (double)ref;
        const REAL de = (REAL)(0.5 + uniform());
        /* The reference walk. */
        memset(want, 0, sizeof want);
        double spent = 0.0, t_end = dexit;
        int cut = 1, ambiguous = 0;
        /* Rounding of each face, carried through density ratios of up to 10
         * (2.0 / 0.2) when mass becomes length. */
        const double tol_t = TPT(face_slack)(&r, extent) * 16.0;
        for (int q = 0; q < np; ++q) {
            const int v = path[q].voxel;
            if (mat[v] != mat[v0]) {
                t_end = path[q].t0;
                break;
            }
            const double m = rho[v] * (path[q].t1 - path[q].t0);
            if (spent + m >= mass) {
                t_end = path[q].t0 + (mass - spent) / rho[v];
                want[v] += (double)de * (mass - spent) / mass;
                spent = mass;
                cut = 0;
                /* an end this close to a face may fall on either side of it */
                if (path[q].t1 - t_end < tol_t || t_end - path[q].t0 < tol_t) ambiguous = 1;
                break;
            }
            want[v] += (double)de * m / mass;
            spent += m;
        }
        if (ambiguous) {
            ++near_face;
            continue;
        }
        memset(dose, 0, sizeof dose);
        mct_phantom_counters_t c;
        memset(&c, 0, sizeof c);
        const TPT_PH(face_t) f = TPT_PH(deposit_segment)(dose, &g, &p, len, de, 1, ref, &c);
        ASSERT_TRUE(f.cut == cut);
        ASSERT_NEAR_F64((double)f.dist, t_end, tol_t + 8.0 * ULP * t_end);
        const double tol = (double)de * (tol_t * 2.0 / (t_end > 0.0 ? t_end : 1.0) + 64.0 * ULP);
        double sum = 0.0;
        for (int v = 0; v < VOXELS; ++v) {
            const double err = fabs(dose[v] - want[v]);
            if (err > tol) {
                printf("%s stop trial %d: voxel %d got %.17g, mass share %.17g (cut %d, t_end %.9g)\n", NAME,
                       trial, v, dose[v], want[v], cut, t_end);
                ASSERT_TRUE(err <= tol);
            }
            if (err / (double)de > worst) worst = err / (double)de;
            sum += dose[v];
        }
        if (cut) {
            /* what was not deposited, and the length spent in cm at ref */
            ASSERT_NEAR_F64((double)f.left, (double)de - sum, tol + 64.0 * ULP * (double)de);
            ASSERT_NEAR_F64((double)f.used, spent / (double)ref, (tol_t + 8.0 * ULP * t_end) * 2.0 / (double)ref);
            if (t_end < dexit - tol_t) ++cut_material;
            else ++cut_surface;
        } else {
            ASSERT_NEAR_F64(sum, (double)de, 64.0 * ULP * (double)de);
            ++ended;
        }
    }
    printf("%s voxel path: %d walks ended inside, %d cut at another material, %d at the surface, %d skipped "
           "(end within rounding of a face); worst piece error %.3g of de\n",
           NAME, ended, cut_material, cut_surface, near_face, worst);
    ASSERT_TRUE(ended > TRIALS / 10);
    ASSERT_TRUE(cut_material > TRIALS / 20);
    ASSERT_TRUE(cut_surface > TRIALS / 50);
    ASSERT_TRUE(near_face < TRIALS / 50);
}

#undef TPT_CAT_
#undef TPT_CAT
#undef TPT
#undef TPT_PH
