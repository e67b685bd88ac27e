/* Unit tests of pkg/config: choosing the file, reading and checking it, resolving a
 * context with its overrides, the edits of `nodus config`, and saving.
 *
 * Every test runs in a fresh directory made with mkdtemp (also the working directory
 * and, as "@/home", $HOME), with NODUS_CONFIG, KUBECONFIG, NODUS_SERVER and NODUS_TOKEN
 * unset. In expected texts "@" stands for that directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "util/buf.h"
#include "util/status.h"
#include "util/xmalloc.h"
#include "yaml/yaml.h"

#define N_ROWS(a) (sizeof(a) / sizeof((a)[0]))

struct fx {
    char *dir;     /* the test's directory, as getcwd reports it */
    char *old_cwd; /* to go back to */
    char *strs[256];
    size_t n;
};

/* "@" in s replaced by the test's directory; freed at teardown. */
static const char *at(struct fx *fx, const char *s)
{
    if (!s)
        return NULL;
    struct nd_buf b = ND_BUF_INIT;
    for (const char *p = s; *p; p++) {
        if (*p == '@')
            nd_buf_adds(&b, fx->dir);
        else
            nd_buf_addch(&b, *p);
    }
    assert_true(fx->n < N_ROWS(fx->strs));
    fx->strs[fx->n++] = nd_buf_detach(&b);
    return fx->strs[fx->n - 1];
}

static char *cwd_now(void)
{
    char buf[4096];
    assert_non_null(getcwd(buf, sizeof buf));
    return nd_xstrdup(buf);
}

static int setup(void **state)
{
    struct fx *fx = nd_xcalloc(1, sizeof *fx);
    char tmpl[] = "/tmp/nd-config-XXXXXX";
    if (!mkdtemp(tmpl))
        return -1;
    fx->old_cwd = cwd_now();
    if (chdir(tmpl) < 0)
        return -1;
    fx->dir = cwd_now();
    setenv("HOME", at(fx, "@/home"), 1);
    unsetenv("NODUS_CONFIG");
    unsetenv("KUBECONFIG");
    unsetenv("NODUS_SERVER");
    unsetenv("NODUS_TOKEN");
    *state = fx;
    return 0;
}

static void remove_tree(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) < 0)
        return;
    if (S_ISDIR(sb.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char *sub = nd_xasprintf("%s/%s", path, e->d_name);
            remove_tree(sub);
            free(sub);
        }
        if (d)
            closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static int teardown(void **state)
{
    struct fx *fx = *state;
    if (chdir(fx->old_cwd) < 0)
        return -1;
    remove_tree(fx->dir);
    for (size_t i = 0; i < fx->n; i++)
        free(fx->strs[i]);
    free(fx->dir);
    free(fx->old_cwd);
    free(fx);
    return 0;
}

/* Writes text to path (relative to the test's directory), creating its directories. */
static void put(const char *path, const char *text)
{
    char *copy = nd_xstrdup(path);
    for (char *p = copy + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(copy, 0755);
            *p = '/';
        }
    }
    free(copy);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* NEW contents of a file. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    struct nd_buf b = ND_BUF_INIT;
    char chunk[512];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        nd_buf_add(&b, chunk, n);
    fclose(f);
    return nd_buf_detach(&b);
}

static char *dump(const json_t *doc)
{
    struct nd_buf b = ND_BUF_INIT;
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(nd_yaml_dump_flags(doc, &b, ND_YAML_SORT_KEYS, &st), 0);
    return nd_buf_detach(&b);
}

static const char EMPTY_YAML[] = "apiVersion: v1\n"
                                 "clusters: []\n"
                                 "contexts: []\n"
                                 "kind: Config\n"
                                 "preferences: {}\n"
                                 "users: []\n";

/* A file whose current-context tells which file was read. */
static void put_marked(const char *path)
{
    char *text = nd_xasprintf("apiVersion: v1\nkind: Config\ncurrent-context: %s\n", path);
    put(path, text);
    free(text);
}

static void test_file_choice(void **state)
{
    struct fx *fx = *state;
    static const struct {
        const char *explicit_path, *nodus_config, *kubeconfig, *home;
        const char *files; /* created, ','-separated, relative to @ */
        const char *path;  /* expected; NULL: an error */
        bool exists;
        const char *error;
    } rows[] = {
        /* precedence: explicit, NODUS_CONFIG, ~/.nodus/config, KUBECONFIG */
        {"@/explicit", "@/nc", "@/kube", "@/home", "explicit,nc,kube,home/.nodus/config",
         "@/explicit", true, NULL},
        {NULL, "@/nc", "@/kube", "@/home", "nc,kube,home/.nodus/config", "@/nc", true, NULL},
        {NULL, NULL, "@/kube", "@/home", "kube,home/.nodus/config", "@/home/.nodus/config", true,
         NULL},
        {NULL, NULL, "@/kube", "@/home", "kube", "@/kube", true, NULL},
        /* the first entry of a list; empty entries are skipped */
        {NULL, NULL, "@/kube:@/other", "@/home", "kube,other", "@/kube", true, NULL},
        {NULL, NULL, "::@/kube:@/other", "@/home", "kube,other", "@/kube", true, NULL},
        {NULL, NULL, "@/missing:@/other", "@/home", "other", "@/home/.nodus/config", false, NULL},
        /* named but missing: an empty configuration at that path */
        {"@/explicit", NULL, NULL, "@/home", "", "@/explicit", false, NULL},
        {NULL, "@/nc", NULL, "@/home", "home/.nodus/config", "@/nc", false, NULL},
        {"", "", "", "@/home", "", "@/home/.nodus/config", false, NULL},
        {NULL, NULL, NULL, "@/home", "", "@/home/.nodus/config", false, NULL},
        /* no HOME */
        {NULL, NULL, "@/kube", NULL, "", "@/kube", false, NULL},
        {NULL, "@/nc", NULL, NULL, "nc", "@/nc", true, NULL},
        /* nothing at all: an empty configuration without a path (flags and NODUS_SERVER
         * may still name a server; saving it fails) */
        {NULL, NULL, NULL, NULL, "", NULL, false, NULL},
    };
    for (size_t i = 0; i < N_ROWS(rows); i++) {
        char *files = nd_xstrdup(rows[i].files), *save = NULL;
        for (char *f = strtok_r(files, ",", &save); f; f = strtok_r(NULL, ",", &save))
            put_marked(f);
        free(files);
        if (rows[i].nodus_config)
            setenv("NODUS_CONFIG", at(fx, rows[i].nodus_config), 1);
        else
            unsetenv("NODUS_CONFIG");
        if (rows[i].kubeconfig)
            setenv("KUBECONFIG", at(fx, rows[i].kubeconfig), 1);
        else
            unsetenv("KUBECONFIG");
        if (rows[i].home)
            setenv("HOME", at(fx, rows[i].home), 1);
        else
            unsetenv("HOME");

        struct nd_config cfg;
        struct nd_status st = ND_STATUS_INIT;
        int rc = nd_config_load(&cfg, at(fx, rows[i].explicit_path), &st);
        if (!rows[i].path) {
            assert_int_equal(rc, 0);
            assert_null(cfg.path);
            assert_false(cfg.exists);
            char *text = dump(cfg.doc);
            assert_string_equal(text, EMPTY_YAML);
            free(text);
            struct nd_status sst = ND_STATUS_INIT;
            assert_int_equal(nd_config_save(&cfg, &sst), -1);
            assert_string_equal(sst.message, "no configuration file: HOME is not set");
            assert_string_equal(sst.reason, "Usage");
            nd_status_release(&sst);
        } else {
            if (rc != 0)
                fail_msg("row %zu: %s", i, st.message);
            assert_string_equal(cfg.path, at(fx, rows[i].path));
            assert_int_equal(cfg.exists, rows[i].exists);
            if (rows[i].exists) {
                /* the file read is the one chosen: its mark names it */
                const char *mark = nd_config_current_context(&cfg);
                assert_non_null(mark);
                char *want = nd_xasprintf("@/%s", mark);
                assert_string_equal(at(fx, want), cfg.path);
                free(want);
            } else {
                char *text = dump(cfg.doc);
                assert_string_equal(text, EMPTY_YAML);
                free(text);
            }
        }
        nd_config_release(&cfg);
        nd_status_release(&st);
        remove_tree(at(fx, "@/home"));
        const char *names[] = {"explicit", "nc", "kube", "other"};
        for (size_t k = 0; k < N_ROWS(names); k++)
            unlink(names[k]);
    }
}

