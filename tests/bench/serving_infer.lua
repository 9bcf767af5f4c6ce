-- serving_infer.lua — wrk script of tests/bench/serving.sh: every request
-- POSTs the v2 infer body in BENCH_BODY (JSON, one row) to the URL's path;
-- headers given with wrk -H (the caller's credential) go with it.
wrk.method = "POST"
wrk.body = os.getenv("BENCH_BODY") or "{}"
wrk.headers["Content-Type"] = "application/json"
