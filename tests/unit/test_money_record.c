/* Unit tests of emulator/sim/controllers/money.c: each object's money as integers inside
 * the simulation. A record is read from the object's text only when it is not current:
 * its spec money when metadata.generation moves, its status money when
 * metadata.resourceVersion is not the one the simulation wrote (a restart: a new index;
 * a change the simulation did not make; a write that failed). The tests prove a current
 * record is NOT read again by handing it an object whose text disagrees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>

#include "controllers/money.h"

/* A Job as the store holds it: uid, generation, resourceVersion, and its money text. */
static json_t *job(const char *uid, int gen, const char *rv, const char *max, const char *cost)
{
    json_t *o = json_pack("{s:{s:s, s:s}, s:{}, s:{}}", "metadata", "uid", uid,
                          "resourceVersion", rv, "spec", "status");
    if (gen > 0)
        json_object_set_new(json_object_get(o, "metadata"), "generation", json_integer(gen));
    if (max)
        json_object_set_new(json_object_get(o, "spec"), "maxCostUSD", json_string(max));
    if (cost)
        json_object_set_new(json_object_get(o, "status"), "costUSD", json_string(cost));
    return o;
}

static void test_read_from_text_once(void **state)
{
    (void)state;
    struct em_money_index *ix = em_money_index_new();
    json_t *o = job("u1", 1, "5", "10.00", "1.25");
    struct em_money *m = em_money_of(ix, o);
    assert_int_equal(m->cost, 1250000);
    assert_int_equal(m->max_cost, 10000000);
    assert_int_equal(m->max_rate, -1);
    assert_int_equal(em_money_count(ix), 1);
    /* the same generation and resourceVersion: the record is current, the text not read
     * (this copy's text disagrees, and is not what comes back) */
    json_t *same = job("u1", 1, "5", "99.00", "7.77");
    assert_ptr_equal(em_money_of(ix, same), m);
    assert_int_equal(m->cost, 1250000);
    assert_int_equal(m->max_cost, 10000000);
    assert_int_equal(em_money_count(ix), 1);
    json_decref(same);
    json_decref(o);
    em_money_index_free(ix);
}

static void test_sim_write_keeps_integers(void **state)
{
    (void)state;
    struct em_money_index *ix = em_money_index_new();
    json_t *o = job("u1", 1, "5", "10.00", "1.25");
    struct em_money *m = em_money_of(ix, o);
    /* a reconcile accrues 0.75 and the simulation stores the object at rv 6 */
    m->cost += 750000;
    json_t *wrote = job("u1", 1, "6", "10.00", "2.00");
    em_money_wrote(m, wrote, true);
    json_t *next = job("u1", 1, "6", "10.00", "0.01"); /* text the record does not read */
    assert_int_equal(em_money_of(ix, next)->cost, 2000000);
    assert_int_equal(m->rate, -1); /* no status.rateUSDPerHour */
    assert_int_equal(m->capped, -1);
    /* a change the simulation did not make (rv 7): read from the text again */
    json_t *theirs = job("u1", 1, "7", "10.00", "3.50");
    json_object_set_new(json_object_get(theirs, "status"), "rateUSDPerHour", json_string("2.49"));
    json_object_set_new(json_object_get(theirs, "status"), "maxRateUSDPerHour",
                        json_string("2.739"));
    assert_int_equal(em_money_of(ix, theirs)->cost, 3500000);
    assert_int_equal(m->rate, 2490000);
    assert_int_equal(m->capped, 2739000);
    /* a write that failed: read again, whatever the rv */
    m->cost = 1;
    em_money_wrote(m, theirs, false);
    assert_int_equal(em_money_of(ix, theirs)->cost, 3500000);
    json_decref(next);
    json_decref(theirs);
    json_decref(wrote);
    json_decref(o);
    em_money_index_free(ix);
}

