/* kinds.c: the table of kinds (kinds.md), the one place each kind is described. */
#include "kinds/event_v1.h"
#include "kinds/registry.h"
#include "kinds/validate_extra.h"
#include "patch/strategic.h"

#define LIST(...) ((const char *const[]){__VA_ARGS__, NULL})
#define NONE      ((const char *const[]){NULL})
#define NODUS_GV  .group = "nodus.dev", .version = "v1", .api_version = "nodus.dev/v1"
#define CORE_GV   .group = "", .version = "v1", .api_version = "v1"

/* Columns shared by several kinds. */
/* clang-format off */
#define COL_NAME                                                                                   \
    {"NAME", "string", "name", ".metadata.name", 0, ND_RENDER_RAW,                                 \
     "Name of the object, unique within its project and kind."}
#define COL_AGE                                                                                    \
    {"AGE", "date", "", ".metadata.creationTimestamp", 0, ND_RENDER_AGE,                           \
     "Time since the object was created."}
#define COL_STATE                                                                                  \
    {"STATE", "string", "", ".spec.state", 0, ND_RENDER_RAW,                                       \
     "The state asked for in spec.state."}
#define COL_PHASE                                                                                  \
    {"PHASE", "string", "", ".status.phase", 0, ND_RENDER_RAW,                                     \
     "The lifecycle phase Nodus observed."}
#define COL_GPU                                                                                    \
    {"GPU", "string", "", ".spec.resources.gpu", 0, ND_RENDER_GPU,                                 \
     "GPUs asked for, as count x model."}
#define COL_COST                                                                                   \
    {"COST", "string", "", ".status.costUSD", 0, ND_RENDER_MONEY,                                  \
     "Cost accrued so far, in US dollars."}
#define COL_END {NULL}
/* clang-format on */

#define SEL_BASE "metadata.name", "metadata.namespace", "status.phase"

static const struct nd_column job_columns[] = {
    COL_NAME,
    COL_STATE,
    COL_PHASE,
    COL_GPU,
    COL_COST,
    COL_AGE,
    {"PLACEMENT", "string", "", ".status.placement.target", 1, ND_RENDER_RAW,
     "Where the Job runs: pool/<name> or market."},
    {"RATE", "string", "", ".status.rateUSDPerHour", 1, ND_RENDER_RATE,
     "Current hourly rate, in US dollars."},
    {"MAX-COST", "string", "", ".spec.maxCostUSD", 1, ND_RENDER_MONEY,
     "Cost at which the Job is stopped, in US dollars."},
    {"IMAGE", "string", "", ".spec.image", 1, ND_RENDER_RAW, "Image the Job runs."},
    COL_END,
};

static const struct nd_column pipeline_columns[] = {
    COL_NAME,
    COL_STATE,
    COL_PHASE,
    {"STEPS", "string", "", ".status.steps", 0, ND_RENDER_STEPS,
     "Steps that succeeded out of all steps."},
    COL_COST,
    COL_AGE,
    COL_END,
};

static const struct nd_column poolaction_columns[] = {
    COL_NAME,
    {"POOL", "string", "", ".spec.pool", 0, ND_RENDER_RAW, "Pool that proposed the action."},
    {"ACTION", "string", "", ".spec.action", 0, ND_RENDER_RAW, "What the action does."},
    {"DECISION", "string", "", ".status.decision", 0, ND_RENDER_RAW,
     "Pending, Approved, Rejected, Shadow, or Cancelled when it ended undecided."},
    COL_PHASE,
    COL_AGE,
    COL_END,
};

static const struct nd_column sandbox_columns[] = {
    COL_NAME, COL_STATE, COL_PHASE, COL_GPU, COL_COST, COL_AGE, COL_END,
};

static const struct nd_column function_columns[] = {
    COL_NAME,
    COL_STATE,
    COL_PHASE,
    {"REPLICAS", "string", "", ".status", 0, ND_RENDER_READY,
     "Ready replicas out of running replicas."},
    {"URL", "string", "", ".status.url", 0, ND_RENDER_RAW, "Endpoint that invokes the Function."},
    COL_AGE,
    COL_END,
};

static const struct nd_column volume_columns[] = {
    COL_NAME,
    COL_PHASE,
    {"SIZE", "string", "", ".spec.size", 0, ND_RENDER_RAW, "Provisioned size."},
    {"USED", "string", "", ".status.usedBytes", 0, ND_RENDER_BYTES, "Bytes in use."},
    COL_AGE,
    COL_END,
};

