/* util.c — placeholder, being written. */
