#!/usr/bin/env bats
# Files: a Sandbox's and a Volume's file tree read and written as tar streams (checked
# against GNU tar), and everything that must stay inside the tree: ".." paths and
# members, absolute members, links pointing out, hard links, links already in the tree.

load ../lib/common

NS=/apis/nodus.dev/v1/namespaces/default

setup_file() {
    start_emulator
    local body
    body=$(jq -cn '{apiVersion:"nodus.dev/v1",kind:"Sandbox",metadata:{name:"box"},
                    spec:{image:"nodus/pytorch:2.8-cuda12.8",maxCostUSD:"10.00"}}')
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' -d "$body" "$EMU_URL$NS/sandboxes"
    body=$(jq -cn '{apiVersion:"nodus.dev/v1",kind:"Volume",metadata:{name:"data"},spec:{size:"10Gi"}}')
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' -d "$body" "$EMU_URL$NS/volumes"
}

teardown_file() {
    stop_emulator
    ! grep -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$BATS_FILE_TMPDIR/emulator.err"
}

setup() {
    cd "$BATS_TEST_TMPDIR"
}

FILES=$NS/sandboxes/box/files
TREE() { echo "$EMU_STATE/files/default/sandboxes/box"; }

put() { # QUERY-PATH TAR-FILE [curl args]
    local q=$1 f=$2
    shift 2
    http PUT "$FILES?path=$q" "@$f" -H 'Content-Type: application/x-tar' "$@"
}

@test "PUT a tar: written under the path (made when missing), modes and times kept" {
    mkdir -p src/sub && printf 'one\n' >src/a.txt && printf 'two\n' >src/sub/b.txt
    chmod 640 src/a.txt && chmod 750 src/sub && touch -d '2024-01-02 03:04:05' src/a.txt
    tar -cf in.tar src
    put /work/in in.tar
    [ "$CODE" = 200 ]
    [ "$(body_json .status)" = Success ]
    [ "$(body_json .message)" = "wrote 4 members under /work/in" ]
    diff -r src "$(TREE)/work/in/src"
    [ "$(stat -c %a "$(TREE)/work/in/src/a.txt")" = 640 ]
    [ "$(stat -c %a "$(TREE)/work/in/src/sub")" = 750 ]
    [ "$(stat -c %Y "$(TREE)/work/in/src/a.txt")" = "$(stat -c %Y src/a.txt)" ]
}

@test "GET: a directory as a tar GNU tar reads, named after the path's last component" {
    http GET "$FILES?path=/work/in/src"
    [ "$CODE" = 200 ]
    [ "$(header Content-Type)" = application/x-tar ]
    run tar -tvf "$BODY"
    assert_line -n 0 --regexp '^drwxr-xr-x 0/0 +0 .* src/$'
    assert_line -n 1 --regexp '^-rw-r----- 0/0 +4 2024-01-02 03:04 src/a.txt$'
    assert_line -n 2 --regexp '^drwxr-x--- 0/0 +0 .* src/sub/$'
    assert_line -n 3 --regexp '^-rw-r--r-- 0/0 +4 .* src/sub/b.txt$'
    mkdir out && tar -xf "$BODY" -C out
    diff -r "$(TREE)/work/in/src" out/src
}

@test "GET: a file, the top (members under .), and stat" {
    http GET "$FILES?path=/work/in/src/sub/b.txt"
    [ "$CODE" = 200 ]
    run tar -tf "$BODY"
    assert_output b.txt
    http GET "$FILES"
    run tar -tf "$BODY"
    assert_line -n 0 ./
    assert_line ./work/in/src/a.txt
    http GET "$FILES?path=/work/in/src/a.txt&stat=true"
    [ "$CODE" = 200 ]
    run jq -c '{path, type, mode, size, modified}' "$BODY"
    assert_output '{"path":"/work/in/src/a.txt","type":"File","mode":"0640","size":4,"modified":"2024-01-02T03:04:05Z"}'
    http GET "$FILES?path=work/in&stat=true"
    [ "$(body_json .type)" = Directory ]
    [ "$(body_json .path)" = /work/in ]
}

