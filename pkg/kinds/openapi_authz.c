/* openapi_authz.c: the OpenAPI v3 document of authorization.k8s.io/v1 (see openapi.h):
 * the two reviews `kubectl auth can-i` creates, SelfSubjectAccessReview and
 * SelfSubjectRulesReview, in kube-apiserver's shape (io.k8s.api.authorization.v1.*). */
#include "kinds/openapi.h"

#include <string.h>

#include "kinds/schema.h"
#include "util/xmalloc.h"

#define AUTHZ "io.k8s.api.authorization.v1."
#define META "io.k8s.apimachinery.pkg.apis.meta.v1."
#define REF(name) "{\"$ref\": \"#/components/schemas/" name "\"}"
#define STR(d) "{\"type\": \"string\", \"description\": \"" d "\"}"
#define STRS(d) "{\"type\": \"array\", \"items\": {\"type\": \"string\"}, \"description\": \"" d "\"}"
#define GVK(kind) \
    "\"x-kubernetes-group-version-kind\": [{\"group\": \"authorization.k8s.io\", " \
    "\"version\": \"v1\", \"kind\": \"" kind "\"}]"
#define HEAD                                                                          \
    "\"apiVersion\": " STR("APIVersion of the review.") ", \"kind\": " STR("Kind of the "  \
                                                                          "review.")       \
    ", \"metadata\": " REF(META "ObjectMeta")

static const char schemas[] =
    "{\"" AUTHZ "SelfSubjectAccessReview\": {\"type\": \"object\", \"required\": [\"spec\"], "
    "\"description\": \"May the caller do this: answered from the decision the request itself "
    "gets (kubectl auth can-i VERB RESOURCE).\", \"properties\": {" HEAD ", \"spec\": "
    REF(AUTHZ "SelfSubjectAccessReviewSpec") ", \"status\": "
    REF(AUTHZ "SubjectAccessReviewStatus") "}, " GVK("SelfSubjectAccessReview") "},"
    "\"" AUTHZ "SelfSubjectAccessReviewSpec\": {\"type\": \"object\", \"description\": \"The "
    "request asked about: resourceAttributes or nonResourceAttributes.\", \"properties\": {"
    "\"resourceAttributes\": " REF(AUTHZ "ResourceAttributes") ", \"nonResourceAttributes\": "
    REF(AUTHZ "NonResourceAttributes") "}},"
    "\"" AUTHZ "ResourceAttributes\": {\"type\": \"object\", \"description\": \"A request on "
    "a resource.\", \"properties\": {\"namespace\": " STR("The project; empty for every "
    "project.") ", \"verb\": " STR("get, list, watch, create, update, patch, delete or "
    "deletecollection.") ", \"group\": " STR("The API group; empty for the core group.")
    ", \"version\": " STR("The API version.") ", \"resource\": " STR("The resource (plural).")
    ", \"subresource\": " STR("The subresource: status, log, exec, files, invoke.")
    ", \"name\": " STR("The object's name; empty for any.") "}},"
    "\"" AUTHZ "NonResourceAttributes\": {\"type\": \"object\", \"description\": \"A request "
    "on a path outside the resources.\", \"properties\": {\"path\": " STR("The URL path.")
    ", \"verb\": " STR("The lower-case HTTP method.") "}},"
    "\"" AUTHZ "SubjectAccessReviewStatus\": {\"type\": \"object\", \"required\": "
    "[\"allowed\"], \"description\": \"The answer.\", \"properties\": {\"allowed\": "
    "{\"type\": \"boolean\", \"description\": \"Whether the request would be allowed.\"}, "
    "\"denied\": {\"type\": \"boolean\", \"description\": \"Whether it would be denied.\"}, "
    "\"reason\": " STR("Why (not).") ", \"evaluationError\": " STR("What went wrong "
    "deciding.") "}},"
    "\"" AUTHZ "SelfSubjectRulesReview\": {\"type\": \"object\", \"required\": [\"spec\"], "
    "\"description\": \"What the caller may do in one project: every rule, from the "
    "decisions the requests themselves get (kubectl auth can-i --list).\", \"properties\": {"
    HEAD ", \"spec\": " REF(AUTHZ "SelfSubjectRulesReviewSpec") ", \"status\": "
    REF(AUTHZ "SubjectRulesReviewStatus") "}, " GVK("SelfSubjectRulesReview") "},"
    "\"" AUTHZ "SelfSubjectRulesReviewSpec\": {\"type\": \"object\", \"description\": \"The "
    "project asked about.\", \"properties\": {\"namespace\": " STR("The project. Required.")
    "}},"
    "\"" AUTHZ "SubjectRulesReviewStatus\": {\"type\": \"object\", \"required\": "
    "[\"resourceRules\", \"nonResourceRules\", \"incomplete\"], \"description\": \"The "
    "rules.\", \"properties\": {\"resourceRules\": {\"type\": \"array\", \"items\": "
    REF(AUTHZ "ResourceRule") ", \"description\": \"What the caller may do to resources in "
    "the project (and to projects).\"}, \"nonResourceRules\": {\"type\": \"array\", "
    "\"items\": " REF(AUTHZ "NonResourceRule") ", \"description\": \"The paths outside the "
    "resources the caller may use.\"}, \"incomplete\": {\"type\": \"boolean\", "
    "\"description\": \"True when the caller may do more than the rules say.\"}, "
    "\"evaluationError\": " STR("What the rules leave out, when incomplete.") "}},"
    "\"" AUTHZ "ResourceRule\": {\"type\": \"object\", \"required\": [\"verbs\"], "
    "\"description\": \"Verbs allowed on resources.\", \"properties\": {\"verbs\": "
    STRS("The verbs.") ", \"apiGroups\": " STRS("The API groups.") ", \"resources\": "
    STRS("The resources, and resource/subresource.") ", \"resourceNames\": "
    STRS("The names it is limited to; absent: any.") "}},"
    "\"" AUTHZ "NonResourceRule\": {\"type\": \"object\", \"required\": [\"verbs\"], "
    "\"description\": \"Verbs allowed on paths.\", \"properties\": {\"verbs\": "
    STRS("The lower-case HTTP methods.") ", \"nonResourceURLs\": "
    STRS("The paths; one ending in a star is every path under it.") "}}}";

