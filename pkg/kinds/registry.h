/* registry.h: the kind registry, one table holding everything nodus knows about each kind.
 *
 * Every kind of kinds.md (group nodus.dev, version v1) and the two core v1 kinds the API
 * serves (Namespace, which nodus calls a project, and Event) has one row in nd_kinds[].
 * The emulator derives its discovery documents, OpenAPI, validation, defaults, printer
 * columns and field selectors from it; the CLI its completion, name resolution and
 * client-side table columns. Schemas (descriptions, types, bounds, defaults) live in
 * pkg/kinds/schemas/<kind>.yaml and are reached through schema.h.
 *
 * Everything here is static data: pointers returned are BORROWED from the table and live
 * for the whole program. Lists are NULL-terminated; column and mutable-field tables end
 * with a row whose first member is NULL.
 */
#ifndef ND_API_REGISTRY_H
#define ND_API_REGISTRY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kinds/phase.h"
#include "util/buf.h"

struct nd_field_errors;

/* How an object of the kind lives (kinds.md "Phases"). */
enum nd_family {
    ND_FAMILY_RUN,       /* Queued -> Provisioning -> Running -> Succeeded|Failed|Cancelled */
    ND_FAMILY_LONG,      /* Pending -> Starting -> Running -> Stopped */
    ND_FAMILY_CATALOGUE, /* published by Nodus, read-only, no phases (Image) */
    ND_FAMILY_NONE,      /* core kinds (Namespace, Event) */
};

/* Facts about a kind the emulator and the CLI act on, or-ed into struct nd_kind.flags
 * and asked with nd_kind_is(): code outside a kind's own controller asks these (and the
 * family, and the subresources) rather than comparing kind names. */
enum nd_kind_flag {
    /* Accrues a cost of its own at an hourly rate: Job, Sandbox and Function at the price
     * book's compute rates, Volume for storage (per GiB-month of spec.size). Its objects
     * carry the nodus.dev/billing finalizer from create until the last charge settles. */
    ND_KIND_BILLED = 1u << 0,
    /* Uses compute: runs containers on GPUs and CPUs, itself (Job, Sandbox, Function) or
     * through the Jobs it owns (Pipeline). A create is answered with a cost estimate. A
     * billed kind without compute is storage (Volume). */
    ND_KIND_COMPUTE = 1u << 1,
    /* Can own objects: its controller creates objects whose ownerReferences name it
     * (Pipeline its step Jobs, Pool its PoolActions). An owner that uses compute but is
     * not billed costs what the objects it owns cost (Pipeline). */
    ND_KIND_OWNER = 1u << 2,
    /* Its objects may be created by an owner (Job by a Pipeline, PoolAction by a Pool):
     * describe lists the objects of these kinds that the described object owns. */
    ND_KIND_OWNED = 1u << 3,
    /* Its objects are projects (Namespace): every namespaced object lives in one, a new
     * one is Active at once, and deleting one deletes what it holds (default and nodus
     * are never deleted). */
    ND_KIND_PROJECT = 1u << 4,
    /* Its objects are many, small and written once (Event): the store keeps them as lines
     * of one append-only file per project and hour, not a file each
     * (emulator/store/events_file.h). */
    ND_KIND_HOUR_FILES = 1u << 5,
};

/* How a printer column turns the value at its JSONPath into a cell. The value is read
 * from the object; each kind says what an absent value prints as. */