static const struct nd_column budget_columns[] = {
    COL_NAME,
    {"LIMIT", "string", "", ".spec.limitUSD", 0, ND_RENDER_MONEY,
     "Spending limit per period, in US dollars."},
    {"SPENT", "string", "", ".status.spentUSD", 0, ND_RENDER_MONEY,
     "Spent in the current period, in US dollars."},
    {"REMAINING", "string", "", ".status.remainingUSD", 0, ND_RENDER_MONEY,
     "Left to spend in the current period, in US dollars."},
    {"ACTION", "string", "", ".spec.action", 0, ND_RENDER_RAW,
     "What happens when the limit is reached."},
    COL_AGE,
    COL_END,
};

static const struct nd_column pool_columns[] = {
    COL_NAME,
    COL_PHASE,
    {"NODES", "integer", "", ".status.capacity.nodes", 0, ND_RENDER_COUNT, "Enrolled hosts."},
    {"GPUS", "string", "", ".status.capacity.gpus", 0, ND_RENDER_GPUS_FREE_TOTAL,
     "Free devices out of all devices, over every model."},
    {"ACT", "string", "", ".spec.act.mode", 0, ND_RENDER_RAW, "Mode of the Act tier."},
    {"UTIL", "string", "", ".status.utilization.gpuPercent", 0, ND_RENDER_PERCENT,
     "GPU busy share over the utilization window."},
    COL_AGE,
    COL_END,
};

static const struct nd_column host_columns[] = {
    COL_NAME,
    {"POOL", "string", "", ".spec.pool", 0, ND_RENDER_RAW, "Pool the host is enrolled in."},
    COL_PHASE,
    {"GPUS", "string", "", ".spec.gpus", 0, ND_RENDER_GPU_MAP, "Devices of the host, per model."},
    {"CORDONED", "string", "", ".spec.cordoned", 0, ND_RENDER_RAW,
     "Whether new work is kept off the host."},
    COL_AGE,
    COL_END,
};

static const struct nd_column image_columns[] = {
    COL_NAME,
    {"TAGS", "string", "", ".spec.tags[*].tag", 0, ND_RENDER_LIST, "Published tags."},
    COL_AGE,
    COL_END,
};

/* Namespace's fields beyond ObjectMeta's, as kube's core/v1 tags them: spec.finalizers
 * has no patch strategy, so a strategic merge patch replaces it whole. */
static const struct nd_smp_field namespace_strategic[] = {
    {"spec.finalizers", ND_SMP_REPLACE, NULL},
    {NULL, 0, NULL},
};

static const struct nd_column namespace_columns[] = {
    COL_NAME,
    {"STATUS", "string", "", ".status.phase", 0, ND_RENDER_RAW, "Active or Terminating."},
    COL_AGE,
    COL_END,
};

static const struct nd_column event_columns[] = {
    {"LAST SEEN", "date", "", ".lastTimestamp", 0, ND_RENDER_AGE,
     "Time since the event was last seen."},
    {"TYPE", "string", "", ".type", 0, ND_RENDER_RAW, "Normal or Warning."},
    {"REASON", "string", "", ".reason", 0, ND_RENDER_RAW, "Why the event happened, in one word."},
    {"OBJECT", "string", "", ".involvedObject", 0, ND_RENDER_OBJECT_REF,
     "The object the event is about."},
    {"MESSAGE", "string", "", ".message", 0, ND_RENDER_RAW, "What happened."},
    COL_END,
};

static const struct nd_mutable job_mutable[] = {
    {"spec.state", ND_MUT_ANY, NULL},
    {"spec.maxCostUSD", ND_MUT_RAISE_ONLY, NULL},
    {"spec.maxDuration", ND_MUT_RAISE_ONLY, NULL},
    {NULL},
};
static const struct nd_mutable pipeline_mutable[] = {
    {"spec.state", ND_MUT_ANY, NULL},
    {"spec.maxCostUSD", ND_MUT_RAISE_ONLY, NULL},
    {NULL},
};
static const struct nd_mutable poolaction_mutable[] = {
    {"spec.decision", ND_MUT_WHILE, "Pending"},
    {NULL},
};
static const struct nd_mutable sandbox_mutable[] = {
    {"spec.state", ND_MUT_ANY, NULL},
    {"spec.idleTimeout", ND_MUT_ANY, NULL},
    {"spec.maxCostUSD", ND_MUT_RAISE_ONLY, NULL},
    {NULL},
};
static const struct nd_mutable function_mutable[] = {
    {"spec.state", ND_MUT_ANY, NULL},
    {"spec.scaling", ND_MUT_ANY, NULL},
    {"spec.maxCostUSD", ND_MUT_RAISE_ONLY, NULL},
    {NULL},
};
static const struct nd_mutable volume_mutable[] = {
    {"spec.size", ND_MUT_RAISE_ONLY, NULL},
    {NULL},
};
static const struct nd_mutable all_spec_mutable[] = {
    {"spec", ND_MUT_ANY, NULL},
    {NULL},
};
static const struct nd_mutable host_mutable[] = {
    {"spec.cordoned", ND_MUT_ANY, NULL},
    {NULL},
};
static const struct nd_mutable none_mutable[] = {
    {NULL},
};

