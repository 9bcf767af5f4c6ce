/* host.c — placeholder, being written. */
