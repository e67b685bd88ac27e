/* nodus-emulator: serves the Nodus API offline from a state directory of JSON files. */
#include <jansson.h>
#include <string.h>

#include "emulator.h"
#include "util/xmalloc.h"

int main(int argc, char **argv)
{
    nd_xmalloc_install();
    struct em_server srv;
    memset(&srv, 0, sizeof srv);
    int rc = em_options_parse(&srv.opt, argc, argv);
    if (rc == 0)
        rc = em_server_run(&srv);
    else
        rc = rc > 0 ? 0 : 2;
    em_options_release(&srv.opt);
    return rc;
}