#define RUN_STATES  LIST("Running", "Suspended", "Cancelled")
#define LONG_STATES LIST("Running", "Stopped")

const struct nd_kind nd_kinds[] = {
    {
        NODUS_GV,
        .kind = "Job",
        .list_kind = "JobList",
        .plural = "jobs",
        .singular = "job",
        .short_names = LIST("nj"),
        .categories = LIST("nodus", "all"),
        .subresources = LIST("status", "log", "exec"),
        .state_values = RUN_STATES,
        .uid_prefix = "job",
        .family = ND_FAMILY_RUN,
        .flags = ND_KIND_BILLED | ND_KIND_COMPUTE | ND_KIND_OWNED,
        .namespaced = true,
        .mutable_fields = job_mutable,
        .columns = job_columns,
        .field_selectors = LIST(SEL_BASE, "spec.state", "spec.placement.pool"),
        .schema_file = "job.yaml",
        .description = "A container run to completion on GPUs, with a cost limit.",
        .validate_extra = nd_validate_job,
    },
    {
        NODUS_GV,
        .kind = "Pipeline",
        .list_kind = "PipelineList",
        .plural = "pipelines",
        .singular = "pipeline",
        .short_names = LIST("pipe"),
        .categories = LIST("nodus", "all"),
        .subresources = LIST("status"),
        .state_values = RUN_STATES,
        .uid_prefix = "pipe",
        .family = ND_FAMILY_RUN,
        .flags = ND_KIND_COMPUTE | ND_KIND_OWNER,
        .namespaced = true,
        .mutable_fields = pipeline_mutable,
        .columns = pipeline_columns,
        .field_selectors = LIST(SEL_BASE, "spec.state"),
        .schema_file = "pipeline.yaml",
        .description = "Jobs run as steps of a dependency graph.",
        .validate_extra = nd_validate_pipeline,
    },
    {
        NODUS_GV,
        .kind = "PoolAction",
        .list_kind = "PoolActionList",
        .plural = "poolactions",
        .singular = "poolaction",
        .short_names = LIST("pact"),
        .categories = LIST("nodus"),
        .subresources = LIST("status", "log"),
        .state_values = NULL,
        .uid_prefix = "pact",
        .family = ND_FAMILY_RUN,
        .flags = ND_KIND_OWNED,
        .namespaced = true,
        .mutable_fields = poolaction_mutable,
        .columns = poolaction_columns,
        .field_selectors = LIST(SEL_BASE, "spec.pool", "spec.action", "spec.decision"),
        .schema_file = "poolaction.yaml",
        .description = "An action a Pool proposes or runs: reclaim, drain, defragment, burst.",
        .validate_extra = NULL,
    },
    {
        NODUS_GV,
        .kind = "Sandbox",
        .list_kind = "SandboxList",
        .plural = "sandboxes",
        .singular = "sandbox",
        .short_names = LIST("sbx"),
        .categories = LIST("nodus", "all"),
        .subresources = LIST("status", "log", "exec", "files"),
        .state_values = LONG_STATES,
        .requests = LIST("restart"),
        .uid_prefix = "sbx",
        .family = ND_FAMILY_LONG,
        .flags = ND_KIND_BILLED | ND_KIND_COMPUTE,
        .namespaced = true,
        .mutable_fields = sandbox_mutable,
        .columns = sandbox_columns,
        .field_selectors = LIST(SEL_BASE, "spec.state", "spec.placement.pool"),
        .schema_file = "sandbox.yaml",
        .description = "An interactive machine with exec, files and ports.",
        .validate_extra = nd_validate_sandbox,
    },
    {
        NODUS_GV,
        .kind = "Function",
        .list_kind = "FunctionList",
        .plural = "functions",
        .singular = "function",
        .short_names = LIST("fn"),
        .categories = LIST("nodus", "all"),
        .subresources = LIST("status", "log", "invoke"),
        .state_values = LONG_STATES,
        .requests = LIST("restart"),
        .uid_prefix = "fn",
        .family = ND_FAMILY_LONG,
        .flags = ND_KIND_BILLED | ND_KIND_COMPUTE,
        .namespaced = true,
        .mutable_fields = function_mutable,
        .columns = function_columns,
        .field_selectors = LIST(SEL_BASE, "spec.state"),
        .schema_file = "function.yaml",
        .description = "A scaled endpoint that serves requests from an image.",
        .validate_extra = nd_validate_function,
    },
    {
        NODUS_GV,
        .kind = "Volume",
        .list_kind = "VolumeList",
        .plural = "volumes",
        .singular = "volume",
        .short_names = LIST("vol"),
        .categories = LIST("nodus", "all"),
        .subresources = LIST("status", "files"),
        .state_values = NULL,
        .uid_prefix = "vol",
        .family = ND_FAMILY_LONG,
        .flags = ND_KIND_BILLED,
        .namespaced = true,
        .mutable_fields = volume_mutable,
        .columns = volume_columns,
        .field_selectors = LIST(SEL_BASE),
        .schema_file = "volume.yaml",
        .description = "Persistent storage mounted by Jobs and Sandboxes.",
        .validate_extra = NULL,
    },
    {
        NODUS_GV,
        .kind = "Budget",
        .list_kind = "BudgetList",
        .plural = "budgets",
        .singular = "budget",
        .short_names = LIST("bgt"),
        .categories = LIST("nodus"),
        .subresources = LIST("status"),
        .state_values = LONG_STATES,
        .uid_prefix = "bgt",
        .family = ND_FAMILY_LONG,
        .flags = 0,
        .namespaced = true,
        .mutable_fields = all_spec_mutable,
        .columns = budget_columns,
        .field_selectors = LIST(SEL_BASE, "spec.state"),
        .schema_file = "budget.yaml",
        .description = "A spending limit over a project or a labelled set of objects.",
        .validate_extra = nd_validate_budget,
    },
    {
        NODUS_GV,
        .kind = "Pool",
        .list_kind = "PoolList",
        .plural = "pools",
        .singular = "pool",
        .short_names = LIST("pl"),
        .categories = LIST("nodus"),
        .subresources = LIST("status"),
        .state_values = NULL,
        .uid_prefix = "pool",
        .family = ND_FAMILY_LONG,
        .flags = ND_KIND_OWNER,
        .namespaced = true,
        .mutable_fields = all_spec_mutable,
        .columns = pool_columns,
        .field_selectors = LIST(SEL_BASE),
        .schema_file = "pool.yaml",
        .description = "Your own hosts, measured, routed onto, forecast and managed by Nodus.",
        .validate_extra = nd_validate_pool,
    },
    {
        NODUS_GV,
        .kind = "Host",
        .list_kind = "HostList",
        .plural = "hosts",
        .singular = "host",
        .short_names = NONE,
        .categories = LIST("nodus"),
        .subresources = LIST("status"),
        .state_values = NULL,
        .uid_prefix = "host",
        .family = ND_FAMILY_LONG,
        .flags = 0,
        .namespaced = true,
        .mutable_fields = host_mutable,
        .columns = host_columns,
        .field_selectors = LIST(SEL_BASE, "spec.pool"),
        .schema_file = "host.yaml",
        .description = "A host of yours enrolled in a Pool.",
        .validate_extra = NULL,
    },
    {
        NODUS_GV,
        .kind = "Image",
        .list_kind = "ImageList",
        .plural = "images",
        .singular = "image",
        .short_names = LIST("img"),
        .categories = LIST("nodus"),
        .subresources = LIST("status"),
        .state_values = NULL,
        .uid_prefix = "img",
        .family = ND_FAMILY_CATALOGUE,
        .flags = 0,
        .namespaced = true,
        .read_only = true,
        .mutable_fields = none_mutable,
        .columns = image_columns,
        .field_selectors = LIST("metadata.name", "metadata.namespace"),
        .schema_file = "image.yaml",
        .description = "A base image Nodus publishes in the project nodus.",
        .validate_extra = NULL,
    },
    {
        CORE_GV,
        .kind = "Namespace",
        .list_kind = "NamespaceList",
        .plural = "namespaces",
        .singular = "namespace",
        .alias_plural = "projects",
        .alias_singular = "project",
        .short_names = LIST("ns"),
        .categories = NONE,
        .subresources = LIST("status"),
        .state_values = NULL,
        .uid_prefix = "ns",
        .family = ND_FAMILY_NONE,
        .flags = ND_KIND_PROJECT,
        .namespaced = false,
        .mutable_fields = none_mutable,
        .columns = namespace_columns,
        .field_selectors = LIST("metadata.name", "status.phase"),
        .schema_file = "namespace.yaml",
        .description = "A project: the space objects are named and billed in.",
        .validate_extra = NULL,
        .strategic = namespace_strategic,
    },
    {
        CORE_GV,
        .kind = "Event",
        .list_kind = "EventList",
        .plural = "events",
        .singular = "event",
        .short_names = LIST("ev"),
        .categories = NONE,
        .subresources = NONE,
        .state_values = NULL,
        .uid_prefix = "evt",
        .family = ND_FAMILY_NONE,
        .flags = ND_KIND_HOUR_FILES,
        .namespaced = true,
        .read_only = true,
        .mutable_fields = none_mutable,
        .columns = event_columns,
        /* kube-apiserver's labels of core/v1 Event; `source` is source.component, which every
         * Event here has (kube falls back to reportingComponent, the same value here) */
        .field_selectors = LIST("metadata.name", "metadata.namespace", "involvedObject.kind",
                                "involvedObject.namespace", "involvedObject.name",
                                "involvedObject.uid", "involvedObject.apiVersion",
                                "involvedObject.resourceVersion", "involvedObject.fieldPath",
                                "reason", "reportingComponent", "source=source.component",
                                "type"),
        .schema_file = "event.yaml",
        .description = "Something that happened to an object, for describe.",
        .validate_extra = NULL,
    },
};

