#!/bin/sh
# Installs the Debian packages nodus needs to build, test and demo, when any is missing
# (zsh, fish and bash-completion: the completion tests run each shell; node and npm: the
# client matrix runs @kubernetes/client-node, tests/clients, and python3-kubernetes the
# Python client, for Debian's /usr/bin/python3; bubblewrap: the emulator runs exec
# sessions and local Jobs in it, docs/exec-files.md; pmccabe: scripts/long-functions.sh
# measures the functions, a check make check runs; chromium: the console's tests drive it
# headless through playwright-core, tests/clients, which downloads no browser).
# Quick when everything is present: one dpkg-query, no network.
#   install-deps.sh        what make check and make demo need
#   install-deps.sh browser  only chromium, for the console's browser tests and make
#                          screenshots (make check installs it beside the build, since the
#                          build does not need it; make demo never does)
#   install-deps.sh fuzz   what make fuzz needs (clang, for libFuzzer) as well
#   install-deps.sh bench  what make bench needs (json-server runs on node too, wrk,
#                          gnuplot for the plots) as well
# The Makefile names the -dev package of a library pkg-config cannot find: one of these.
set -eu

PACKAGES="build-essential pkg-config libcurl4-openssl-dev libyaml-dev libjansson-dev
libreadline-dev libmicrohttpd-dev libwslay-dev libcmocka-dev bats bats-support bats-assert
curl perl python3 python3-kubernetes jq groff-base hyperfine time openssl iproute2 zsh fish
bash-completion bubblewrap pmccabe"
FUZZ_PACKAGES="clang"
[ "${1:-}" = fuzz ] && PACKAGES="$PACKAGES $FUZZ_PACKAGES"
[ "${1:-}" = browser ] && PACKAGES="chromium"
# node and npm by command, not package: a node from elsewhere (NodeSource ships npm inside
# its nodejs package, which conflicts with Debian's npm) is fine
command -v node >/dev/null 2>&1 || PACKAGES="$PACKAGES nodejs"
command -v npm >/dev/null 2>&1 || PACKAGES="$PACKAGES npm"
if [ "${1:-}" = bench ]; then
    command -v wrk >/dev/null 2>&1 || PACKAGES="$PACKAGES wrk"
    command -v gnuplot >/dev/null 2>&1 || PACKAGES="$PACKAGES gnuplot-nox"
fi

# one dpkg-query for them all (one a package took a second of CPU on every make check):
# the installed ones, one a line; a package it does not know is not among them
installed=" $(dpkg-query -W -f='${Package} ${db:Status-Status}\n' $PACKAGES 2>/dev/null |
    awk '$2 == "installed" { printf "%s ", $1 }')"
missing=""
for p in $PACKAGES; do
    case $installed in *" $p "*) ;; *) missing="$missing $p" ;; esac
done

[ -z "$missing" ] && exit 0

echo "install-deps: missing Debian packages:$missing" >&2
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        echo "install-deps: not root; run this first, then try again:" >&2
        echo "  sudo apt-get update && sudo apt-get install -y$missing" >&2
        exit 1
    fi
else
    SUDO=""
fi

export DEBIAN_FRONTEND=noninteractive
# Update the package lists only when they are absent or cannot provide a missing package.
if ! $SUDO apt-get install -y --no-install-recommends $missing >/dev/null 2>&1; then
    echo "install-deps: apt-get update" >&2
    $SUDO apt-get update -qq
    $SUDO apt-get install -y --no-install-recommends $missing
fi
echo "install-deps: installed:$missing" >&2