/* Loads path (relative to the test's directory); fails the test on an error. */
static void load_ok(struct nd_config *cfg, const char *path)
{
    struct nd_status st = ND_STATUS_INIT;
    if (nd_config_load(cfg, path, &st) != 0)
        fail_msg("load %s: %s", path, st.message);
    nd_status_release(&st);
}

static const char TWO_CONTEXTS[] = "apiVersion: v1\n"
                                   "kind: Config\n"
                                   "current-context: dev\n"
                                   "clusters:\n"
                                   "- name: local\n"
                                   "  cluster:\n"
                                   "    server: http://127.0.0.1:8443\n"
                                   "- name: prod\n"
                                   "  cluster:\n"
                                   "    server: https://prod.example:443\n"
                                   "    insecure-skip-tls-verify: true\n"
                                   "users:\n"
                                   "- name: alice\n"
                                   "  user:\n"
                                   "    token: tok-alice\n"
                                   "- name: bob\n"
                                   "  user:\n"
                                   "    token: tok-bob\n"
                                   "contexts:\n"
                                   "- name: dev\n"
                                   "  context:\n"
                                   "    cluster: local\n"
                                   "    user: alice\n"
                                   "    namespace: team-a\n"
                                   "- name: prod\n"
                                   "  context:\n"
                                   "    cluster: prod\n"
                                   "    user: bob\n"
                                   "    namespace: ''\n";

static void test_two_contexts(void **state)
{
    (void)state;
    static const struct {
        const char *use;                /* use-context first, or NULL */
        const char *ov_context, *ov_ns; /* flags */
        const char *context, *cluster, *user, *server, *token, *ns;
        bool insecure;
    } rows[] = {
        {NULL, NULL, NULL, "dev", "local", "alice", "http://127.0.0.1:8443", "tok-alice", "team-a",
         false},
        {"prod", NULL, NULL, "prod", "prod", "bob", "https://prod.example:443", "tok-bob",
         "default", true},
        {"prod", "dev", NULL, "dev", "local", "alice", "http://127.0.0.1:8443", "tok-alice",
         "team-a", false},
        {NULL, "prod", "ml", "prod", "prod", "bob", "https://prod.example:443", "tok-bob", "ml",
         true},
        {"dev", "", "", "dev", "local", "alice", "http://127.0.0.1:8443", "tok-alice", "team-a",
         false},
    };
    put("config", TWO_CONTEXTS);
    for (size_t i = 0; i < N_ROWS(rows); i++) {
        struct nd_config cfg;
        struct nd_status st = ND_STATUS_INIT;
        struct nd_target t;
        load_ok(&cfg, "config");
        assert_string_equal(nd_config_current_context(&cfg), "dev");
        if (rows[i].use) {
            assert_int_equal(nd_config_use_context(&cfg, rows[i].use, &st), 0);
            assert_string_equal(nd_config_current_context(&cfg), rows[i].use);
        }
        struct nd_overrides ov = {.context = rows[i].ov_context, .namespace = rows[i].ov_ns};
        assert_int_equal(nd_config_resolve(&cfg, &ov, &t, &st), 0);
        assert_string_equal(t.context, rows[i].context);
        assert_string_equal(t.cluster, rows[i].cluster);
        assert_string_equal(t.user, rows[i].user);
        assert_string_equal(t.server, rows[i].server);
        assert_string_equal(t.token, rows[i].token);
        assert_string_equal(t.namespace, rows[i].ns);
        assert_int_equal(t.insecure, rows[i].insecure);
        assert_null(t.ca_file);
        assert_null(t.ca_data);
        assert_null(t.cert_file);
        assert_null(t.key_data);
        nd_target_release(&t);
        nd_config_release(&cfg);
        nd_status_release(&st);
    }

    /* context names in file order; use-context of a missing one changes nothing */
    struct nd_config cfg;
    struct nd_status st = ND_STATUS_INIT;
    load_ok(&cfg, "config");
    json_t *names = nd_config_context_names(&cfg);
    json_t *want = json_pack("[s, s]", "dev", "prod");
    assert_true(json_equal(names, want));
    json_decref(names);
    json_decref(want);
    assert_int_equal(nd_config_use_context(&cfg, "nope", &st), -1);
    assert_string_equal(st.message, "context \"nope\" does not exist");
    assert_string_equal(nd_config_current_context(&cfg), "dev");
    assert_string_equal(
        json_string_value(json_object_get(nd_config_get(&cfg, "clusters", "prod"), "server")),
        "https://prod.example:443");
    assert_null(nd_config_get(&cfg, "clusters", "dev"));
    assert_null(nd_config_get(&cfg, "pools", "dev"));
    nd_config_release(&cfg);
    nd_status_release(&st);
}

