/* metrics.c — placeholder, being written. */
