#!/usr/bin/env bats
# The history check's checker (tests/torture/check.py, `make torture`, docs/torture.md) on
# small hand-made histories: a clean one, and one per anomaly kind, each of which the
# checker must name, alone and exactly once. (The long run against the emulator killed
# every few seconds, and the broken builds, are `make torture` and `make torture-selftest`.)

load ../lib/common

CHECK=$BATS_TEST_DIRNAME/../torture/check.py

# the start of every history: k1 created (acknowledged, rv 10) while a watch from rv 5 is
# open, which sends it
base() {
    cat <<'H'
{"t":"ready","at":0}
{"t":"seg","w":9,"seg":1,"from":5,"start":0.5}
{"t":"op","c":0,"n":1,"op":"create","tok":"c0-1","key":"k1","start":1,"end":2,"status":201,"rv":10,"seen":"c0-1"}
{"t":"ev","w":9,"seg":1,"type":"ADDED","key":"k1","rv":10,"tok":"c0-1","at":1.5}
H
}

# names KIND: the history in $H has exactly one anomaly, of KIND; the checker exits 1, and
# 0 with --expect KIND
names() {
    run python3 "$CHECK" "$H"
    [ "$status" -eq 1 ] || { echo "exit $status: $output"; return 1; }
    [ "${#lines[@]}" -eq 2 ] || { echo "want one anomaly: $output"; return 1; }
    [[ "${lines[0]}" == "$1: "* ]] || { echo "want $1: $output"; return 1; }
    [[ "${lines[1]}" == *": 1 anomalies ("*"$1 1"* ]] || { echo "summary: $output"; return 1; }
    run python3 "$CHECK" --expect "$1" "$H"
    [ "$status" -eq 0 ]
}

setup() {
    H=$BATS_TEST_TMPDIR/history.ndjson
}

@test "a clean history: acknowledged, refused and indeterminate writes, reads, a watch, a kill" {
    { base; cat <<'H'
{"t":"op","c":1,"n":1,"op":"update","tok":"c1-1","key":"k1","start":3,"end":4,"status":null,"err":"RemoteDisconnected"}
{"t":"op","c":2,"n":1,"op":"update","tok":"c2-1","key":"k2","start":3,"end":4,"status":null,"err":"RemoteDisconnected"}
{"t":"ev","w":9,"seg":1,"type":"MODIFIED","key":"k1","rv":11,"tok":"c1-1","at":3.5}
{"t":"kill","at":4}
{"t":"ready","at":5}
{"t":"seg","w":9,"seg":2,"from":5,"start":5.5}
{"t":"ev","w":9,"seg":2,"type":"ADDED","key":"k1","rv":10,"tok":"c0-1","at":5.6}
{"t":"ev","w":9,"seg":2,"type":"MODIFIED","key":"k1","rv":11,"tok":"c1-1","at":5.7}
{"t":"op","c":0,"n":2,"op":"get","key":"k1","start":6,"end":7,"status":200,"rv":11,"seen":"c1-1"}
{"t":"op","c":0,"n":3,"op":"list","start":8,"end":9,"status":200,"rv":12,"items":{"k1":[11,"c1-1"]}}
{"t":"op","c":0,"n":4,"op":"cupdate","tok":"c0-4","prec":10,"key":"k1","start":10,"end":11,"status":409}
{"t":"op","c":0,"n":5,"op":"create","tok":"c0-5","key":"k1","start":10,"end":11,"status":200,"rv":11,"seen":"c1-1"}
{"t":"op","c":0,"n":6,"op":"delete","tok":"c0-6","key":"k1","start":12,"end":13,"status":200,"rv":11}
{"t":"ev","w":9,"seg":2,"type":"DELETED","key":"k1","rv":13,"tok":"c1-1","at":12.5}
{"t":"op","c":0,"n":7,"op":"get","key":"k1","start":14,"end":15,"status":404}
{"t":"op","c":0,"n":8,"op":"get","key":"k2","start":14,"end":15,"status":404}
H
    } >"$H"
    run python3 "$CHECK" "$H"
    [ "$status" -eq 0 ]
    [ "$output" = "check.py: 10 operations, 5 watch events, 1 kills: 0 anomalies (lost-write 0, stale-read 0, flip 0, rv-backwards 0, watch-skip 0, watch-repeat 0, watch-unconfirmed 0, failed-write-visible 0)" ]
    run python3 "$CHECK" --expect lost-write "$H"
    [ "$status" -eq 1 ]
}