static void test_overrides(void **state)
{
    (void)state;
    static const struct {
        const char *file; /* "two" or "none" (no file at all) */
        const char *env_server, *env_token;
        const char *ov_server, *ov_token;
        const char *context, *server, *token;
    } rows[] = {
        {"two", NULL, NULL, NULL, NULL, "dev", "http://127.0.0.1:8443", "tok-alice"},
        {"two", "http://env:1", NULL, NULL, NULL, "dev", "http://env:1", "tok-alice"},
        {"two", NULL, "env-tok", NULL, NULL, "dev", "http://127.0.0.1:8443", "env-tok"},
        {"two", "http://env:1", "env-tok", "http://flag:2", NULL, "dev", "http://flag:2",
         "env-tok"},
        {"two", "http://env:1", "env-tok", "http://flag:2", "flag-tok", "dev", "http://flag:2",
         "flag-tok"},
        {"two", "", "", NULL, NULL, "dev", "http://127.0.0.1:8443", "tok-alice"},
        /* no configuration at all: the environment or the flags are enough */
        {"none", "http://env:1", "env-tok", NULL, NULL, NULL, "http://env:1", "env-tok"},
        {"none", "http://env:1", NULL, NULL, NULL, NULL, "http://env:1", NULL},
        {"none", NULL, NULL, "http://flag:2", "flag-tok", NULL, "http://flag:2", "flag-tok"},
    };
    put("two", TWO_CONTEXTS);
    for (size_t i = 0; i < N_ROWS(rows); i++) {
        struct nd_config cfg;
        struct nd_status st = ND_STATUS_INIT;
        struct nd_target t;
        if (rows[i].env_server)
            setenv("NODUS_SERVER", rows[i].env_server, 1);
        else
            unsetenv("NODUS_SERVER");
        if (rows[i].env_token)
            setenv("NODUS_TOKEN", rows[i].env_token, 1);
        else
            unsetenv("NODUS_TOKEN");
        load_ok(&cfg, rows[i].file);
        struct nd_overrides ov = {.server = rows[i].ov_server, .token = rows[i].ov_token};
        if (nd_config_resolve(&cfg, &ov, &t, &st) != 0)
            fail_msg("row %zu: %s", i, st.message);
        if (rows[i].context)
            assert_string_equal(t.context, rows[i].context);
        else
            assert_null(t.context);
        assert_string_equal(t.server, rows[i].server);
        if (rows[i].token)
            assert_string_equal(t.token, rows[i].token);
        else
            assert_null(t.token);
        assert_string_equal(t.namespace, rows[i].context ? "team-a" : "default");
        nd_target_release(&t);
        nd_config_release(&cfg);
        nd_status_release(&st);
    }
    unsetenv("NODUS_SERVER");
    unsetenv("NODUS_TOKEN");

    /* NULL overrides are allowed; namespace defaults without a context */
    struct nd_config cfg;
    struct nd_status st = ND_STATUS_INIT;
    struct nd_target t;
    setenv("NODUS_SERVER", "http://env:1", 1);
    load_ok(&cfg, "none");
    assert_int_equal(nd_config_resolve(&cfg, NULL, &t, &st), 0);
    assert_string_equal(t.namespace, "default");
    assert_null(t.cluster);
    assert_null(t.user);
    nd_target_release(&t);
    nd_config_release(&cfg);
    unsetenv("NODUS_SERVER");
}

/* Resolves the current context of the file at path: 0 with *t, or -1 with st. */
static int resolve_file(const char *path, const struct nd_overrides *ov, struct nd_target *t,
                        struct nd_status *st)
{
    struct nd_config cfg;
    load_ok(&cfg, path);
    int rc = nd_config_resolve(&cfg, ov, t, st);
    nd_config_release(&cfg);
    return rc;
}

static void test_token_file(void **state)
{
    struct fx *fx = *state;
    static const struct {
        const char *user;      /* the user's body, in flow style */
        const char *env_token; /* NODUS_TOKEN */
        const char *token;     /* expected; NULL: none */
        const char *error;     /* expected message; NULL: success */
    } rows[] = {
        /* relative to the file's directory, white space trimmed */
        {"{tokenFile: secrets/tok}", NULL, "s3cret", NULL},
        {"{tokenFile: ./secrets/tok}", NULL, "s3cret", NULL},
        {"{tokenFile: @/cfg/secrets/tok}", NULL, "s3cret", NULL},
        {"{tokenFile: secrets/blank}", NULL, NULL, NULL},
        /* a token wins, and the file is then not read */
        {"{token: direct, tokenFile: missing}", NULL, "direct", NULL},
        {"{tokenFile: missing}", "env-tok", "env-tok", NULL},
        {"{tokenFile: missing}", NULL, NULL,
         "user \"u\": cannot read tokenFile \"@/cfg/missing\": No such file or directory"},
        {"{tokenFile: secrets}", NULL, NULL,
         "user \"u\": cannot read tokenFile \"@/cfg/secrets\": Is a directory"},
    };
    put("cfg/secrets/tok", "  s3cret\n\n");
    put("cfg/secrets/blank", " \n");
    for (size_t i = 0; i < N_ROWS(rows); i++) {
        char *text = nd_xasprintf("current-context: c\n"
                                  "clusters: [{name: k, cluster: {server: 'http://h:1'}}]\n"
                                  "users: [{name: u, user: %s}]\n"
                                  "contexts: [{name: c, context: {cluster: k, user: u}}]\n",
                                  at(fx, rows[i].user));
        put("cfg/config", text);
        free(text);
        if (rows[i].env_token)
            setenv("NODUS_TOKEN", rows[i].env_token, 1);
        else
            unsetenv("NODUS_TOKEN");
        struct nd_target t;
        struct nd_status st = ND_STATUS_INIT;
        int rc = resolve_file("cfg/config", NULL, &t, &st);
        if (rows[i].error) {
            assert_int_equal(rc, -1);
            assert_string_equal(st.message, at(fx, rows[i].error));
            assert_string_equal(st.reason, "Usage");
            assert_null(t.server);
        } else {
            if (rc != 0)
                fail_msg("row %zu: %s", i, st.message);
            if (rows[i].token)
                assert_string_equal(t.token, rows[i].token);
            else
                assert_null(t.token);
        }
        nd_target_release(&t);
        nd_status_release(&st);
    }
    unsetenv("NODUS_TOKEN");
}