@test "long names: GNU and pax archives in, pax out" {
    local d e f
    d=$(printf 'd%.0s' $(seq 1 120)) e=$(printf 'e%.0s' $(seq 1 120)) f=$(printf 'f%.0s' $(seq 1 150))
    mkdir -p "long/$d/$e" && echo deep >"long/$d/$e/$f.txt"
    tar --format=gnu -cf gnu.tar long
    tar --format=pax -cf pax.tar long
    put /gnu gnu.tar
    [ "$CODE" = 200 ]
    put /pax pax.tar
    [ "$CODE" = 200 ]
    [ "$(cat "$(TREE)/gnu/long/$d/$e/$f.txt")" = deep ]
    [ "$(cat "$(TREE)/pax/long/$d/$e/$f.txt")" = deep ]
    http GET "$FILES?path=/pax/long"
    run tar -tf "$BODY"
    assert_line "long/$d/$e/$f.txt"
}

@test "a missing path is NotFound; a missing object too" {
    http GET "$FILES?path=/nope/x"
    [ "$CODE" = 404 ]
    [ "$(body_json .message)" = 'sandbox "box" has no file "/nope/x"' ]
    http GET "$NS/sandboxes/ghost/files?path=/"
    [ "$CODE" = 404 ]
    [ "$(body_json .message)" = 'sandboxes.nodus.dev "ghost" not found' ]
}

@test "a path with .. is refused, reading and writing" {
    http GET "$FILES?path=/work/../../etc"
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = 'path "/work/../../etc" has a ".." component: paths stay inside the object'"'"'s files' ]
    printf x >f && tar -cf f.tar f
    put /../escape f.tar
    [ "$CODE" = 400 ]
    [ ! -e "$EMU_STATE/files/default/sandboxes/escape" ]
}

@test "members with .. are refused, and nothing of the archive is written" {
    mkdir -p a && printf ok >a/first && printf bad >evil
    tar -cf dots.tar a/first -P ../"$(basename "$PWD")"/evil
    run tar -tf dots.tar
    assert_line --partial '../'
    put /dots dots.tar
    [ "$CODE" = 400 ]
    assert_equal "$(body_json .message)" "cannot write the files of sandbox \"box\": refused: \"../$(basename "$PWD")/evil\" has a \"..\" component (it would reach outside the destination)"
    [ ! -e "$(TREE)/dots/a/first" ]
}

@test "absolute members are taken relative to the destination" {
    printf abs >abs.txt
    tar -cPf abs.tar "$PWD/abs.txt"
    put /abs abs.tar
    [ "$CODE" = 200 ]
    [ "$(cat "$(TREE)/abs$PWD/abs.txt")" = abs ]
}

@test "links pointing outside the tree are refused; inside they are kept" {
    mkdir lnk && ln -s /etc/passwd lnk/pw && tar -cf out1.tar lnk
    put /l out1.tar
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = 'cannot write the files of sandbox "box": refused: the symbolic link "lnk/pw" points outside the destination (to "/etc/passwd")' ]
    rm -rf lnk && mkdir lnk && ln -s ../../../../../x lnk/up && tar -cf out2.tar lnk
    put /l out2.tar
    [ "$CODE" = 400 ]
    # a link may climb up to the top of the tree, not past it
    rm -rf lnk && mkdir lnk && ln -s ../../work/in lnk/ok && tar -cf in.tar lnk
    put /l in.tar
    [ "$CODE" = 200 ]
    [ "$(readlink "$(TREE)/l/lnk/ok")" = ../../work/in ]
}

