#!/usr/bin/env bats
# kubectl explain (from the OpenAPI v3 documents) and api-resources (from discovery) against the emulator. One loop per kubectl version; nothing is written.

load ../lib/common
load ../lib/kubectl

bats_require_minimum_version 1.5.0

T=$'\t'

@test "explain jobs.spec: the fields with their types and descriptions" {
    # 1.28: explain reads OpenAPI v2 (protobuf) to 1.28, v3 from 1.29
    for KV in $(kc_versions 1.28); do
        kc_use
        run -0 --separate-stderr kc explain jobs.spec
        assert_line -n 0 --regexp '^GROUP: +nodus\.dev$'
        assert_line -n 1 --regexp '^KIND: +Job$'
        assert_line -n 2 --regexp '^VERSION: +v1$'
        assert_line "FIELD: spec <Object>"
        assert_line "DESCRIPTION:"
        assert_line "FIELDS:"
        assert_line "  image${T}<string> -required-"
        assert_line "  maxCostUSD${T}<string> -required-"
        assert_line "  command${T}<[]string>"
        assert_line "  env${T}<[]Object>"
        assert_line "  resources${T}<Object>"
        assert_line "  backoffLimit${T}<integer>"
        assert_line "  state${T}<string>"
        # Every field has a description under it (an indented line that is no field).
        assert_regex "$output" $'\n  maxCostUSD\t<string> -required-\n    [A-Z][^\n]+\n'
        assert_regex "$output" $'\n  image\t<string> -required-\n    [A-Z][^\n]+\n'
        assert_equal "$stderr" ""
    done
}

@test "explain jobs.spec --recursive: the nested fields" {
    # 1.28: explain reads OpenAPI v2 (protobuf) to 1.28, v3 from 1.29
    for KV in $(kc_versions 1.28); do
        kc_use
        run -0 --separate-stderr kc explain jobs.spec --recursive
        assert_line "  env${T}<[]Object>"
        assert_line "    name${T}<string> -required-"
        assert_line "    value${T}<string>"
        assert_line "  placement${T}<Object>"
        assert_line "    maxRateUSDPerHour${T}<string>"
        assert_line "    pool${T}<string>"
        assert_line "  resources${T}<Object>"
        assert_line "    gpu${T}<Object>"
        assert_line "      count${T}<integer> -required-"
        assert_line "      model${T}<string> -required-"
        assert_line "    memory${T}<string>"
        assert_line "  volumes${T}<[]Object>"
        assert_line "    mountPath${T}<string> -required-"
        assert_line "    readOnly${T}<boolean>"
        assert_line "  workingDir${T}<string>"
        # --recursive prints no descriptions.
        refute_line --partial "MaxCostUSD is"
    done
}

@test "explain pools.spec: the Pool reference seed, field by field, with its descriptions" {
    # 1.28: explain reads OpenAPI v2 (protobuf) to 1.28, v3 from 1.29
    for KV in $(kc_versions 1.28); do
        kc_use
        run -0 --separate-stderr kc explain pools.spec.routing.waitTimeout
        assert_line -n 1 --regexp '^KIND: +Pool$'
        assert_line "FIELD: waitTimeout <string>"
        assert_line "    WaitTimeout bounds the wait for Pool capacity under waitPolicy Timeout, from"
        assert_line "    1m to 24h. Default 30m."
        run -0 --separate-stderr kc explain pools.spec --recursive
        assert_line "  sandboxCapable${T}<boolean>"
        assert_line "  routing${T}<Object>"
        assert_line "    burstToMarket${T}<string>"
        assert_line "    waitPolicy${T}<string>"
        assert_line "    waitTimeout${T}<string>"
        assert_line "  predict${T}<Object>"
        assert_line "    enabled${T}<boolean>"
        assert_line "    horizon${T}<string>"
        assert_line "  act${T}<Object>"
        assert_line "    mode${T}<string>"
        assert_line "    paused${T}<boolean>"
        assert_line "    policies${T}<[]Object>"
        assert_line "      action${T}<string> -required-"
        assert_line "      idleFor${T}<string>"
        assert_line "      schedule${T}<string>"
        assert_line "      maxGPUs${T}<integer>"
        assert_line "      minWaitTimeout${T}<string>"
        assert_line "      maxWaitTimeout${T}<string>"
        assert_line "      maxRateUSDPerHour${T}<string>"
    done
}

@test "api-resources: every kind with its short name, version, scope and kind" {
    # 1.29: aggregated discovery v2beta1 to 1.29, v2 from 1.30
    for KV in $(kc_versions 1.29); do
        kc_use
        run -0 --separate-stderr kc api-resources
        assert_output "NAME                       SHORTNAMES   APIVERSION                 NAMESPACED   KIND
events                     ev           v1                         true         Event
namespaces                 ns           v1                         false        Namespace
selfsubjectreviews                      authentication.k8s.io/v1   false        SelfSubjectReview
selfsubjectaccessreviews                authorization.k8s.io/v1    false        SelfSubjectAccessReview
selfsubjectrulesreviews                 authorization.k8s.io/v1    false        SelfSubjectRulesReview
events                     ev           events.k8s.io/v1           true         Event
budgets                    bgt          nodus.dev/v1               true         Budget
functions                  fn           nodus.dev/v1               true         Function
hosts                                   nodus.dev/v1               true         Host
images                     img          nodus.dev/v1               true         Image
jobs                       nj           nodus.dev/v1               true         Job
pipelines                  pipe         nodus.dev/v1               true         Pipeline
poolactions                pact         nodus.dev/v1               true         PoolAction
pools                      pl           nodus.dev/v1               true         Pool
sandboxes                  sbx          nodus.dev/v1               true         Sandbox
volumes                    vol          nodus.dev/v1               true         Volume"
        assert_equal "$stderr" ""
    done
}

@test "api-resources -o wide: verbs and categories (all: Job, Sandbox, Function, Pipeline, Volume)" {
    local w='create,delete,deletecollection,get,list,patch,update,watch'
    # 1.29: aggregated discovery v2beta1 to 1.29, v2 from 1.30
    for KV in $(kc_versions 1.29); do
        kc_use
        run -0 --separate-stderr kc api-resources --api-group=nodus.dev -o wide
        assert_line -n 0 --regexp '^NAME +SHORTNAMES +APIVERSION +NAMESPACED +KIND +VERBS +CATEGORIES$'
        assert_line --regexp "^jobs +nj +nodus\\.dev/v1 +true +Job +$w +nodus,all\$"
        assert_line --regexp "^sandboxes +sbx +nodus\\.dev/v1 +true +Sandbox +$w +nodus,all\$"
        assert_line --regexp "^functions +fn +nodus\\.dev/v1 +true +Function +$w +nodus,all\$"
        assert_line --regexp "^pipelines +pipe +nodus\\.dev/v1 +true +Pipeline +$w +nodus,all\$"
        assert_line --regexp "^volumes +vol +nodus\\.dev/v1 +true +Volume +$w +nodus,all\$"
        assert_line --regexp "^pools +pl +nodus\\.dev/v1 +true +Pool +$w +nodus\$"
        # The catalogue is read-only.
        assert_line --regexp '^images +img +nodus\.dev/v1 +true +Image +get,list,watch +nodus$'
        assert_equal "${#lines[@]}" 11
    done
}