static void test_tls_paths(void **state)
{
    struct fx *fx = *state;
    static const struct {
        const char *cluster, *user;  /* bodies in flow style */
        const char *ov_ca;           /* --certificate-authority */
        bool ov_insecure;            /* --insecure-skip-tls-verify */
        const char *ca, *cert, *key; /* expected files */
        bool insecure;
    } rows[] = {
        {"{server: 'https://h', certificate-authority: ca.pem}", "{}", NULL, false, "@/cfg/ca.pem",
         NULL, NULL, false},
        {"{server: 'https://h', certificate-authority: ./pki//ca.pem}", "{}", NULL, false,
         "@/cfg/pki/ca.pem", NULL, NULL, false},
        {"{server: 'https://h', certificate-authority: /etc/ca.pem}", "{}", NULL, false,
         "/etc/ca.pem", NULL, NULL, false},
        {"{server: 'https://h', insecure-skip-tls-verify: true}",
         "{client-certificate: me.crt, client-key: /k/me.key}", NULL, false, NULL, "@/cfg/me.crt",
         "/k/me.key", true},
        /* a flag CA replaces the file's CA and insecure mode; its path is the caller's */
        {"{server: 'https://h', certificate-authority: ca.pem, insecure-skip-tls-verify: true}",
         "{}", "flag.pem", false, "flag.pem", NULL, NULL, false},
        /* flag insecure mode drops the file's CA */
        {"{server: 'https://h', certificate-authority: ca.pem}", "{}", NULL, true, NULL, NULL, NULL,
         true},
    };
    for (size_t i = 0; i < N_ROWS(rows); i++) {
        char *text = nd_xasprintf("current-context: c\n"
                                  "clusters: [{name: k, cluster: %s}]\n"
                                  "users: [{name: u, user: %s}]\n"
                                  "contexts: [{name: c, context: {cluster: k, user: u}}]\n",
                                  rows[i].cluster, rows[i].user);
        put("cfg/config", text);
        free(text);
        struct nd_target t;
        struct nd_status st = ND_STATUS_INIT;
        struct nd_overrides ov = {.ca_file = rows[i].ov_ca, .insecure = rows[i].ov_insecure};
        if (resolve_file("cfg/config", &ov, &t, &st) != 0)
            fail_msg("row %zu: %s", i, st.message);
        if (rows[i].ca)
            assert_string_equal(t.ca_file, at(fx, rows[i].ca));
        else
            assert_null(t.ca_file);
        if (rows[i].cert)
            assert_string_equal(t.cert_file, at(fx, rows[i].cert));
        else
            assert_null(t.cert_file);
        if (rows[i].key)
            assert_string_equal(t.key_file, at(fx, rows[i].key));
        else
            assert_null(t.key_file);
        assert_int_equal(t.insecure, rows[i].insecure);
        nd_target_release(&t);
        nd_status_release(&st);
    }

    /* a configuration named by a relative path: its paths come out absolute */
    put("cfg/config", "current-context: c\n"
                      "clusters: [{name: k, cluster: {server: x, certificate-authority: ca}}]\n"
                      "contexts: [{name: c, context: {cluster: k}}]\n");
    static const struct {
        const char *cwd, *path;
    } from[] = {{"@", "cfg/config"}, {"@/cfg", "config"}, {"/", "@/cfg/config"}};
    for (size_t i = 0; i < N_ROWS(from); i++) {
        struct nd_target t;
        struct nd_status st = ND_STATUS_INIT;
        assert_int_equal(chdir(at(fx, from[i].cwd)), 0);
        assert_int_equal(resolve_file(at(fx, from[i].path), NULL, &t, &st), 0);
        assert_string_equal(t.ca_file, at(fx, "@/cfg/ca"));
        nd_target_release(&t);
    }
    assert_int_equal(chdir(fx->dir), 0);
}

#define PEM_CA "-----BEGIN CERTIFICATE-----\nMIIBca\n-----END CERTIFICATE-----\n"
#define PEM_CA_B64                                                                                 \
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJjYQotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg=="

static void test_data_fields(void **state)
{
    (void)state;
    static const struct {
        const char *cluster, *user;
        const char *error, *field; /* load error and its cause's field; NULL: success */
    } rows[] = {
        {"{server: x, certificate-authority-data: " PEM_CA_B64 "}",
         "{client-certificate-data: Y2VydA==, client-key-data: a2V5}", NULL, NULL},
        {"{server: x, certificate-authority-data: 'not*base64'}", "{}",
         "clusters[0].cluster.certificate-authority-data: invalid base64 (or not PEM text)",
         "clusters[0].cluster.certificate-authority-data"},
        {"{server: x}", "{client-certificate-data: Y2VydA==, client-key-data: a}",
         "users[0].user.client-key-data: invalid base64 (or not PEM text)",
         "users[0].user.client-key-data"},
        {"{server: x}", "{client-certificate-data: AAEC}",
         "users[0].user.client-certificate-data: invalid base64 (or not PEM text)",
         "users[0].user.client-certificate-data"},
        {"{server: x}", "{client-certificate-data: 12}",
         "users[0].user.client-certificate-data: must be a string",
         "users[0].user.client-certificate-data"},
    };
    for (size_t i = 0; i < N_ROWS(rows); i++) {
        char *text = nd_xasprintf("current-context: c\n"
                                  "clusters: [{name: k, cluster: %s}]\n"
                                  "users: [{name: u, user: %s}]\n"
                                  "contexts: [{name: c, context: {cluster: k, user: u}}]\n",
                                  rows[i].cluster, rows[i].user);
        put("config", text);
        free(text);
        struct nd_config cfg;
        struct nd_status st = ND_STATUS_INIT;
        int rc = nd_config_load(&cfg, "config", &st);
        if (rows[i].error) {
            assert_int_equal(rc, -1);
            char *want = nd_xasprintf("error loading config file \"config\": %s", rows[i].error);
            assert_string_equal(st.message, want);
            free(want);
            json_t *cause = json_array_get(json_object_get(st.details, "causes"), 0);
            assert_string_equal(json_string_value(json_object_get(cause, "field")), rows[i].field);
            nd_status_release(&st);
            continue;
        }
        assert_int_equal(rc, 0);
        struct nd_target t;
        assert_int_equal(nd_config_resolve(&cfg, NULL, &t, &st), 0);
        assert_string_equal(t.ca_data, PEM_CA);
        assert_string_equal(t.cert_data, "cert");
        assert_string_equal(t.key_data, "key");
        nd_target_release(&t);

        /* a document changed in memory is checked again when resolved */
        json_object_set_new(nd_config_get(&cfg, "users", "u"), "client-key-data",
                            json_string("%%"));
        assert_int_equal(nd_config_resolve(&cfg, NULL, &t, &st), -1);
        assert_string_equal(st.message,
                            "users[0].user.client-key-data: invalid base64 (or not PEM text)");
        assert_null(t.server);
        nd_config_release(&cfg);
        nd_status_release(&st);
    }
}

