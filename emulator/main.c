#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("nodus-emulator %s\n", ND_VERSION);
        return 0;
    }
    printf("usage: nodus-emulator [flags]\n");
    return 0;
}
