# A throwaway CA for the TLS suites, made by openssl in DIR:
#   make_test_ca DIR [client]
# writes ca.pem (and ca.key), srv.pem/srv.key for 127.0.0.1 (subjectAltName IP), and
# with "client" also client.pem/client.key signed by the same CA. Keys are mode 600.
make_test_ca() {
    local d=$1 who
    (
        cd "$d" || exit 1
        openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 \
            -subj "/CN=nodus test CA" 2>/dev/null
        for who in srv ${2:+client}; do
            openssl req -newkey rsa:2048 -nodes -keyout $who.key -out $who.csr \
                -subj "/CN=$who" 2>/dev/null
        done
        printf 'subjectAltName=IP:127.0.0.1\n' >srv.ext
        openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem \
            -days 2 -extfile srv.ext 2>/dev/null
        if [ -n "${2:-}" ]; then
            openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
                -out client.pem -days 2 2>/dev/null
        fi
        chmod 600 ca.key srv.key ${2:+client.key}
    )
}