static void test_load_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *error; /* after `error loading config file "config": ` */
        const char *field; /* the cause's field, or NULL when there is no cause */
    } rows[] = {
        {"apiVersion: v1\nkind: Config\n clusters: []\n",
         "line 3, column 10: mapping values are not allowed in this context", NULL},
        {"clusters:\n- name: a\n  cluster: {server: 'x}\n",
         "line 4, column 1: found unexpected end of stream (while scanning a quoted scalar "
         "that started at 3:21)",
         NULL},
        {"kind: Config\nkind: Config\n",
         "line 2, column 1: duplicate key \"kind\" (first at line 1)", NULL},
        {"a: 1\n---\nb: 2\n", "2 YAML documents, expected one", NULL},
        {"- a\n- b\n", "the document is not a mapping", NULL},
        {"just text\n", "the document is not a mapping", NULL},
        {"apiVersion: v2\n", "apiVersion: must be \"v1\"", "apiVersion"},
        {"kind: Pod\n", "kind: must be \"Config\"", "kind"},
        {"current-context: [a]\n", "current-context: must be a string", "current-context"},
        {"preferences: []\n", "preferences: must be a mapping", "preferences"},
        {"users: {}\n", "users: must be a list", "users"},
        {"clusters:\n- name: a\n  cluster: {}\n- cluster: {}\n", "clusters[1].name: required",
         "clusters[1].name"},
        {"clusters:\n- name: ''\n  cluster: {}\n", "clusters[0].name: required",
         "clusters[0].name"},
        {"clusters:\n- name: [a]\n  cluster: {}\n", "clusters[0].name: must be a string",
         "clusters[0].name"},
        {"clusters:\n- a\n", "clusters[0]: must be a mapping", "clusters[0]"},
        {"contexts:\n- name: a\n", "contexts[0].context: required", "contexts[0].context"},
        {"contexts:\n- name: a\n  context: [x]\n", "contexts[0].context: must be a mapping",
         "contexts[0].context"},
        {"users:\n- {name: a, user: {}}\n- {name: b, user: {}}\n- {name: a, user: {}}\n",
         "users[2].name: duplicate name", "users[2].name"},
        {"clusters:\n- {name: a, cluster: {server: 8443}}\n",
         "clusters[0].cluster.server: must be a string", "clusters[0].cluster.server"},
        {"clusters:\n- {name: a, cluster: {insecure-skip-tls-verify: yes}}\n",
         "clusters[0].cluster.insecure-skip-tls-verify: must be a boolean",
         "clusters[0].cluster.insecure-skip-tls-verify"},
        {"contexts:\n- {name: a, context: {namespace: 1}}\n",
         "contexts[0].context.namespace: must be a string", "contexts[0].context.namespace"},
    };
    for (size_t i = 0; i < N_ROWS(rows); i++) {
        put("config", rows[i].text);
        struct nd_config cfg;
        struct nd_status st = ND_STATUS_INIT;
        assert_int_equal(nd_config_load(&cfg, "config", &st), -1);
        char *want = nd_xasprintf("error loading config file \"config\": %s", rows[i].error);
        assert_string_equal(st.message, want);
        free(want);
        assert_string_equal(st.reason, "Usage");
        assert_int_equal(nd_status_exit_code(&st), 2);
        assert_non_null(st.fix);
        json_t *cause = json_array_get(json_object_get(st.details, "causes"), 0);
        if (rows[i].field)
            assert_string_equal(json_string_value(json_object_get(cause, "field")), rows[i].field);
        else
            assert_null(cause);
        assert_null(cfg.doc);
        assert_null(cfg.path);
        nd_config_release(&cfg); /* safe after a failure */
        nd_status_release(&st);
    }

    /* what loads: empty files, null lists (kubectl writes `users: null`), unknown fields */
    static const struct {
        const char *text, *yaml;
    } ok[] = {
        {"", EMPTY_YAML},
        {"# only a comment\n", EMPTY_YAML},
        {"~\n", EMPTY_YAML},
        {"apiVersion: v1\nclusters: null\ncontexts: null\ncurrent-context: \"\"\n"
         "kind: Config\npreferences: {}\nusers: null\n",
         "apiVersion: v1\nclusters: []\ncontexts: []\ncurrent-context: \"\"\nkind: Config\n"
         "preferences: {}\nusers: []\n"},
        {"{\"kind\": \"Config\", \"current-context\": null, \"extensions\": [{\"name\": \"x\"}],"
         " \"clusters\": [{\"name\": \"a\", \"cluster\": {\"server\": null, \"tls\": 1}}]}",
         "apiVersion: v1\nclusters:\n- cluster:\n    server: null\n    tls: 1\n  name: a\n"
         "contexts: []\nextensions:\n- name: x\nkind: Config\npreferences: {}\nusers: []\n"},
    };
    for (size_t i = 0; i < N_ROWS(ok); i++) {
        put("config", ok[i].text);
        struct nd_config cfg;
        load_ok(&cfg, "config");
        assert_true(cfg.exists);
        assert_null(nd_config_current_context(&cfg));
        char *text = dump(cfg.doc);
        assert_string_equal(text, ok[i].yaml);
        free(text);
        nd_config_release(&cfg);
    }

    /* a path that cannot be read */
    mkdir("adir", 0700);
    struct nd_config cfg;
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(nd_config_load(&cfg, "adir", &st), -1);
    assert_string_equal(st.message, "error loading config file \"adir\": Is a directory");
    nd_status_release(&st);
}

static void test_resolve_errors(void **state)
{
    struct fx *fx = *state;
    static const char file[] = "current-context: dev\n"
                               "clusters:\n"
                               "- {name: local, cluster: {server: 'http://127.0.0.1:1'}}\n"
                               "- {name: bare, cluster: {certificate-authority: ca.pem}}\n"
                               "users:\n"
                               "- {name: alice, user: {token: t}}\n"
                               "contexts:\n"
                               "- {name: dev, context: {cluster: local, user: alice}}\n"
                               "- {name: lost-cluster, context: {cluster: gone, user: alice}}\n"
                               "- {name: lost-user, context: {cluster: local, user: ghost}}\n"
                               "- {name: no-server, context: {cluster: bare}}\n"
                               "- {name: nothing, context: {}}\n";
    static const struct {
        const char *text;       /* the file; NULL: the one above */
        const char *ov_context; /* --context */
        const char *env_server; /* NODUS_SERVER */
        const char *error;
    } rows[] = {
        {NULL, "nope", NULL, "context \"nope\" does not exist"},
        {NULL, "nope", "http://env:1", "context \"nope\" does not exist"},
        {"current-context: stale\n", NULL, NULL, "context \"stale\" does not exist"},
        {NULL, "lost-cluster", NULL, "context \"lost-cluster\": cluster \"gone\" does not exist"},
        {NULL, "lost-user", NULL, "context \"lost-user\": user \"ghost\" does not exist"},
        {NULL, "no-server", NULL,
         "cluster \"bare\" has no server: run nodus config set-cluster bare --server URL, or "
         "set NODUS_SERVER"},
        {NULL, "nothing", NULL,
         "no server configured: run nodus emulator start, or nodus config set-cluster NAME "
         "--server URL, or set NODUS_SERVER"},
        {"", NULL, NULL,
         "no server configured: run nodus emulator start, or nodus config set-cluster NAME "
         "--server URL, or set NODUS_SERVER"},
    };
    for (size_t i = 0; i < N_ROWS(rows); i++) {
        put("config", rows[i].text ? rows[i].text : file);
        if (rows[i].env_server)
            setenv("NODUS_SERVER", rows[i].env_server, 1);
        else
            unsetenv("NODUS_SERVER");
        struct nd_target t;
        struct nd_status st = ND_STATUS_INIT;
        struct nd_overrides ov = {.context = rows[i].ov_context};
        assert_int_equal(resolve_file("config", &ov, &t, &st), -1);
        assert_string_equal(st.message, rows[i].error);
        assert_string_equal(st.reason, "Usage");
        assert_int_equal(nd_status_exit_code(&st), 2);
        assert_null(t.context);
        assert_null(t.server);
        assert_null(t.namespace);
        nd_status_release(&st);
    }
    unsetenv("NODUS_SERVER");

    /* the same contexts resolve once the server comes from elsewhere */
    struct nd_target t;
    struct nd_status st = ND_STATUS_INIT;
    put("config", file);
    struct nd_overrides ov = {.context = "no-server", .server = "http://flag:1"};
    assert_int_equal(resolve_file("config", &ov, &t, &st), 0);
    assert_string_equal(t.server, "http://flag:1");
    assert_string_equal(t.ca_file, at(fx, "@/ca.pem"));
    assert_null(t.user);
    nd_target_release(&t);
}