@test "lost-write: an acknowledged create is gone after a restart" {
    { base; cat <<'H'
{"t":"kill","at":3}
{"t":"ready","at":4}
{"t":"op","c":0,"n":2,"op":"get","key":"k1","start":5,"end":6,"status":404}
H
    } >"$H"
    names lost-write
}

@test "stale-read: a read older than a write acknowledged before it began" {
    { base; cat <<'H'
{"t":"op","c":1,"n":1,"op":"update","tok":"c1-1","key":"k1","start":3,"end":4,"status":200,"rv":12,"seen":"c1-1"}
{"t":"ev","w":9,"seg":1,"type":"MODIFIED","key":"k1","rv":12,"tok":"c1-1","at":3.5}
{"t":"op","c":0,"n":2,"op":"get","key":"k1","start":5,"end":6,"status":200,"rv":10,"seen":"c0-1"}
H
    } >"$H"
    names stale-read
}

@test "flip: an indeterminate write seen, then gone" {
    { base; cat <<'H'
{"t":"op","c":1,"n":1,"op":"update","tok":"c1-1","key":"k1","start":3,"end":4,"status":null,"err":"timeout"}
{"t":"op","c":0,"n":2,"op":"get","key":"k1","start":5,"end":6,"status":200,"rv":12,"seen":"c1-1"}
{"t":"op","c":0,"n":3,"op":"list","start":7,"end":8,"status":200,"rv":12,"items":{"k1":[10,"c0-1"]}}
H
    } >"$H"
    names flip
}

@test "rv-backwards: a list answers a revision below one acknowledged before it began" {
    { base; cat <<'H'
{"t":"op","c":1,"n":1,"op":"list","start":3,"end":4,"status":200,"rv":9,"items":{"k1":[10,"c0-1"]}}
H
    } >"$H"
    names rv-backwards
}

@test "watch-skip: a watch passes an acknowledged change without sending it" {
    { base; cat <<'H'
{"t":"op","c":1,"n":1,"op":"create","tok":"c1-1","key":"k2","start":3,"end":4,"status":201,"rv":11,"seen":"c1-1"}
{"t":"op","c":0,"n":2,"op":"update","tok":"c0-2","key":"k1","start":5,"end":6,"status":200,"rv":12,"seen":"c0-2"}
{"t":"ev","w":9,"seg":1,"type":"MODIFIED","key":"k1","rv":12,"tok":"c0-2","at":5.5}
H
    } >"$H"
    names watch-skip
}

@test "watch-repeat: a watch sends one change twice" {
    { base; cat <<'H'
{"t":"ev","w":9,"seg":1,"type":"ADDED","key":"k1","rv":10,"tok":"c0-1","at":2.5}
H
    } >"$H"
    names watch-repeat
}

@test "watch-unconfirmed: a watch sends a change no read, acknowledgement or later watch confirms" {
    { base; cat <<'H'
{"t":"op","c":1,"n":1,"op":"update","tok":"c1-1","key":"k1","start":3,"end":4,"status":null,"err":"RemoteDisconnected"}
{"t":"ev","w":9,"seg":1,"type":"MODIFIED","key":"k1","rv":11,"tok":"c1-1","at":3.5}
{"t":"kill","at":4}
{"t":"ready","at":5}
{"t":"seg","w":9,"seg":2,"from":5,"start":5.5}
{"t":"ev","w":9,"seg":2,"type":"ADDED","key":"k1","rv":10,"tok":"c0-1","at":5.6}
{"t":"op","c":0,"n":2,"op":"get","key":"k1","start":6,"end":7,"status":200,"rv":10,"seen":"c0-1"}
H
    } >"$H"
    names watch-unconfirmed
}

@test "failed-write-visible: a write answered 409 Conflict is read" {
    { base; cat <<'H'
{"t":"op","c":1,"n":1,"op":"cupdate","tok":"c1-1","prec":3,"key":"k1","start":3,"end":4,"status":409}
{"t":"op","c":0,"n":2,"op":"get","key":"k1","start":5,"end":6,"status":200,"rv":12,"seen":"c1-1"}
H
    } >"$H"
    names failed-write-visible
}

@test "a history that is not JSON lines: exit 2, saying so" {
    printf 'not json\n' >"$H"
    run python3 "$CHECK" "$H"
    [ "$status" -eq 2 ]
    [[ "$output" == "check.py: $H: cannot read the history: "* ]]
}
