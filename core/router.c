/* router.c — placeholder, being written. */