static mode_t mode_of(const char *path)
{
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    return sb.st_mode & 07777;
}

/* Names in a directory other than "." and "..", sorted, joined by ','. NEW. */
static char *list_dir(const char *path)
{
    json_t *names = json_array();
    DIR *d = opendir(path);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            json_array_append_new(names, json_string(e->d_name));
    closedir(d);
    struct nd_buf b = ND_BUF_INIT;
    /* few names: a selection sort is enough */
    while (json_array_size(names)) {
        size_t min = 0;
        for (size_t i = 1; i < json_array_size(names); i++)
            if (strcmp(json_string_value(json_array_get(names, i)),
                       json_string_value(json_array_get(names, min))) < 0)
                min = i;
        nd_buf_addf(&b, "%s%s", b.len ? "," : "", json_string_value(json_array_get(names, min)));
        json_array_remove(names, min);
    }
    json_decref(names);
    return nd_buf_detach(&b);
}

/* The names of a list, ',' joined. NEW. */
static char *names_of(const struct nd_config *cfg, const char *list)
{
    struct nd_buf b = ND_BUF_INIT;
    size_t k;
    json_t *e;
    json_array_foreach(json_object_get(cfg->doc, list), k, e)
        nd_buf_addf(&b, "%s%s", k ? "," : "", json_string_value(json_object_get(e, "name")));
    return nd_buf_detach(&b);
}

static void test_edit_save_round_trip(void **state)
{
    struct fx *fx = *state;
    struct nd_config cfg;
    struct nd_status st = ND_STATUS_INIT;

    /* what `nodus emulator start` does on a machine with no configuration */
    load_ok(&cfg, NULL);
    assert_false(cfg.exists);
    assert_string_equal(cfg.path, at(fx, "@/home/.nodus/config"));
    assert_int_equal(
        nd_config_set_cluster(&cfg, "emulator", "http://127.0.0.1:8443", NULL, -1, &st), 0);
    assert_int_equal(nd_config_set_credentials(&cfg, "emulator", "tok", NULL, NULL, NULL, &st), 0);
    assert_int_equal(
        nd_config_set_context(&cfg, "emulator", "emulator", "emulator", "default", &st), 0);
    assert_int_equal(nd_config_use_context(&cfg, "emulator", &st), 0);
    assert_int_equal(nd_config_save(&cfg, &st), 0);
    nd_config_release(&cfg);

    static const char want[] = "apiVersion: v1\n"
                               "clusters:\n"
                               "- cluster:\n"
                               "    server: http://127.0.0.1:8443\n"
                               "  name: emulator\n"
                               "contexts:\n"
                               "- context:\n"
                               "    cluster: emulator\n"
                               "    namespace: default\n"
                               "    user: emulator\n"
                               "  name: emulator\n"
                               "current-context: emulator\n"
                               "kind: Config\n"
                               "preferences: {}\n"
                               "users:\n"
                               "- name: emulator\n"
                               "  user:\n"
                               "    token: tok\n";
    char *text = slurp("home/.nodus/config");
    assert_string_equal(text, want);
    free(text);
    assert_int_equal(mode_of("home/.nodus"), 0700);
    assert_int_equal(mode_of("home/.nodus/config"), 0600);
    char *names = list_dir("home/.nodus");
    assert_string_equal(names, "config"); /* no temporary file left behind */
    free(names);

    /* reload: the same document, and it resolves */
    load_ok(&cfg, NULL);
    assert_true(cfg.exists);
    struct nd_target t;
    assert_int_equal(nd_config_resolve(&cfg, NULL, &t, &st), 0);
    assert_string_equal(t.server, "http://127.0.0.1:8443");
    assert_string_equal(t.token, "tok");
    assert_string_equal(t.namespace, "default");
    nd_target_release(&t);
    /* saving an unchanged document writes the same bytes; an existing file gets 0600 */
    chmod("home/.nodus/config", 0644);
    assert_int_equal(nd_config_save(&cfg, &st), 0);
    text = slurp("home/.nodus/config");
    assert_string_equal(text, want);
    free(text);
    assert_int_equal(mode_of("home/.nodus/config"), 0600);
    nd_config_release(&cfg);

    /* deeper missing directories are all made 0700 */
    load_ok(&cfg, "a/b/config");
    assert_int_equal(nd_config_save(&cfg, &st), 0);
    assert_int_equal(mode_of("a"), 0700);
    assert_int_equal(mode_of("a/b"), 0700);
    text = slurp("a/b/config");
    assert_string_equal(text, EMPTY_YAML);
    free(text);
    nd_config_release(&cfg);
    nd_status_release(&st);
}

