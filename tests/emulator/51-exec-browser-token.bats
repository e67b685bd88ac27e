#!/usr/bin/env bats
# A browser's exec (the console's terminal): a page's WebSocket cannot carry an
# Authorization header, so it offers the token as a subprotocol,
# base64url.bearer.authorization.k8s.io.<base64url(token), no padding>, beside
# v5.channel.k8s.io, as kube-apiserver takes it. The emulator reads it only for a
# WebSocket upgrade without Authorization, never chooses it, never echoes or logs it, and
# bounds its length. The clock only moves when a test advances it.

load ../lib/common

NS=/apis/nodus.dev/v1/namespaces/default
KEY=dGhlIHNhbXBsZSBub25jZQ==
ADMIN=browser-admin-token-0123456789
WRITER=browser-writer-token-0123456789
READER=browser-reader-token-0123456789
# the shell computes 42: the answer is not an echo of the request
RUN="command=sh&command=-c&command=echo+hello-\$((6*7))&stdout=true"

running_sandbox() { # URL: the Sandbox dev, Running (Pending 2 s, Starting 10 s)
    curl -sf -o /dev/null -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
        -d '{"apiVersion":"nodus.dev/v1","kind":"Sandbox","metadata":{"name":"dev"},"spec":{"image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"10.00"}}' \
        "$1$NS/sandboxes" || return 1
    curl -sf -o /dev/null -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
        -d '{"advance":"15s"}' "$1/emulator/v1/clock"
}

setup_file() {
    printf '{"tokens": {"%s": {"identity": "root", "scopes": ["admin"]},
      "%s": {"identity": "walt", "projects": ["default"], "scopes": ["write"]},
      "%s": {"identity": "rita", "projects": ["default"], "scopes": ["read"]}}}\n' \
        "$ADMIN" "$WRITER" "$READER" >"$BATS_FILE_TMPDIR/tokens.json"
    chmod 600 "$BATS_FILE_TMPDIR/tokens.json"
    start_emulator --token-file "$BATS_FILE_TMPDIR/tokens.json"
    running_sandbox "$EMU_URL"
}

teardown_file() {
    stop_extras
    stop_emulator
    # the sanitizer builds report here
    ! grep -sE "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$BATS_FILE_TMPDIR/emulator.err" \
        "$BATS_FILE_TMPDIR/logged/err"
}

setup() {
    cd "$BATS_TEST_TMPDIR"
}

b64url() { printf %s "$1" | base64 -w0 | tr '+/' '-_' | tr -d '='; }
bearer() { echo "base64url.bearer.authorization.k8s.io.$(b64url "$1")"; }

# ws URL PROTOCOLS [curl args...]: an upgrade request; the answer's head in $HDRS, the
# bytes after it (frames, or a Status) in $FRAMES, the HTTP code in $CODE.
ws() {
    local url=$1 protos=$2
    shift 2
    HDRS=$BATS_TEST_TMPDIR/hdrs FRAMES=$BATS_TEST_TMPDIR/frames
    CODE=$(curl -sS -m 10 -o "$FRAMES" -D "$HDRS" -w '%{http_code}' -H 'Connection: Upgrade' \
        -H 'Upgrade: websocket' -H 'Sec-WebSocket-Version: 13' -H "Sec-WebSocket-Key: $KEY" \
        ${protos:+-H "Sec-WebSocket-Protocol: $protos"} "$@" "$url")
}

hdr() {
    grep -i "^$1:" "$HDRS" | head -n 1 | cut -d: -f2- | sed 's/^ //; s/\r$//'
}

# neither the token nor its encoding in the answer (head and body)
no_secret() { # TOKEN
    ! grep -aqF -e "$1" -e "$(b64url "$1")" "$HDRS" "$FRAMES"
}

@test "the token only in the subprotocol: the exec runs, and v5.channel.k8s.io is chosen" {
    ws "$EMU_URL$NS/sandboxes/dev/exec?$RUN" "v5.channel.k8s.io, $(bearer "$WRITER")"
    [ "$CODE" = 101 ]
    [ "$(hdr Sec-WebSocket-Protocol)" = v5.channel.k8s.io ]
    grep -aq 'hello-42' "$FRAMES"
    no_secret "$WRITER"
    # offered first, or beside v4 only: never the protocol chosen
    ws "$EMU_URL$NS/sandboxes/dev/exec?$RUN" "$(bearer "$WRITER"), v4.channel.k8s.io"
    [ "$CODE" = 101 ]
    [ "$(hdr Sec-WebSocket-Protocol)" = v4.channel.k8s.io ]
    grep -aq 'hello-42' "$FRAMES"
}