enum nd_render {
    ND_RENDER_RAW,             /* strings verbatim, numbers, true/false; "<none>" if absent */
    ND_RENDER_AGE,             /* RFC 3339 time -> "5m", "2d3h" (kubectl); "<unknown>" */
    ND_RENDER_MONEY,           /* "12.4" -> "$12.40" (rounded to cents); "-" if absent */
    ND_RENDER_RATE,            /* "2.49" -> "$2.49/h"; "-" if absent */
    ND_RENDER_GPU,             /* {model: H100, count: 1} -> "1xH100"; "-" without a GPU */
    ND_RENDER_GPU_MAP,         /* {H100: 8, L4: 2} -> "8xH100,2xL4"; "-" if empty */
    ND_RENDER_GPUS_FREE_TOTAL, /* {H100: {free, total}, ...} -> "free/total" summed; "0/0" */
    ND_RENDER_PERCENT,         /* 75 -> "75%"; "-" if absent */
    ND_RENDER_BYTES,           /* 1610612736 -> "1.5Gi" (binary units); "-" if absent */
    ND_RENDER_COUNT,           /* an integer; "0" if absent */
    ND_RENDER_READY,           /* {readyReplicas, replicas} -> "1/4"; "0/0" if absent */
    ND_RENDER_STEPS,           /* Pipeline: steps Succeeded / spec.steps -> "1/3" */
    ND_RENDER_LIST,            /* every value the path selects, joined by ","; "<none>" */
    ND_RENDER_OBJECT_REF,      /* {kind, name} -> "job/train-a" (Event's OBJECT) */
};

/* One printer column: what the Table answer's columnDefinitions and the CLI's tables show. */
struct nd_column {
    const char *name;     /* header, e.g. "COST"; NULL ends a table */
    const char *type;     /* OpenAPI type of the cell: string, integer, number, date */
    const char *format;   /* "name" on the NAME column, else "" */
    const char *jsonpath; /* where the value lives, e.g. ".status.costUSD" */
    int priority;         /* 0 always shown, 1 only with -o wide */
    enum nd_render render;
    const char *description;
};

/* How a spec field may change after create (kinds.md "mutable spec fields"). */
enum nd_mutability {
    ND_MUT_ANY,        /* any change */
    ND_MUT_RAISE_ONLY, /* may only grow: money, duration or quantity, by the schema's format */
    ND_MUT_WHILE,      /* may change only while its old value is `while_value` */
};

struct nd_mutable {
    const char *path; /* "spec.state"; "spec" means all of spec; NULL ends a table */
    enum nd_mutability rule;
    const char *while_value; /* for ND_MUT_WHILE */
};

struct nd_smp_field;

struct nd_kind {
    const char *group;       /* "nodus.dev"; "" for the core group */
    const char *version;     /* "v1" */
    const char *api_version; /* "nodus.dev/v1" or "v1" */
    const char *kind;        /* "Job" */
    const char *list_kind;   /* "JobList" */
    const char *plural;      /* "jobs" */
    const char *singular;    /* "job" */
    /* What nodus calls the kind where Kubernetes has another name ("projects" and
     * "project" for Namespace): looked up, suggested and completed like plural and
     * singular. NULL when the kind has none. */
    const char *alias_plural;
    const char *alias_singular;
    const char *const *short_names;
    const char *const *categories;   /* "nodus" on every nodus.dev kind, "all" on some */
    const char *const *subresources; /* "status", "log", "exec", "files", "invoke" */
    const char *const *state_values; /* spec.state values, [0] the default; NULL: none */
    /* The one-off actions `nodus request ACTION` asks for through the annotation
     * nodus.dev/<action>-requested-at ("restart"); NULL: the kind takes none. */
    const char *const *requests;
    const char *uid_prefix;          /* "job" in job_01j9... */
    enum nd_family family;           /* how it lives: run to completion, long-running ... */
    unsigned flags;                  /* enum nd_kind_flag, or-ed */
    bool namespaced;
    bool read_only; /* served with get, list and watch only */
    const struct nd_mutable *mutable_fields;
    const struct nd_column *columns;
    /* Field labels accepted by ?fieldSelector=, each read at its own path, or "LABEL=PATH"
     * for a label read elsewhere (selector.h). */
    const char *const *field_selectors;
    const char *schema_file;            /* "job.yaml" under pkg/kinds/schemas/ */
    const char *description;            /* one line, for completion and api-resources */
    /* Checks what the schema cannot express (Pipeline DAG, Budget thresholds ...),
     * adding one problem per field to errs. NULL when there is nothing to add. */
    void (*validate_extra)(const struct nd_kind *k, const json_t *obj,
                           struct nd_field_errors *errs);
    /* The patch strategies of a built-in kind's own fields (pkg/patch/strategic.h;
     * ObjectMeta's are common to all): the kind takes a strategic merge patch, as
     * kube-apiserver's built-in kinds do. NULL: it does not (415, as for a custom
     * resource: the nodus.dev kinds). */
    const struct nd_smp_field *strategic;
    /* A view: a kind served in another group whose objects are those stored under the same
     * plural by the kind of nd_kinds[] (events.k8s.io/v1 Event over core Events). Reads,
     * selects and watches go to the stored objects; every object leaves through this
     * conversion (NEW json). NULL for every kind of nd_kinds[]. */
    json_t *(*from_stored)(const json_t *stored);
};

