#!/usr/bin/env bats
# One route per request (emulator/api/route.c): the front door, the authorisation, the
# fault injection and the handlers read the same struct em_route, so a path is the same
# thing to each of them. The table of every path shape is tests/unit/test_route_table.c;
# here, what a server answers.

load ../lib/common

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

teardown() {
    http DELETE /emulator/v1/faults
}

@test "faults spare /docs and what is under it, not a path that only starts with /docs" {
    http POST /emulator/v1/faults '{"path":"^/docs","status":503}'
    [ "$CODE" = 201 ]
    http GET /docs
    [ "$CODE" = 200 ]
    http GET /docs/reference/errors
    [ "$CODE" = 200 ]
    http GET /docs/nothing
    [ "$CODE" = 404 ]
    [ "$(body_json .message)" = "no documentation page at /docs/nothing" ]
    # /docsx is no docs page: the fault answers it, as any other path
    http GET /docsx
    [ "$CODE" = 503 ]
    [ "$(body_json .message)" = "injected fault: GET /docsx answers 503" ]
    http GET /docsX/reference/errors
    [ "$CODE" = 503 ]
}

@test "a fault on every path spares the health checks, the docs and the control endpoints" {
    http POST /emulator/v1/faults '{"path":".","status":500}'
    [ "$CODE" = 201 ]
    for p in /healthz /livez /readyz /docs /emulator/v1/stats; do
        http GET "$p"
        [ "$CODE" = 200 ] || { echo "$p: $CODE"; false; }
    done
    for p in /version /api/v1 /apis/nodus.dev/v1/namespaces/default/jobs /nothing /docsy; do
        http GET "$p"
        [ "$CODE" = 500 ] || { echo "$p: $CODE"; false; }
        [ "$(body_json .message)" = "injected fault: GET $p answers 500" ]
    done
}