static void test_spec_per_generation(void **state)
{
    (void)state;
    struct em_money_index *ix = em_money_index_new();
    json_t *o = job("u1", 1, "5", "10.00", NULL);
    struct em_money *m = em_money_of(ix, o);
    assert_int_equal(m->max_cost, 10000000);
    assert_int_equal(m->cost, 0); /* no status.costUSD: 0 */
    /* a status-only change (rv moves, generation does not): the spec is not read */
    json_t *st = job("u1", 1, "6", "55.00", "0.50");
    assert_int_equal(em_money_of(ix, st)->max_cost, 10000000);
    assert_int_equal(m->cost, 500000);
    /* a new spec (generation 2): read; a limit taken away reads as none */
    json_t *g2 = job("u1", 2, "7", NULL, "0.50");
    json_object_set_new(json_object_get(g2, "spec"), "placement",
                        json_pack("{s:s}", "maxRateUSDPerHour", "2.75"));
    assert_int_equal(em_money_of(ix, g2)->max_cost, -1);
    assert_int_equal(m->max_rate, 2750000);
    assert_int_equal(m->limit, 0);
    /* a Budget's limit */
    json_t *bud = job("u3", 1, "1", NULL, NULL);
    json_object_set_new(json_object_get(bud, "spec"), "limitUSD", json_string("40.00"));
    assert_int_equal(em_money_of(ix, bud)->limit, 40000000);
    json_decref(bud);
    /* an object without a generation is read every time */
    json_t *a = job("u2", 0, "1", "1.00", NULL), *b = job("u2", 0, "1", "2.00", NULL);
    assert_int_equal(em_money_of(ix, a)->max_cost, 1000000);
    assert_int_equal(em_money_of(ix, b)->max_cost, 2000000);
    json_decref(a);
    json_decref(b);
    json_decref(g2);
    json_decref(st);
    json_decref(o);
    em_money_index_free(ix);
}

static void test_restart_and_forget(void **state)
{
    (void)state;
    struct em_money_index *ix = em_money_index_new();
    json_t *o = job("u1", 3, "40", "10.00", "4.00");
    struct em_money *m = em_money_of(ix, o);
    m->cost = 4500000;
    json_t *wrote = job("u1", 3, "41", "10.00", "4.50");
    em_money_wrote(m, wrote, true);
    em_money_index_free(ix);
    /* a restart: a new index rebuilds the record from what the store holds */
    ix = em_money_index_new();
    assert_int_equal(em_money_count(ix), 0);
    m = em_money_of(ix, wrote);
    assert_int_equal(m->cost, 4500000);
    assert_int_equal(m->max_cost, 10000000);
    /* many objects, each its own record; a gone one is dropped */
    char uid[16];
    for (int i = 0; i < 3000; i++) {
        snprintf(uid, sizeof uid, "x%d", i);
        json_t *x = job(uid, 1, "1", NULL, "0.000001");
        assert_int_equal(em_money_of(ix, x)->cost, 1);
        json_decref(x);
    }
    assert_int_equal(em_money_count(ix), 3001);
    em_money_forget(ix, wrote);
    em_money_forget(ix, wrote); /* twice: a no-op */
    assert_int_equal(em_money_count(ix), 3000);
    /* without a uid: the scratch record, read each time, not counted */
    json_t *anon = json_pack("{s:{s:s}, s:{s:s}}", "metadata", "resourceVersion", "1",
                             "status", "costUSD", "0.30");
    assert_int_equal(em_money_of(ix, anon)->cost, 300000);
    json_object_set_new(json_object_get(anon, "status"), "costUSD", json_string("0.40"));
    assert_int_equal(em_money_of(ix, anon)->cost, 400000);
    assert_int_equal(em_money_count(ix), 3000);
    json_decref(anon);
    json_decref(wrote);
    json_decref(o);
    em_money_index_free(ix);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_from_text_once),
        cmocka_unit_test(test_sim_write_keeps_integers),
        cmocka_unit_test(test_spec_per_generation),
        cmocka_unit_test(test_restart_and_forget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