/* The kinds: what is stored, written, completed, named by the CLI and turned into CRDs. */
extern const struct nd_kind nd_kinds[];
size_t nd_kind_count(void);
/* Every kind the API serves: nd_kinds[] (indexes below nd_kind_count()), then the views
 * (from_stored set). What discovery and OpenAPI describe and what a URL's group and plural
 * find (nd_kind_by_plural, nd_kind_by_kind with a group). */
size_t nd_kind_served_count(void);
const struct nd_kind *nd_kind_served(size_t i);

/* Finds a kind by any name a user may type, case-insensitively as kubectl does: plural,
 * singular, short name, Kind, or any of them qualified as `<name>.<group>` or
 * `<name>.<version>.<group>` ("jobs.nodus.dev", "job.v1.nodus.dev"; these find the views
 * too: "events.events.k8s.io"). `project` and `projects` name namespaces. NULL when
 * nothing matches. */
const struct nd_kind *nd_kind_lookup(const char *name);
/* Exact group ("" for core; NULL matches any group, and nd_kinds[] only) and Kind ("Job"). */
const struct nd_kind *nd_kind_by_kind(const char *group, const char *kind);
/* Exact group (NULL matches any, and nd_kinds[] only) and plural ("jobs"), as in a URL
 * path: with a group, views are found too. */
const struct nd_kind *nd_kind_by_plural(const char *group, const char *plural);
/* apiVersion ("nodus.dev/v1", "v1") and Kind, as in an object's header. */
const struct nd_kind *nd_kind_by_api_version(const char *api_version, const char *kind);

/* True when k has every flag of `flags` (enum nd_kind_flag, or-ed). */
bool nd_kind_is(const struct nd_kind *k, unsigned flags);
/* True when objects of k cost money, their own (ND_KIND_BILLED) or through what they run
 * (ND_KIND_COMPUTE): what a project's Budgets count, and admit launches of. */
bool nd_kind_costs(const struct nd_kind *k);
/* True when `name` is exactly k's plural, singular, a short name or an alias (as a
 * command that takes a few kinds by name compares: case-sensitive, no group). */
bool nd_kind_named(const struct nd_kind *k, const char *name);

/* Room for a kind's display or resource name, with its group. */
#define ND_KIND_NAME_MAX 96
/* How kubectl names a kind in `-o name` and in messages: `singular.group`
 * ("job.nodus.dev"), the singular alone in the core group ("namespace"). Written into
 * buf (cap bytes, ND_KIND_NAME_MAX is enough); returns buf. */
const char *nd_kind_display_name(const struct nd_kind *k, char *buf, size_t cap);
/* How Kubernetes names a resource in NotFound and CRD names: `plural.group`
 * ("jobs.nodus.dev"), the plural alone in the core group ("namespaces"). As above. */
const char *nd_kind_resource_name(const struct nd_kind *k, char *buf, size_t cap);

