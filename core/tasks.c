/* tasks.c — placeholder, being written. */