static void test_edits(void **state)
{
    struct fx *fx = *state;
    static const char start[] =
        "apiVersion: v1\n"
        "kind: Config\n"
        "current-context: a\n"
        "clusters:\n"
        "- {name: a, cluster: {server: 'http://a', certificate-authority-data: " PEM_CA_B64 "}}\n"
        "- {name: b, cluster: {server: 'http://b', tls-server-name: b.local}}\n"
        "- {name: c, cluster: {server: 'http://c', insecure-skip-tls-verify: true}}\n"
        "users:\n"
        "- {name: u, user: {tokenFile: /t, client-certificate-data: Y2VydA==, "
        "client-key-data: a2V5}}\n"
        "contexts:\n"
        "- {name: a, context: {cluster: a, user: u, namespace: x}}\n"
        "- {name: b, context: {cluster: b}}\n";
    /* each edit on a fresh copy of start; the entry's body after it (compact JSON) */
    enum op { CLUSTER, USER, CONTEXT };
    static const struct {
        enum op op;
        const char *name, *a, *b, *c, *d; /* the edit's string arguments in order */
        int insecure;
        const char *body;  /* the entry's body afterwards */
        const char *order; /* the list's names afterwards */
    } rows[] = {
        /* update keeps other fields */
        {CLUSTER, "b", "http://b2", NULL, NULL, NULL, -1,
         "{\"server\":\"http://b2\",\"tls-server-name\":\"b.local\"}", "a,b,c"},
        /* "" removes a field */
        {CLUSTER, "b", "", NULL, NULL, NULL, -1, "{\"tls-server-name\":\"b.local\"}", "a,b,c"},
        /* insecure mode removes the CA; a CA file removes the data and insecure mode */
        {CLUSTER, "a", NULL, NULL, NULL, NULL, 1,
         "{\"server\":\"http://a\",\"insecure-skip-tls-verify\":true}", "a,b,c"},
        {CLUSTER, "c", NULL, "pki/ca.pem", NULL, NULL, -1,
         "{\"server\":\"http://c\",\"certificate-authority\":\"@/pki/ca.pem\"}", "a,b,c"},
        {CLUSTER, "c", NULL, NULL, NULL, NULL, 0, "{\"server\":\"http://c\"}", "a,b,c"},
        {CLUSTER, "new", "http://n", "/abs/ca.pem", NULL, NULL, -1,
         "{\"server\":\"http://n\",\"certificate-authority\":\"/abs/ca.pem\"}", "a,b,c,new"},
        /* credentials: a token replaces the token file, a file replaces its -data */
        {USER, "u", "tok", NULL, NULL, NULL, -1,
         "{\"client-certificate-data\":\"Y2VydA==\",\"client-key-data\":\"a2V5\","
         "\"token\":\"tok\"}",
         "u"},
        {USER, "u", NULL, "./tok.txt", "me.crt", "/k/me.key", -1,
         "{\"tokenFile\":\"@/tok.txt\",\"client-certificate\":\"@/me.crt\","
         "\"client-key\":\"/k/me.key\"}",
         "u"},
        {USER, "v", "t", "tf", NULL, NULL, -1, "{\"tokenFile\":\"@/tf\",\"token\":\"t\"}", "u,v"},
        /* contexts */
        {CONTEXT, "a", NULL, NULL, "", NULL, -1, "{\"cluster\":\"a\",\"user\":\"u\"}", "a,b"},
        {CONTEXT, "b", NULL, "u", "ns", NULL, -1,
         "{\"cluster\":\"b\",\"user\":\"u\",\"namespace\":\"ns\"}", "a,b"},
        {CONTEXT, "z", NULL, NULL, NULL, NULL, -1, "{}", "a,b,z"},
    };
    for (size_t i = 0; i < N_ROWS(rows); i++) {
        put("config", start);
        struct nd_config cfg;
        struct nd_status st = ND_STATUS_INIT;
        load_ok(&cfg, "config");
        int rc = -1;
        const char *list = NULL;
        switch (rows[i].op) {
        case CLUSTER:
            rc = nd_config_set_cluster(&cfg, rows[i].name, rows[i].a, rows[i].b, rows[i].insecure,
                                       &st);
            list = "clusters";
            break;
        case USER:
            rc = nd_config_set_credentials(&cfg, rows[i].name, rows[i].a, rows[i].b, rows[i].c,
                                           rows[i].d, &st);
            list = "users";
            break;
        case CONTEXT:
            rc = nd_config_set_context(&cfg, rows[i].name, rows[i].a, rows[i].b, rows[i].c, &st);
            list = "contexts";
            break;
        }
        assert_int_equal(rc, 0);
        json_t *want = json_loads(at(fx, rows[i].body), 0, NULL);
        assert_non_null(want);
        json_t *got = nd_config_get(&cfg, list, rows[i].name);
        if (!json_equal(got, want)) {
            char *g = json_dumps(got, JSON_COMPACT);
            fail_msg("row %zu: got %s", i, g);
        }
        json_decref(want);

        /* entry order: existing entries stay in place, a new one goes last */
        char *order = names_of(&cfg, list);
        assert_string_equal(order, rows[i].order);
        free(order);
        /* and the result saves and reloads to the same document */
        assert_int_equal(nd_config_save(&cfg, &st), 0);
        struct nd_config again;
        load_ok(&again, "config");
        assert_true(json_equal(again.doc, cfg.doc));
        nd_config_release(&again);
        nd_config_release(&cfg);
        nd_status_release(&st);
    }

    /* names are required */
    struct nd_config cfg;
    struct nd_status st = ND_STATUS_INIT;
    put("config", start);
    load_ok(&cfg, "config");
    static const struct {
        int which;
        const char *name, *error;
    } bad[] = {
        {0, NULL, "a cluster name is required"}, {0, "", "a cluster name is required"},
        {1, "", "a user name is required"},      {2, NULL, "a context name is required"},
        {3, "", "a context name is required"},   {4, NULL, "a context name is required"},
    };
    for (size_t i = 0; i < N_ROWS(bad); i++) {
        int rc = 0;
        switch (bad[i].which) {
        case 0:
            rc = nd_config_set_cluster(&cfg, bad[i].name, "x", NULL, -1, &st);
            break;
        case 1:
            rc = nd_config_set_credentials(&cfg, bad[i].name, "t", NULL, NULL, NULL, &st);
            break;
        case 2:
            rc = nd_config_set_context(&cfg, bad[i].name, "a", NULL, NULL, &st);
            break;
        case 3:
            rc = nd_config_use_context(&cfg, bad[i].name, &st);
            break;
        default:
            rc = nd_config_delete_context(&cfg, bad[i].name, &st);
            break;
        }
        assert_int_equal(rc, -1);
        assert_string_equal(st.message, bad[i].error);
        assert_string_equal(st.reason, "Usage");
        nd_status_release(&st);
    }
    char *text = dump(cfg.doc);
    nd_config_release(&cfg);
    load_ok(&cfg, "config");
    char *orig = dump(cfg.doc);
    assert_string_equal(text, orig); /* nothing changed */
    free(text);
    free(orig);
    nd_config_release(&cfg);
}

