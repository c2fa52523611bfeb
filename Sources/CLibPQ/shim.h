// PostgreSQL's client library: Debian's libpq-dev (/usr/include/postgresql), Homebrew's libpq.
#include <libpq-fe.h>