size_t nd_kind_count(void)
{
    return sizeof nd_kinds / sizeof nd_kinds[0];
}

/* kube-apiserver's Event table, over the events.k8s.io/v1 fields. */
static const struct nd_column event_v1_columns[] = {
    {"LAST SEEN", "date", "", ".deprecatedLastTimestamp", 0, ND_RENDER_AGE,
     "Time since the event was last seen."},
    {"TYPE", "string", "", ".type", 0, ND_RENDER_RAW, "Normal or Warning."},
    {"REASON", "string", "", ".reason", 0, ND_RENDER_RAW, "Why the event happened, in one word."},
    {"OBJECT", "string", "", ".regarding", 0, ND_RENDER_OBJECT_REF,
     "The object the event is about."},
    {"MESSAGE", "string", "", ".note", 0, ND_RENDER_RAW, "What happened."},
    COL_END,
};

/* The views (registry.h): kinds served over the objects of a kind above. */
static const struct nd_kind nd_views[] = {
    {
        .group = "events.k8s.io",
        .version = "v1",
        .api_version = "events.k8s.io/v1",
        .kind = "Event",
        .list_kind = "EventList",
        .plural = "events",
        .singular = "event",
        .short_names = LIST("ev"),
        .categories = NONE,
        .subresources = NONE,
        .state_values = NULL,
        .uid_prefix = "evt",
        .family = ND_FAMILY_NONE,
        .flags = 0,
        .namespaced = true,
        .read_only = true,
        .mutable_fields = none_mutable,
        .columns = event_v1_columns,
        /* kube-apiserver's labels of events.k8s.io/v1 Event, read in the stored core Event */
        .field_selectors = LIST("metadata.name", "metadata.namespace",
                                "regarding.kind=involvedObject.kind",
                                "regarding.namespace=involvedObject.namespace",
                                "regarding.name=involvedObject.name",
                                "regarding.uid=involvedObject.uid",
                                "regarding.apiVersion=involvedObject.apiVersion",
                                "regarding.resourceVersion=involvedObject.resourceVersion",
                                "regarding.fieldPath=involvedObject.fieldPath", "reason",
                                "reportingController=reportingComponent",
                                "source=source.component", "type"),
        .schema_file = "event-v1.yaml",
        .description = "Something that happened to an object (the core Events, newer fields).",
        .validate_extra = NULL,
        .from_stored = nd_event_v1_from_core,
    },
};

size_t nd_kind_served_count(void)
{
    return nd_kind_count() + sizeof nd_views / sizeof nd_views[0];
}

const struct nd_kind *nd_kind_served(size_t i)
{
    return i < nd_kind_count() ? &nd_kinds[i] : &nd_views[i - nd_kind_count()];
}