@test "hard links are refused" {
    printf x >h1 && ln h1 h2 && tar -cf hard.tar h1 h2
    put /hard hard.tar
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = 'cannot write the files of sandbox "box": refused: "h2" is a hard link (to "h1"); hard links are not accepted' ]
}

@test "a link already in the tree is never followed, reading or writing" {
    ln -s /etc "$(TREE)/etc-link"
    ln -s "$BATS_TEST_TMPDIR" "$(TREE)/tmp-link"
    http GET "$FILES?path=/etc-link/passwd"
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = 'path "/etc-link/passwd" of sandbox "box": etc-link is a symbolic link, not a directory' ]
    mkdir m && printf x >m/escaped && tar -cf m.tar -C m escaped
    put /tmp-link m.tar
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = 'path "/tmp-link" of sandbox "box": tmp-link is a symbolic link, not a directory' ]
    [ ! -e "$BATS_TEST_TMPDIR/escaped" ]
    # a member over the link replaces the link, never writes through it
    mkdir o && printf new >o/tmp-link && tar -cf over.tar -C o tmp-link
    put / over.tar
    [ "$CODE" = 200 ]
    [ ! -L "$(TREE)/tmp-link" ]
    [ "$(cat "$(TREE)/tmp-link")" = new ]
    # reading the top keeps links as links
    http GET "$FILES?path=/etc-link"
    run tar -tvf "$BODY"
    assert_output --regexp '^lrwxrwxrwx .* etc-link -> /etc$'
}

@test "bodies: a document or form type is refused, an empty body too; a tar type works" {
    http PUT "$FILES?path=/x" '{"a":1}'
    [ "$CODE" = 415 ]
    http PUT "$FILES?path=/x" ''
    [ "$CODE" = 400 ]
    printf x >f && tar -cf f.tar f
    http PUT "$FILES?path=/plain" @f.tar -H 'Content-Type: application/x-www-form-urlencoded'
    [ "$CODE" = 415 ]
    http PUT "$FILES?path=/plain" @f.tar -H 'Content-Type: application/octet-stream'
    [ "$CODE" = 200 ]
    http PUT "$FILES?path=/junk" 'not a tar archive at all' -H 'Content-Type: application/x-tar'
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = 'cannot write the files of sandbox "box": the tar archive is malformed at byte 0: a truncated header' ]
}

@test "a Volume's files are its own tree" {
    printf vol >v.txt && tar -cf v.tar v.txt
    http PUT "$NS/volumes/data/files?path=/d" @v.tar -H 'Content-Type: application/x-tar'
    [ "$CODE" = 200 ]
    [ "$(cat "$EMU_STATE/files/default/volumes/data/d/v.txt")" = vol ]
    http GET "$NS/volumes/data/files?path=/d/v.txt"
    [ "$(tar -xOf "$BODY" v.txt)" = vol ]
    # Jobs have no files subresource
    http GET "$NS/jobs/j/files?path=/"
    [ "$CODE" = 404 ]
}

@test "a new object with an old name starts with an empty tree" {
    printf keep >k && tar -cf k.tar k
    http PUT "$NS/volumes/data/files?path=/" @k.tar -H 'Content-Type: application/x-tar'
    [ -e "$EMU_STATE/files/default/volumes/data/k" ]
    curl -sf -o /dev/null -X DELETE "$(emu_url)$NS/volumes/data"
    curl -sf -o /dev/null -X POST "$(emu_url)/emulator/v1/clock" -H 'Content-Type: application/json' -d '{"advance":"2m"}'
    http GET "$NS/volumes/data"
    [ "$CODE" = 404 ]
    local body
    body=$(jq -cn '{apiVersion:"nodus.dev/v1",kind:"Volume",metadata:{name:"data"},spec:{size:"1Gi"}}')
    http POST "$NS/volumes" "$body"
    [ "$CODE" = 201 ]
    http GET "$NS/volumes/data/files?path=/k"
    [ "$CODE" = 404 ]
}