bool nd_kind_in_category(const struct nd_kind *k, const char *category);
bool nd_kind_has_subresource(const struct nd_kind *k, const char *subresource);
/* True when k acts on the request annotation nodus.dev/<action>-requested-at. */
bool nd_kind_takes_request(const struct nd_kind *k, const char *action);
/* True when `field` (e.g. "status.phase") may be used in a field selector of the kind. */
bool nd_kind_field_selectable(const struct nd_kind *k, const char *field);
/* The verbs of discovery: get, list, watch for read-only kinds; every verb otherwise. */
const char *const *nd_kind_verbs(const struct nd_kind *k);
/* The verbs served on k's subresource sub (NULL or "": the objects themselves, as
 * nd_kind_verbs): status get patch update, log get, exec create get, files create get
 * update, invoke create; get only on a read-only kind's; none on a subresource k lacks.
 * Discovery lists them, the router refuses any other (MethodNotAllowed) and the access
 * and rules reviews answer from them: one table, so they cannot disagree. */
const char *const *nd_kind_sub_verbs(const struct nd_kind *k, const char *sub);
/* True when verb is one of nd_kind_sub_verbs(k, sub). */
bool nd_kind_serves(const struct nd_kind *k, const char *sub, const char *verb);
/* The default of spec.state, or NULL when the kind has no state. */
const char *nd_kind_state_default(const struct nd_kind *k);
/* True when `value` is one of the kind's spec.state values. */
bool nd_kind_state_valid(const struct nd_kind *k, const char *value);
/* The rule for changing `path` ("spec.maxCostUSD"), or NULL when the field is immutable.
 * A rule on a parent ("spec", "spec.scaling") covers everything below it. */
const struct nd_mutable *nd_kind_mutable(const struct nd_kind *k, const char *path);
/* Number of printer columns; with wide false, those of priority 0 only. */
size_t nd_kind_column_count(const struct nd_kind *k, bool wide);

/* Appends the URL path of a collection (name NULL) or an object of k, with an optional
 * subresource: /apis/nodus.dev/v1/namespaces/NS/jobs[/NAME[/SUB]], /api/v1/namespaces/NAME.
 * ns NULL or "" gives the path across every project (lists and watches). Names and
 * projects are percent-encoded. Returns 0, or -1 when out's cap is reached. */
int nd_kind_path(const struct nd_kind *k, const char *ns, const char *name, const char *sub,
                 struct nd_buf *out);

/* The phases of a family in lifecycle order, ending with the deleting phase
 * (Cancelling, Terminating); an empty list for families without phases. */
const char *const *nd_phases(enum nd_family f);
/* The phase a new object starts in ("Queued", "Pending"), or NULL. */
const char *nd_phase_initial(enum nd_family f);
/* The phase shown while an object is being deleted ("Cancelling", "Terminating"), or NULL. */
const char *nd_phase_deleting(enum nd_family f);
/* True when `phase` is a phase of the family. */
bool nd_phase_valid(enum nd_family f, const char *phase);
/* True for the end phases of run-to-completion objects (Succeeded, Failed, Cancelled):
 * nothing changes after them. Long-running phases are never terminal (Stopped restarts). */
bool nd_phase_terminal(enum nd_family f, const char *phase);

/* Appends the cell of column c for obj to out, rendered as enum nd_render says; now_unix
 * is the clock ages are measured against. Returns 0, or -1 when out's cap is reached. */
int nd_column_render(const struct nd_column *c, const json_t *obj, int64_t now_unix,
                     struct nd_buf *out);
/* The cells of ND_RENDER_AGE are the only ones that depend on the clock: what they count
 * from is in the object (a cache of cells keeps it, and renders the age per answer).
 * nd_column_age_from: true for such a column, with *from the time (unix seconds) it
 * counts from, or ND_COLUMN_NO_TIME when the object has none that parses; false for any
 * other column. nd_column_render_age appends the cell ("5m", "<unknown>") as
 * nd_column_render does. */
#define ND_COLUMN_NO_TIME INT64_MIN
bool nd_column_age_from(const struct nd_column *c, const json_t *obj, int64_t *from);
void nd_column_render_age(int64_t from, int64_t now_unix, struct nd_buf *out);
/* The Table columnDefinition of c ({name, type, format, description, priority}). NEW. */
json_t *nd_column_definition(const struct nd_column *c);

#endif