static void test_delete_context(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int rc;
        const char *current; /* afterwards; NULL: none */
        const char *names;   /* left, ',' joined */
        const char *error;
    } rows[] = {
        {"dev", 1, NULL, "prod", NULL},
        {"prod", 0, "dev", "dev", NULL},
        {"nope", -1, "dev", "dev,prod", "context \"nope\" does not exist"},
    };
    put("config", TWO_CONTEXTS);
    for (size_t i = 0; i < N_ROWS(rows); i++) {
        struct nd_config cfg;
        struct nd_status st = ND_STATUS_INIT;
        load_ok(&cfg, "config");
        assert_int_equal(nd_config_delete_context(&cfg, rows[i].name, &st), rows[i].rc);
        if (rows[i].error)
            assert_string_equal(st.message, rows[i].error);
        if (rows[i].current)
            assert_string_equal(nd_config_current_context(&cfg), rows[i].current);
        else
            assert_null(nd_config_current_context(&cfg));
        char *names = names_of(&cfg, "contexts");
        assert_string_equal(names, rows[i].names);
        free(names);
        if (rows[i].rc == 1) {
            /* no current context, no server from anywhere: the plain message */
            struct nd_target t;
            assert_int_equal(nd_config_resolve(&cfg, NULL, &t, &st), -1);
            assert_string_equal(st.message,
                                "no server configured: run nodus emulator start, or nodus "
                                "config set-cluster NAME --server URL, or set NODUS_SERVER");
            /* and the key is gone from the saved file */
            assert_int_equal(nd_config_save(&cfg, &st), 0);
            char *text = slurp("config");
            assert_null(strstr(text, "current-context"));
            assert_non_null(strstr(text, "- context:\n    cluster: prod\n"));
            free(text);
            put("config", TWO_CONTEXTS);
        }
        nd_config_release(&cfg);
        nd_status_release(&st);
    }
}

/* The emulator a cluster stands for: recorded as the cluster's extension
 * emulator.nodus.dev (issue 20), read through a context, kept beside other extensions
 * and through a save. */
static void test_emulator_record(void **state)
{
    (void)state;
    put("config", TWO_CONTEXTS);
    struct nd_config cfg;
    struct nd_status st = ND_STATUS_INIT;
    load_ok(&cfg, "config");
    assert_null(nd_config_context_emulator(&cfg, "dev"));
    assert_null(nd_config_cluster_emulator(&cfg, "local"));
    assert_null(nd_config_context_emulator(&cfg, "nope"));
    assert_null(nd_config_context_emulator(&cfg, NULL));
    /* another tool's extension stays */
    json_t *local = nd_config_get(&cfg, "clusters", "local");
    json_object_set_new(local, "extensions",
                        json_pack("[{s:s, s:{s:s}}]", "name", "cluster_info", "extension",
                                  "provider", "minikube.sigs.k8s.io"));
    assert_int_equal(nd_config_set_cluster_emulator(&cfg, "local", "/srv/emu", &st), 0);
    assert_string_equal(nd_config_context_emulator(&cfg, "dev"), "/srv/emu");
    assert_null(nd_config_context_emulator(&cfg, "prod"));
    /* set again: replaced, not added */
    assert_int_equal(nd_config_set_cluster_emulator(&cfg, "local", "/srv/emu2", &st), 0);
    assert_int_equal(json_array_size(json_object_get(local, "extensions")), 2);
    assert_int_equal(nd_config_set_cluster_emulator(&cfg, "nope", "/x", &st), -1);
    assert_string_equal(st.message, "cluster \"nope\" does not exist");
    assert_int_equal(nd_config_save(&cfg, &st), 0);
    nd_config_release(&cfg);
    load_ok(&cfg, "config");
    assert_string_equal(nd_config_cluster_emulator(&cfg, "local"), "/srv/emu2");
    char *text = slurp("config");
    assert_non_null(strstr(text, "    - extension:\n        state: /srv/emu2\n"
                                 "      name: emulator.nodus.dev\n"));
    assert_non_null(strstr(text, "provider: minikube.sigs.k8s.io"));
    free(text);
    nd_config_release(&cfg);
    nd_status_release(&st);
}

static void test_save_errors_and_links(void **state)
{
    (void)state;
    struct nd_config cfg;
    struct nd_status st = ND_STATUS_INIT;

    /* a parent that is a file: refused when read, and when written */
    put("plain", "x");
    assert_int_equal(nd_config_load(&cfg, "plain/config", &st), -1);
    assert_string_equal(st.message, "error loading config file \"plain/config\": Not a directory");
    nd_status_release(&st);
    static const struct {
        const char *path, *file, *error;
    } rows[] = {
        {"sub/config", "sub", "cannot write config file \"sub/config\": Not a directory"},
        {"deep/x/config", "deep",
         "cannot create the directory of config file \"deep/x/config\": Not a directory"},
    };
    for (size_t i = 0; i < N_ROWS(rows); i++) {
        load_ok(&cfg, rows[i].path); /* missing: fine */
        put(rows[i].file, "x");      /* then a file appears where a directory should be */
        assert_int_equal(nd_config_save(&cfg, &st), -1);
        assert_string_equal(st.message, rows[i].error);
        assert_string_equal(st.reason, "Usage");
        nd_status_release(&st);
        nd_config_release(&cfg);
    }

    /* a read-only directory (skipped for root, who may write anywhere) */
    if (geteuid() != 0) {
        mkdir("ro", 0500);
        load_ok(&cfg, "ro/config");
        assert_int_equal(nd_config_save(&cfg, &st), -1);
        assert_string_equal(st.message,
                            "cannot write config file \"ro/config\": Permission denied");
        nd_status_release(&st);
        nd_config_release(&cfg);
        chmod("ro", 0700);
    } else {
        print_message("skip: read-only directory check (root writes anywhere)\n");
    }

    /* saving through a symbolic link writes its target and keeps the link */
    put("real/config", "current-context: dev\n");
    mkdir("links", 0700);
    assert_int_equal(symlink("../real/config", "links/config"), 0);
    load_ok(&cfg, "links/config");
    assert_int_equal(nd_config_set_context(&cfg, "dev", NULL, NULL, "ns", &st), 0);
    assert_int_equal(nd_config_save(&cfg, &st), 0);
    nd_config_release(&cfg);
    struct stat sb;
    assert_int_equal(lstat("links/config", &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    char *text = slurp("real/config");
    assert_string_equal(text, "apiVersion: v1\nclusters: []\ncontexts:\n- context:\n"
                              "    namespace: ns\n  name: dev\ncurrent-context: dev\n"
                              "kind: Config\npreferences: {}\nusers: []\n");
    free(text);
    char *names = list_dir("real");
    assert_string_equal(names, "config");
    free(names);
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_file_choice, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_contexts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overrides, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tls_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_data_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(test_load_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resolve_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_edit_save_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_edits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delete_context, setup, teardown),
        cmocka_unit_test_setup_teardown(test_save_errors_and_links, setup, teardown),
        cmocka_unit_test_setup_teardown(test_emulator_record, setup, teardown),
    };
    return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