@test "a wrong token in the subprotocol is 401, not known (and not echoed)" {
    ws "$EMU_URL$NS/sandboxes/dev/exec?$RUN" "v5.channel.k8s.io, $(bearer not-a-token-0123456789)"
    [ "$CODE" = 401 ]
    [ "$(jq -r .message "$FRAMES")" = "the bearer token is not known" ]
    no_secret not-a-token-0123456789
    # not base64url, two tokens, or past the bound: unknown too
    local long
    long=$(head -c 3100 /dev/zero | tr '\0' a)
    for protos in "v5.channel.k8s.io, base64url.bearer.authorization.k8s.io.$(b64url "$WRITER")==" \
        "v5.channel.k8s.io, base64url.bearer.authorization.k8s.io.a+b/" \
        "v5.channel.k8s.io, $(bearer "$WRITER"), $(bearer "$WRITER")" \
        "v5.channel.k8s.io, $(bearer "$long")"; do
        ws "$EMU_URL$NS/sandboxes/dev/exec?$RUN" "$protos"
        [ "$CODE" = 401 ] || { echo "$protos: $CODE" >&2; return 1; }
        [ "$(jq -r .message "$FRAMES")" = "the bearer token is not known" ]
    done
}

@test "a token without the write scope is 403 through the subprotocol too" {
    ws "$EMU_URL$NS/sandboxes/dev/exec?$RUN" "v5.channel.k8s.io, $(bearer "$READER")"
    [ "$CODE" = 403 ]
    [ "$(jq -r .message "$FRAMES")" = "rita may not exec into $NS/sandboxes/dev/exec: it needs the token scope write" ]
    no_secret "$READER"
}

@test "only the subprotocol offered: the token is known, and the refusal does not show it" {
    ws "$EMU_URL$NS/sandboxes/dev/exec?$RUN" "$(bearer "$WRITER")"
    [ "$CODE" = 400 ]
    [ "$(jq -r .message "$FRAMES")" = 'no supported subprotocol in "": this server speaks v5.channel.k8s.io and v4.channel.k8s.io' ]
    no_secret "$WRITER"
}

@test "an Authorization header wins; a request that is not an upgrade is not read for it" {
    # the header, when sent, is the token: the subprotocol is not looked at
    ws "$EMU_URL$NS/sandboxes/dev/exec?$RUN" "v5.channel.k8s.io, $(bearer "$WRITER")" \
        -H "Authorization: Bearer wrong-0123456789"
    [ "$CODE" = 401 ]
    ws "$EMU_URL$NS/sandboxes/dev/exec?$RUN" "v5.channel.k8s.io, $(bearer wrong-0123456789)" \
        -H "Authorization: Bearer $WRITER"
    [ "$CODE" = 101 ]
    # a plain GET with the header is anonymous
    run curl -s -o /dev/null -w '%{http_code}' \
        -H "Sec-WebSocket-Protocol: v5.channel.k8s.io, $(bearer "$WRITER")" "$EMU_URL$NS/sandboxes"
    assert_output 401
    # and a WebSocket upgrade to a list is read as any request of a browser would be
    ws "$EMU_URL$NS/sandboxes" "v5.channel.k8s.io, $(bearer "$READER")"
    [ "$CODE" = 200 ]
    [ "$(jq -r '.items[0].metadata.name' "$FRAMES")" = dev ]
}

@test "the page's own origin may exec with the subprotocol token; another origin is refused" {
    local port=${EMU_URL##*:}
    ws "$EMU_URL$NS/sandboxes/dev/exec?$RUN" "v5.channel.k8s.io, $(bearer "$WRITER")" \
        -H "Origin: http://127.0.0.1:$port"
    [ "$CODE" = 101 ]
    grep -aq 'hello-42' "$FRAMES"
    ws "$EMU_URL$NS/sandboxes/dev/exec?$RUN" "v5.channel.k8s.io, $(bearer "$WRITER")" \
        -H "Origin: https://evil.example"
    [ "$CODE" = 403 ]
    [ "$(jq -r .message "$FRAMES")" = "requests from web pages of origin https://evil.example are refused: a page a browser shows may not drive this emulator" ]
    no_secret "$WRITER"
}

@test "the request log shows the exec, never the token" {
    # an emulator of its own with the request log on (start_emulator's is --quiet)
    local dir=$BATS_FILE_TMPDIR/logged
    mkdir -p "$dir"
    "$ND_BIN_DIR/nodus-emulator" --state "$dir/state" --listen 127.0.0.1:0 --port-file "$dir/port" \
        --fsync never --speed 0 --log-format json --token-file "$BATS_FILE_TMPDIR/tokens.json" \
        >"$dir/out" 2>"$dir/err" 3>&- &
    echo $! >"$BATS_FILE_TMPDIR/extra-logged.pid"
    wait_until test -s "$dir/port"
    local url=http://127.0.0.1:$(cat "$dir/port")
    running_sandbox "$url"
    ws "$url$NS/sandboxes/dev/exec?$RUN" "v5.channel.k8s.io, $(bearer "$WRITER")"
    [ "$CODE" = 101 ]
    ws "$url$NS/sandboxes/dev/exec?$RUN" "v5.channel.k8s.io, $(bearer not-a-token-0123456789)"
    [ "$CODE" = 401 ]
    wait_until grep -q '"code":401' "$dir/err"
    grep -qF '"path":"/apis/nodus.dev/v1/namespaces/default/sandboxes/dev/exec","code":101' "$dir/err"
    ! grep -aqF -e "$WRITER" -e "$(b64url "$WRITER")" -e "$(b64url not-a-token-0123456789)" \
        -e bearer "$dir/err" "$dir/out"
}