/* The create operation of one review. NEW. */
static json_t *create_op(const char *kind)
{
    char *ref = nd_xasprintf("#/components/schemas/" AUTHZ "%s", kind);
    char *desc = nd_xasprintf("create a %s", kind);
    char *id = nd_xasprintf("createAuthorizationV1%s", kind);
    json_t *content = json_pack("{s{s{ss}}}", "application/json", "schema", "$ref", ref);
    json_t *answer = json_pack("{ssso}", "description", "Created", "content", content);
    json_t *op = json_pack(
        "{sss[s]sss[{sssss{ss}ss}{sssss{ss}ss}{sssss{ss}ss}]s{sOsb}s{sOsOs{ss}}sss{ssssss}}",
        "description", desc, "tags", "authorization_v1", "operationId", id, "parameters",
        "name", "dryRun", "in", "query", "schema", "type", "string", "style", "form", "name",
        "fieldManager", "in", "query", "schema", "type", "string", "style", "form", "name",
        "fieldValidation", "in", "query", "schema", "type", "string", "style", "form",
        "requestBody", "content", content, "required", 1, "responses", "200", answer, "201",
        answer, "default", "description", "Error", "x-kubernetes-action", "post",
        "x-kubernetes-group-version-kind", "group", "authorization.k8s.io", "version", "v1",
        "kind", kind);
    json_object_set_new(json_object_get(json_object_get(op, "responses"), "default"), "content",
                        json_pack("{s{s{ss}}}", "application/json", "schema", "$ref",
                                  "#/components/schemas/" META "Status"));
    json_decref(answer);
    free(ref);
    free(desc);
    free(id);
    return op;
}

json_t *nd_openapi_v3_authz(void)
{
    struct nd_status st = ND_STATUS_INIT;
    int rc = nd_schemas_check(&st);
    nd_status_release(&st);
    json_t *own = json_loads(schemas, 0, NULL);
    if (rc != 0 || !own) {
        json_decref(own);
        return NULL;
    }
    json_t *all = json_deep_copy(nd_schema_components());
    json_object_update(all, own);
    json_decref(own);
    json_t *paths = json_object();
    static const char *const kinds[] = {"SelfSubjectAccessReview", "SelfSubjectRulesReview"};
    for (size_t i = 0; i < 2; i++) {
        char *lower = nd_xstrdup(kinds[i]);
        for (char *c = lower; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
        char *path = nd_xasprintf("/apis/authorization.k8s.io/v1/%ss", lower);
        json_object_set_new(paths, path,
                            json_pack("{so s[{sssss{ss}ss}]}", "post", create_op(kinds[i]),
                                      "parameters", "name", "pretty", "in", "query", "schema",
                                      "type", "string", "style", "form", "description",
                                      "Indent the answer."));
        free(path);
        free(lower);
    }
    return json_pack("{s:s, s:{s:s, s:s}, s:o, s:{s:o}}", "openapi", "3.0.0", "info", "title",
                     "Nodus", "version", "v1", "paths", paths, "components", "schemas", all);
}
