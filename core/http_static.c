/* http_static.c — placeholder, being written. */
